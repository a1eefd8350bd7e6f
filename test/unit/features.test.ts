import { beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsRow } from '../../domain/avro-types.generated.js';
import { rowKey } from '../../streams/processors/analytics-engine.js';
import { card, horse, race, result } from '../support/builders.js';
import { type Ev, ev, feedOrder, runEngine } from '../support/engine-harness.js';

function rowOf(rows: Map<string, AnalyticsRow>, r: string, h: string): AnalyticsRow {
  const row = rows.get(rowKey(race(r), horse(h)));
  if (!row) throw new Error(`no row for ${r}/${h}`);
  return row;
}

/** A horse H with three runs (a win, a 12th of 14 in an unrated unclassed race, a pull-up) and today's race D. */
function horseHistory(): Ev[] {
  return feedOrder([
    ev.card(
      card({
        r: 'A',
        off: '2024-01-10T14:00:00Z',
        c: 'C1',
        dist: 2200,
        cls: 4,
        runners: [
          { h: 'H', or: 80, w: 140 },
          { h: 'X', or: 70, w: 130 },
        ],
      }),
    ),
    ev.result(
      result({
        r: 'A',
        pub: '2024-01-10T14:10:00Z',
        runners: [
          { h: 'H', pos: 1 },
          { h: 'X', pos: 2, bl: 2 },
        ],
      }),
    ),
    ev.card(
      card({
        r: 'B',
        off: '2024-02-01T14:00:00Z',
        c: 'C2',
        dist: 1100,
        cls: 0,
        runners: [{ h: 'H', or: 0, w: 150 }, ...Array.from({ length: 13 }, (_, i) => ({ h: `B${i}` }))],
      }),
    ),
    ev.result(
      result({
        r: 'B',
        pub: '2024-02-01T14:08:00Z',
        runners: [
          ...Array.from({ length: 11 }, (_, i) => ({ h: `B${i}`, pos: i + 1, bl: i })),
          { h: 'H', pos: 12, bl: 20 },
          { h: 'B11', pos: 13, bl: 40 },
          { h: 'B12', pos: 0 },
        ],
      }),
    ),
    ev.card(
      card({
        r: 'C',
        off: '2024-03-01T14:00:00Z',
        c: 'C1',
        dist: 2640,
        cls: 5,
        discipline: 'hurdle',
        runners: [
          { h: 'H', or: 85, w: 152 },
          { h: 'Y', or: 90 },
        ],
      }),
    ),
    ev.result(
      result({
        r: 'C',
        pub: '2024-03-01T14:07:00Z',
        runners: [
          { h: 'Y', pos: 1 },
          { h: 'H', pos: 0, status: 'pulled-up' },
        ],
      }),
    ),
    ev.card(
      card({
        r: 'D',
        off: '2024-03-20T15:00:00Z',
        c: 'C1',
        dist: 2420,
        cls: 3,
        runners: [
          { h: 'H', or: 88, w: 145 },
          { h: 'NEW', or: 0 },
        ],
      }),
    ),
  ]);
}

describe('horse features', () => {
  let rows: Map<string, AnalyticsRow>;
  let d: AnalyticsRow;
  beforeAll(async () => {
    rows = (await runEngine(horseHistory())).rows;
    d = rowOf(rows, 'D', 'H');
  });

  it('counts runs (non-finishers included) and wins', async () => {
    expect(d.careerRuns).toBe(3);
    expect(d.careerWins).toBe(1);
  });

  it('courseForm averages form points of runs at this course, normalised by 3', async () => {
    // at C1: C pulled up (0 points), A won (3 points) -> 1.5 / 3
    expect(d.courseForm).toBe(0.5);
    expect(d.courseFormRuns).toBe(2);
  });

  it('winRatioLast5 over min(5, careerRuns) runs', async () => {
    expect(d.winRatioLast5).toBe(0.3333);
  });

  it('vpr is the 1, 0.8, ... weighted mean of run figures; non-finishers have none', async () => {
    // A: standard mean(80,70)=75, winner, 140 lbs -> 75.0
    // B: no rated runner, class unknown -> par 60; 20 lengths * clamp(3300/1100)=3 -> 60-60+5 = 5.0
    // C: pulled up -> no figure. Newest first: [5.0, 75.0] -> (5 + 0.8*75) / 1.8 = 36.11 -> 36.1
    expect(d.vpr).toBe(36.1);
    expect(d.vprConfidence).toBe(0.3333);
    expect(d.improvingVpr).toBe(false);
  });

  it('deltas compare with the last run (the pull-up)', async () => {
    expect(d.distanceDifferenceY).toBe(2420 - 2640);
    expect(d.ratingDifference).toBe(88 - 85);
    expect(d.weightDifferenceLbs).toBe(145 - 152);
    expect(d.classDifference).toBe(5 - 3); // last class minus today's: dropping in class is positive
    expect(d.lastRunDays).toBe(19);
  });

  it('a horse with no previous run gets 730 and -999 deltas', async () => {
    const n = rowOf(rows, 'D', 'NEW');
    expect(n.careerRuns).toBe(0);
    expect(n.lastRunDays).toBe(730);
    expect(n.distanceDifferenceY).toBe(-999);
    expect(n.ratingDifference).toBe(-999);
    expect(n.weightDifferenceLbs).toBe(-999);
    expect(n.classDifference).toBe(-999);
    expect(n.vpr).toBe(0);
    expect(n.courseForm).toBe(0);
    expect(n.winRatioLast5).toBe(0);
  });

  it('positions over 9 and non-finishers are 0 in final rows', async () => {
    const b = rows.get(rowKey(race('B'), horse('H')))!;
    expect(b.position).toBe(0);
    expect(b.status).toBe('final');
    expect(rowOf(rows, 'C', 'H').position).toBe(0);
    expect(rowOf(rows, 'B', 'B8').position).toBe(9);
    expect(rowOf(rows, 'A', 'H').position).toBe(1);
  });

  it('provisional rows have position 0 and computedAtUtc from the latest input', async () => {
    expect(d.status).toBe('provisional');
    expect(d.position).toBe(0);
    // D's card is published 2024-03-19T15:00Z, after every result H's entities saw
    expect(d.computedAtUtc).toBe('2024-03-19T15:00:00.000Z');
  });
});

describe('ratings and classes', () => {
  it('ratingDifference is -999 when either rating is unknown; classDifference when either class is unknown', async () => {
    const { rows } = await runEngine(
      feedOrder([
        ev.card(
          card({
            r: 'P',
            off: '2024-05-01T14:00:00Z',
            cls: 0,
            runners: [
              { h: 'H', or: 0 },
              { h: 'K', or: 70 },
            ],
          }),
        ),
        ev.result(
          result({
            r: 'P',
            pub: '2024-05-01T14:05:00Z',
            runners: [
              { h: 'H', pos: 1 },
              { h: 'K', pos: 2, bl: 1 },
            ],
          }),
        ),
        ev.card(
          card({
            r: 'Q',
            off: '2024-05-10T14:00:00Z',
            cls: 4,
            runners: [
              { h: 'H', or: 75 },
              { h: 'K', or: 0 },
            ],
          }),
        ),
      ]),
    );
    const h = rowOf(rows, 'Q', 'H');
    expect(h.ratingDifference).toBe(-999);
    expect(h.classDifference).toBe(-999);
    expect(rowOf(rows, 'Q', 'K').ratingDifference).toBe(-999);
    expect(h.lastRunDays).toBe(9);
  });

  it('improvingVpr needs three figures and the newest above the mean of the others', async () => {
    const evs: Ev[] = [];
    // three wins in races whose only rated runner is H: figures = rating (winner, 140 lbs)
    const ors = [60, 70, 90];
    ors.forEach((or, i) => {
      const r = `I${i}`;
      const off = `2024-0${i + 1}-05T14:00:00Z`;
      evs.push(ev.card(card({ r, off, runners: [{ h: 'H', or }, { h: `O${i}` }] })));
      evs.push(
        ev.result(
          result({
            r,
            pub: `2024-0${i + 1}-05T14:05:00Z`,
            runners: [
              { h: 'H', pos: 1 },
              { h: `O${i}`, pos: 2, bl: 1 },
            ],
          }),
        ),
      );
    });
    evs.push(ev.card(card({ r: 'Z', off: '2024-06-01T14:00:00Z', runners: [{ h: 'H', or: 95 }] })));
    const { rows } = await runEngine(feedOrder(evs));
    const z = rowOf(rows, 'Z', 'H');
    // newest first 90, 70, 60: vpr = (90 + 0.8*70 + 0.64*60) / 2.44 = 75.57 -> 75.6
    expect(z.vpr).toBe(75.6);
    expect(z.vprConfidence).toBe(0.5);
    expect(z.improvingVpr).toBe(true);
  });
});

describe('dead heats', () => {
  it('a dead heat for first is a win for each horse in it', async () => {
    const { rows } = await runEngine(
      feedOrder([
        ev.card(
          card({
            r: 'DH',
            off: '2024-04-01T14:00:00Z',
            runners: [
              { h: 'A', t: 'T' },
              { h: 'B', t: 'T' },
              { h: 'C', t: 'T' },
            ],
          }),
        ),
        ev.result(
          result({
            r: 'DH',
            pub: '2024-04-01T14:05:00Z',
            runners: [
              { h: 'A', pos: 1 },
              { h: 'B', pos: 1 },
              { h: 'C', pos: 3, bl: 2 },
            ],
          }),
        ),
        ev.card(
          card({
            r: 'N',
            off: '2024-04-02T14:00:00Z',
            runners: [
              { h: 'A', t: 'T' },
              { h: 'B', t: 'T' },
              { h: 'C', t: 'T' },
            ],
          }),
        ),
      ]),
    );
    expect(rowOf(rows, 'N', 'A').careerWins).toBe(1);
    expect(rowOf(rows, 'N', 'B').careerWins).toBe(1);
    expect(rowOf(rows, 'DH', 'A').position).toBe(1);
    expect(rowOf(rows, 'DH', 'B').position).toBe(1);
    // trainer: 2 winners, 1 third, 3 runners
    expect(rowOf(rows, 'N', 'C').stableForm).toBe('2-1-3');
    expect(rowOf(rows, 'N', 'C').trainer14DayWinRate).toBe(0.6667);
  });
});

describe('same-day visibility', () => {
  // E is off before D but its result is published after D's off: invisible to D.
  const evs = feedOrder([
    ev.card(card({ r: 'F', off: '2024-03-20T13:00:00Z', runners: [{ h: 'F1', j: 'J', t: 'T', s: 'S' }, { h: 'F2' }] })),
    ev.result(
      result({
        r: 'F',
        pub: '2024-03-20T13:05:00Z',
        runners: [
          { h: 'F1', pos: 1 },
          { h: 'F2', pos: 2, bl: 1 },
        ],
      }),
    ),
    ev.card(card({ r: 'E', off: '2024-03-20T14:30:00Z', runners: [{ h: 'E1', j: 'J', t: 'T', s: 'S' }, { h: 'E2' }] })),
    ev.result(
      result({
        r: 'E',
        pub: '2024-03-20T15:20:00Z',
        runners: [
          { h: 'E2', pos: 1 },
          { h: 'E1', pos: 2, bl: 1 },
        ],
      }),
    ),
    ev.card(card({ r: 'D', off: '2024-03-20T15:00:00Z', runners: [{ h: 'D1', j: 'J', t: 'T', s: 'S' }] })),
    ev.result(result({ r: 'D', pub: '2024-03-20T15:06:00Z', runners: [{ h: 'D1', pos: 1 }] })),
  ]);

  it('a result published after the off is not used, even for a race off earlier', async () => {
    const { rows } = await runEngine(evs);
    const d = rowOf(rows, 'D', 'D1');
    expect(d.jockeyRides90Day).toBe(1);
    expect(d.jockeyWinRate90Day).toBe(1);
    expect(d.stableForm).toBe('1-0-1');
    expect(d.sireProgenyRuns).toBe(1);
    expect(d.sireProgenyWinRate).toBe(1);
    expect(d.computedAtUtc).toBe('2024-03-20T15:06:00.000Z');
    expect(d.status).toBe('final');
  });

  it('the final row does not depend on whether E arrived before or after D', async () => {
    const late = (await runEngine(evs)).rows;
    const early = (
      await runEngine(
        [...evs].sort((a, b) => (a.value.raceId === race('E') ? -1 : 0) - (b.value.raceId === race('E') ? -1 : 0)),
      )
    ).rows;
    expect(early.get(rowKey(race('D'), horse('D1')))).toEqual(late.get(rowKey(race('D'), horse('D1'))));
  });
});

describe('windows', () => {
  it('jockey 90-day and trainer 14-day windows are [off - d, off)', async () => {
    const off = Date.parse('2024-06-01T14:00:00Z');
    const iso = (ms: number) => new Date(ms).toISOString();
    const day = 86_400_000;
    const evs: Ev[] = [];
    const past = [90 * day, 90 * day + 1, 14 * day, 14 * day + 1];
    past.forEach((ago, i) => {
      const r = `W${i}`;
      evs.push(ev.card(card({ r, off: iso(off - ago), runners: [{ h: `W${i}`, j: 'J', t: 'T' }] })));
      evs.push(ev.result(result({ r, pub: iso(off - ago + 60_000), runners: [{ h: `W${i}`, pos: 1 }] })));
    });
    evs.push(ev.card(card({ r: 'NOW', off: iso(off), runners: [{ h: 'N', j: 'J', t: 'T' }] })));
    const { rows } = await runEngine(feedOrder(evs));
    const n = rowOf(rows, 'NOW', 'N');
    // off - 90d exactly is inside; one ms earlier is outside
    expect(n.jockeyRides90Day).toBe(3);
    expect(n.trainerRunners14Day).toBe(1);
    expect(n.stableForm).toBe('1-0-1');
  });
});

describe('sires', () => {
  it('runs count for the sire named on that race card; unknown sire gives 0', async () => {
    const { rows } = await runEngine(
      feedOrder([
        ev.card(
          card({
            r: 'S1',
            off: '2024-01-01T14:00:00Z',
            runners: [
              { h: 'A', s: 'S' },
              { h: 'B', s: 'S' },
              { h: 'C', s: null },
            ],
          }),
        ),
        ev.result(
          result({
            r: 'S1',
            pub: '2024-01-01T14:05:00Z',
            runners: [
              { h: 'A', pos: 2, bl: 1 },
              { h: 'B', pos: 3, bl: 2 },
              { h: 'C', pos: 1 },
            ],
          }),
        ),
        ev.card(
          card({
            r: 'S2',
            off: '2024-01-02T14:00:00Z',
            runners: [
              { h: 'D', s: 'S' },
              { h: 'E', s: null },
            ],
          }),
        ),
      ]),
    );
    expect(rowOf(rows, 'S2', 'D').sireProgenyRuns).toBe(2);
    expect(rowOf(rows, 'S2', 'D').sireProgenyWinRate).toBe(0);
    expect(rowOf(rows, 'S2', 'E').sireProgenyWinRate).toBe(0);
    expect(rowOf(rows, 'S2', 'E').sireProgenyRuns).toBe(0);
    expect(rowOf(rows, 'S2', 'E').sireId).toBeNull();
  });
});

describe('exact halves and ties (found by the independent check on real results)', () => {
  it('rounds figures that are exact halves away from zero despite binary floating point', async () => {
    const { runFigure } = await import('../../domain/features/horse.js');
    // 72.6 - 20.5 * 2.5 - 1.5 = 19.85 exactly; in floating point 19.849999999999998
    expect(
      runFigure({
        position: 5,
        beatenLengths: 20.5,
        weightLbs: 137,
        distanceYards: 1320,
        raceClass: 0,
        ratedOfFinalCard: [72.6],
      }),
    ).toBe(19.9);
  });

  it('improvingVpr is false when the newest figure equals the mean of the others', async () => {
    // three unrated, unclassed races: figure = 60 - lengths * 1.2 + (weight - 140) / 2 at 2750 yards
    const evs: Ev[] = [];
    const runs = [
      { r: 'T1', off: '2022-01-01T14:00:00Z', bl: 6, w: 147 }, // 60 - 7.2 + 3.5 = 56.3
      { r: 'T2', off: '2022-01-08T14:00:00Z', bl: 4.25, w: 140 }, // 60 - 5.1 = 54.9
      { r: 'T3', off: '2022-01-15T14:00:00Z', bl: 5.75, w: 145 }, // 60 - 6.9 + 2.5 = 55.6
    ];
    for (const x of runs) {
      evs.push(
        ev.card(
          card({
            r: x.r,
            off: x.off,
            dist: 2750,
            cls: 0,
            runners: [
              { h: 'W', w: 140 },
              { h: 'H', w: x.w },
            ],
          }),
        ),
      );
      evs.push(
        ev.result(
          result({
            r: x.r,
            pub: x.off.replace(':00:00Z', ':10:00Z'),
            runners: [
              { h: 'W', pos: 1 },
              { h: 'H', pos: 2, bl: x.bl },
            ],
          }),
        ),
      );
    }
    evs.push(ev.card(card({ r: 'T4', off: '2022-01-22T14:00:00Z', runners: [{ h: 'H' }] })));
    const { rows } = await runEngine(feedOrder(evs));
    const t4 = rowOf(rows, 'T4', 'H');
    expect(t4.vprConfidence).toBe(0.5);
    // 55.6 is not greater than (54.9 + 56.3) / 2 = 55.6
    expect(t4.improvingVpr).toBe(false);
  });
});
