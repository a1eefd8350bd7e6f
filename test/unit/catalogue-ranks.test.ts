/**
 * catalogue.md family R (ranks within the race), hand-computed: competition ranking "1224",
 * 1 = highest, only among runners that have the value, 0 for the others.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import type { AnalyticsRow, RaceCard } from '../../domain/avro-types.generated.js';
import { competitionRanks, RANK_FIELDS, type RankInput, rankFields } from '../../domain/features/ranks.js';
import { rowKey } from '../../streams/processors/engine-links.js';
import { EngineState } from '../../streams/processors/engine-state.js';
import { memoryStore } from '../support/memory-store.js';
import { at, card, horse, jockey, race, result, type RunnerSpec } from '../support/builders.js';
import { type Ev, ev, runEngine } from '../support/engine-harness.js';

function row(f: Partial<RankInput>): RankInput {
  return {
    vpr: 0,
    vprConfidence: 0,
    officialRating: 0,
    weightLbs: 130,
    jockeyWinRate90Day: 0,
    jockeyRides90Day: 0,
    trainer14DayWinRate: 0,
    trainerRunners14Day: 0,
    ...f,
  };
}

/**
 *  i  vpr/conf      OR   wt   jockey rate/rides  trainer rate/runners
 *  0  80.5/1        90   140  0.2/50             0.25/8
 *  1  80.5/0.5      85   133  0.15/40            0/0     (no runners: unranked)
 *  2  95.0/0        0    126  0.2/10             0.25/4  (vpr without confidence: unranked, not the best)
 *  3  78.2/0.8333   90   140  0/0                0.1/10
 *  4  0/0           70   131  0.3/3              0/5     (runners, no winner: ranked last)
 *  5  70.0/0.1667   88   129  0.15/20            0.25/12
 */
const rows: RankInput[] = [
  row({
    vpr: 80.5,
    vprConfidence: 1,
    officialRating: 90,
    weightLbs: 140,
    jockeyWinRate90Day: 0.2,
    jockeyRides90Day: 50,
    trainer14DayWinRate: 0.25,
    trainerRunners14Day: 8,
  }),
  row({
    vpr: 80.5,
    vprConfidence: 0.5,
    officialRating: 85,
    weightLbs: 133,
    jockeyWinRate90Day: 0.15,
    jockeyRides90Day: 40,
  }),
  row({
    vpr: 95,
    vprConfidence: 0,
    officialRating: 0,
    weightLbs: 126,
    jockeyWinRate90Day: 0.2,
    jockeyRides90Day: 10,
    trainer14DayWinRate: 0.25,
    trainerRunners14Day: 4,
  }),
  row({
    vpr: 78.2,
    vprConfidence: 0.8333,
    officialRating: 90,
    weightLbs: 140,
    trainer14DayWinRate: 0.1,
    trainerRunners14Day: 10,
  }),
  row({ officialRating: 70, weightLbs: 131, jockeyWinRate90Day: 0.3, jockeyRides90Day: 3, trainerRunners14Day: 5 }),
  row({
    vpr: 70,
    vprConfidence: 0.1667,
    officialRating: 88,
    weightLbs: 129,
    jockeyWinRate90Day: 0.15,
    jockeyRides90Day: 20,
    trainer14DayWinRate: 0.25,
    trainerRunners14Day: 12,
  }),
];

describe('R: ranks within the race', () => {
  it('every field of every row', () => {
    const r = rankFields(rows);
    expect(RANK_FIELDS).toHaveLength(6);
    for (const x of r) expect(Object.keys(x)).toEqual([...RANK_FIELDS]);
    expect(r).toEqual([
      // vpr among conf > 0: 80.5 (0, 1) -> 1, 1; 78.2 (3) -> 3; 70 (5) -> 4. Best 80.5, not 95 (no confidence)
      // rating among rated: 90 (0, 3) -> 1, 1; 88 (5) -> 3; 85 (1) -> 4; 70 (4) -> 5
      // weight: 140 (0, 3) -> 1, 1; 133 (1) -> 3; 131 (4) -> 4; 129 (5) -> 5; 126 (2) -> 6
      // jockey among rides > 0: 0.3 (4) -> 1; 0.2 (0, 2) -> 2, 2; 0.15 (1, 5) -> 4, 4
      // trainer among runners > 0: 0.25 (0, 2, 5) -> 1, 1, 1; 0.1 (3) -> 4; 0 (4) -> 5
      {
        vprRankInRace: 1,
        vprGapToBest: 0,
        officialRatingRankInRace: 1,
        weightRankInRace: 1,
        jockeyWinRate90DayRankInRace: 2,
        trainer14DayWinRateRankInRace: 1,
      },
      {
        vprRankInRace: 1,
        vprGapToBest: 0,
        officialRatingRankInRace: 4,
        weightRankInRace: 3,
        jockeyWinRate90DayRankInRace: 4,
        trainer14DayWinRateRankInRace: 0,
      },
      {
        vprRankInRace: 0,
        vprGapToBest: null,
        officialRatingRankInRace: 0,
        weightRankInRace: 6,
        jockeyWinRate90DayRankInRace: 2,
        trainer14DayWinRateRankInRace: 1,
      },
      // gap 80.5 - 78.2 = 2.3
      {
        vprRankInRace: 3,
        vprGapToBest: 2.3,
        officialRatingRankInRace: 1,
        weightRankInRace: 1,
        jockeyWinRate90DayRankInRace: 0,
        trainer14DayWinRateRankInRace: 4,
      },
      {
        vprRankInRace: 0,
        vprGapToBest: null,
        officialRatingRankInRace: 5,
        weightRankInRace: 4,
        jockeyWinRate90DayRankInRace: 1,
        trainer14DayWinRateRankInRace: 5,
      },
      // gap 80.5 - 70 = 10.5
      {
        vprRankInRace: 4,
        vprGapToBest: 10.5,
        officialRatingRankInRace: 3,
        weightRankInRace: 5,
        jockeyWinRate90DayRankInRace: 4,
        trainer14DayWinRateRankInRace: 1,
      },
    ]);
  });

  it('does not depend on the order of the rows', () => {
    const perm = [3, 5, 0, 2, 4, 1];
    const r = rankFields(rows);
    expect(rankFields(perm.map((i) => rows[i]!))).toEqual(perm.map((i) => r[i]!));
  });

  it('a lone runner without the values; an empty race', () => {
    expect(rankFields([row({})])).toEqual([
      {
        vprRankInRace: 0,
        vprGapToBest: null,
        officialRatingRankInRace: 0,
        weightRankInRace: 1,
        jockeyWinRate90DayRankInRace: 0,
        trainer14DayWinRateRankInRace: 0,
      },
    ]);
    expect(rankFields([])).toEqual([]);
  });

  it('a jockey or trainer with rides or runners but no winner is ranked (last), one without is not', () => {
    const r = rankFields([
      row({ jockeyRides90Day: 5, trainerRunners14Day: 5 }),
      row({}),
      row({ jockeyWinRate90Day: 0.5, jockeyRides90Day: 2, trainer14DayWinRate: 0.5, trainerRunners14Day: 2 }),
    ]);
    expect(r.map((x) => [x.jockeyWinRate90DayRankInRace, x.trainer14DayWinRateRankInRace])).toEqual([
      [2, 2],
      [0, 0],
      [1, 1],
    ]);
  });

  it('competitionRanks: 1224, ineligible 0', () => {
    const v = [5, 9, 7, 7, 3, 9];
    expect(
      competitionRanks(
        v.length,
        (i) => v[i]!,
        (i) => i !== 4,
      ),
    ).toEqual([5, 1, 3, 3, 0, 1]);
  });

  it('competitionRanks: each eligible runner ranks one after the eligible runners with a greater value, over random fields with ties', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ v: fc.integer({ min: 0, max: 6 }).map((x) => x / 2), has: fc.boolean() }), {
          maxLength: 40,
        }),
        (runners) => {
          const want = runners.map((r) => (r.has ? 1 + runners.filter((o) => o.has && o.v > r.v).length : 0));
          const got = competitionRanks(
            runners.length,
            (i) => runners[i]!.v,
            (i) => runners[i]!.has,
          );
          expect(got).toEqual(want);
        },
      ),
      { numRuns: 500 },
    );
  });
});

/**
 * A runner declared on the card used but left out of the result (withdrawn at the start) gets no final
 * row, yet it stays one of "the runners of the card used" the ranks are over: the result changes no
 * rank, and what its horse and jockey did before the off reaches the ranks whenever it arrives.
 *
 *  R0 (1 May, C5): W (jockey JW) 1st, A (jockey JA) 2nd beaten 6 lengths
 *  R1 (5 May, C6): X (jockey JX) 1st, Y 2nd; its result is published before R2's off
 *  R2 (9 May, C1): A (JA, OR 80, 130 lb), B (JB, OR 90, 135 lb), X (JX, OR 100, 140 lb); the result
 *                  lists A 1st and B 2nd and leaves X out
 *
 * Hand-computed ranks in R2 (over A, B and X): official rating X 1, B 2, A 3; weight X 1, B 2, A 3;
 * vpr: X won R1 (figure 60 + 0 + 0 = 60), A was beaten 6 lengths in R0 (60 - 6 * 1.5 = 51): X 1, A 2,
 * B unranked (no run); jockey 90-day win rate: JX 1/1, JA 0/1: X 1, A 2, JB has no rides: 0.
 */
describe('ranks of a race whose result leaves out a declared runner', () => {
  const R0 = card({
    r: 'R0',
    off: '2024-05-01T12:00:00Z',
    c: 'C5',
    cls: 0,
    runners: [
      { h: 'W', j: 'JW' },
      { h: 'A', j: 'JA' },
    ],
  });
  const R0res = result({
    r: 'R0',
    pub: '2024-05-01T12:10:00Z',
    runners: [
      { h: 'W', pos: 1 },
      { h: 'A', pos: 2, bl: 6 },
    ],
  });
  /** R1 with `first` against Y, and its result: `winner` 1st, Y 2nd */
  const r1Card = (first: RunnerSpec) =>
    card({ r: 'R1', off: '2024-05-05T12:00:00Z', c: 'C6', cls: 0, runners: [first, { h: 'Y' }] });
  const r1Result = (winner: string) =>
    result({
      r: 'R1',
      pub: '2024-05-05T12:10:00Z',
      runners: [
        { h: winner, pos: 1 },
        { h: 'Y', pos: 2, bl: 1 },
      ],
    });
  /** R2: A, B and the runner X its result leaves out */
  const r2Card = (x: Omit<RunnerSpec, 'h' | 'or' | 'w'>) =>
    card({
      r: 'R2',
      off: '2024-05-09T14:00:00Z',
      pub: '2024-05-09T09:00:00Z',
      c: 'C1',
      runners: [
        { h: 'A', j: 'JA', or: 80, w: 130 },
        { h: 'B', j: 'JB', or: 90, w: 135 },
        { h: 'X', or: 100, w: 140, ...x },
      ],
    });
  const R1 = r1Card({ h: 'X', j: 'JX' });
  const R1res = r1Result('X');
  const R2 = r2Card({ j: 'JX' });
  const R2res = result({
    r: 'R2',
    pub: '2024-05-09T14:10:00Z',
    runners: [
      { h: 'A', pos: 1 },
      { h: 'B', pos: 2, bl: 2 },
    ],
  });
  const ranksOf = (rows: Map<string, AnalyticsRow>, h: string) => {
    const row = rows.get(rowKey(race('R2'), horse(h)));
    return (
      row && {
        status: row.status,
        or: row.officialRatingRankInRace,
        weight: row.weightRankInRace,
        vpr: row.vprRankInRace,
        vprGap: row.vprGapToBest,
        jockey: row.jockeyWinRate90DayRankInRace,
      }
    );
  };
  /** The rows in memory, and with every piece of state written to a store and evicted after each event. */
  const inMemoryAndEvicted = async (events: readonly Ev[]) => [
    (await runEngine(events)).rows,
    (await runEngine(events, 1, new EngineState(memoryStore()), true)).rows,
  ];
  const expected = {
    A: { or: 3, weight: 3, vpr: 2, vprGap: 9, jockey: 2 },
    B: { or: 2, weight: 2, vpr: 0, vprGap: null, jockey: 0 },
    X: { or: 1, weight: 1, vpr: 1, vprGap: 0, jockey: 1 },
  };

  it('the result changes no rank of the rows before it and gives the runner it leaves out no row', async () => {
    const before = (await runEngine([ev.card(R0), ev.result(R0res), ev.card(R1), ev.result(R1res), ev.card(R2)])).rows;
    const after = (
      await runEngine([ev.card(R0), ev.result(R0res), ev.card(R1), ev.result(R1res), ev.card(R2), ev.result(R2res)])
    ).rows;
    for (const h of ['A', 'B', 'X'] as const) {
      expect(ranksOf(before, h)).toEqual({ status: 'provisional', ...expected[h] });
    }
    for (const h of ['A', 'B'] as const) expect(ranksOf(after, h)).toEqual({ status: 'final', ...expected[h] });
    expect(ranksOf(after, 'X')).toBeUndefined();
  });

  it("the left-out runner's earlier result reaches its race's ranks when it arrives after that race's result", async () => {
    // R1's result (published before R2's off) arrives last: X's run and JX's ride change R2's ranks
    const events = [ev.card(R0), ev.result(R0res), ev.card(R1), ev.card(R2), ev.result(R2res), ev.result(R1res)];
    for (const late of await inMemoryAndEvicted(events)) {
      for (const h of ['A', 'B'] as const) expect(ranksOf(late, h)).toEqual({ status: 'final', ...expected[h] });
      expect(ranksOf(late, 'X')).toBeUndefined();
    }
  });

  /**
   * Each path of the interest alone (the world above reaches R2 through both X's horse and JX's index):
   *  jockey only: JX wins R1 on another horse Z; X has no run. Jockey ranks JX 1/1: X 1, JA 0/1: A 2;
   *               vpr: A alone has a run (51): A 1.
   *  horse only:  X wins R1 with jockey JQ and trainer TQ, no sire; in R2 X has jockey JX (no rides),
   *               trainer TX2 and no sire. vpr: X 60, A 51: A 2; jockey: A's JA alone has rides: A 1.
   */
  const R1z = r1Card({ h: 'Z', j: 'JX' });
  const R1zres = r1Result('Z');
  const R1q = r1Card({ h: 'X', j: 'JQ', t: 'TQ', s: null });
  const R2q = r2Card({ j: 'JX', t: 'TX2', s: null });
  it.each([
    [
      'jockey',
      [ev.card(R0), ev.result(R0res), ev.card(R1z), ev.card(R2), ev.result(R2res), ev.result(R1zres)],
      { vpr: 1, jockey: 2 },
    ],
    [
      'horse',
      [ev.card(R0), ev.result(R0res), ev.card(R1q), ev.card(R2q), ev.result(R2res), ev.result(R1res)],
      { vpr: 2, jockey: 1 },
    ],
  ] as const)(
    "through the left-out runner's %s alone, its earlier result reaches the ranks when it arrives last",
    async (_path, events, a) => {
      for (const late of await inMemoryAndEvicted(events)) {
        const r = ranksOf(late, 'A')!;
        expect({ vpr: r.vpr, jockey: r.jockey }).toEqual(a);
        expect(ranksOf(late, 'X')).toBeUndefined();
      }
    },
  );

  it("keeps the left-out runner's interest while it is left out, and drops it when a correction lists it", async () => {
    const R2fix = result({
      r: 'R2',
      pub: '2024-05-09T15:00:00Z',
      runners: [
        { h: 'A', pos: 1 },
        { h: 'B', pos: 2, bl: 2 },
        { h: 'X', pos: 3, bl: 4 },
      ],
    });
    const interest = (state: EngineState) => ({
      horse: state.peekHorse(horse('X'))?.pending.has(race('R2')) ?? false,
      jockey: state.peekIndex('jockey', jockey('JX'))?.pending.has(race('R2')) ?? false,
      runs: state.peekHorse(horse('X'))?.runs.filter((x) => x.raceId === race('R2')).length ?? 0,
    });
    const left = new EngineState();
    await runEngine([ev.card(R2), ev.result(R2res)], 1, left);
    expect(interest(left)).toEqual({ horse: true, jockey: true, runs: 0 });
    const listed = new EngineState();
    const rows = (await runEngine([ev.card(R2), ev.result(R2res), ev.result(R2fix)], 1, listed)).rows;
    expect(interest(listed)).toEqual({ horse: false, jockey: false, runs: 1 });
    expect(ranksOf(rows, 'X')?.status).toBe('final');
  });

  describe("a provisional row's computedAtUtc, with R2 carded before R1's result", () => {
    /**
     * R2's card published on 05-04, before R1's result (05-05 12:10, before R2's off). R1's result reaches
     * R2 through X alone, by one path each: X's horse (the horse world above), X's jockey (the jockey
     * world), X's trainer TX (Z wins R1 for TX), or X's sire SX (Z, by SX, wins R1). Family R reads every
     * runner's horse, jockey and trainer figures, so through those paths every row of R2 depends on R1's
     * result; the sire is read by X's own row only.
     */
    const early = (c: RaceCard): RaceCard => ({ ...c, publishedAt: at('2024-05-04T09:00:00Z') });
    const cardTime = '2024-05-04T09:00:00.000Z';
    const r1Time = '2024-05-05T12:10:00.000Z';
    it.each([
      ['horse', R1q, R2q, R1res, r1Time],
      ['jockey', R1z, R2, R1zres, r1Time],
      ['trainer', r1Card({ h: 'Z', j: 'JZ', t: 'TX' }), r2Card({ j: 'JX2', t: 'TX', s: null }), R1zres, r1Time],
      [
        'sire',
        r1Card({ h: 'Z', j: 'JZ', t: 'TZ', s: 'SX' }),
        r2Card({ j: 'JX2', t: 'TX2', s: 'SX' }),
        R1zres,
        cardTime,
      ],
    ] as const)('counts a result that reaches another runner through its %s', async (_path, r1, r2, r1res, others) => {
      const events = [ev.card(R0), ev.result(R0res), ev.card(r1), ev.card(early(r2)), ev.result(r1res)];
      const before = (await runEngine(events.slice(0, -1))).rows;
      for (const h of ['A', 'B', 'X']) {
        expect(before.get(rowKey(race('R2'), horse(h)))?.computedAtUtc).toBe(cardTime);
      }
      for (const rows of await inMemoryAndEvicted(events)) {
        const timeOf = (h: string) => rows.get(rowKey(race('R2'), horse(h)))?.computedAtUtc;
        expect({ A: timeOf('A'), B: timeOf('B'), X: timeOf('X') }).toEqual({ A: others, B: others, X: r1Time });
      }
    });
  });
});
