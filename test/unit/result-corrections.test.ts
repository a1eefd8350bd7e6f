/**
 * A corrected result (features.md: only results published before a race's off may be used). Q is off
 * 05-01 12:00; its first version (05-01 12:10) has X 1st and Y 2nd; a correction published 05-04 09:00
 * reverses them (or, in the second world, leaves X out). R is off 05-03 14:00, between the two: its rows
 * see the first version. S is off 05-06 14:00, after the correction: its rows see the correction.
 *
 * Hand-computed, for X (ridden by JX in every race):
 *   R: careerRuns 1, careerWins 1; jockey JX 1 ride, 1 win in 90 days (win rate 1).
 *   S (after Q and R, where X was 2nd): reversed: careerRuns 2, careerWins 0, JX 2 rides, win rate 0;
 *      left out: careerRuns 1 (R), careerWins 0, JX 1 ride (R), win rate 0.
 * The same in every arrival order of the three results, in memory and with the state evicted after
 * every event.
 */
import { describe, expect, it } from 'vitest';
import type { AnalyticsRow } from '../../domain/avro-types.generated.js';
import { rowKey } from '../../streams/processors/engine-links.js';
import { EngineState } from '../../streams/processors/engine-state.js';
import { card, horse, jockey, race, result } from '../support/builders.js';
import { type Ev, ev, runEngine } from '../support/engine-harness.js';
import { memoryStore } from '../support/memory-store.js';

const Q = card({
  r: 'Q',
  off: '2024-05-01T12:00:00Z',
  runners: [
    { h: 'X', j: 'JX' },
    { h: 'Y', j: 'JY' },
  ],
});
const Qv1 = result({
  r: 'Q',
  pub: '2024-05-01T12:10:00Z',
  runners: [
    { h: 'X', pos: 1 },
    { h: 'Y', pos: 2, bl: 1 },
  ],
});
const reversed = result({
  r: 'Q',
  pub: '2024-05-04T09:00:00Z',
  runners: [
    { h: 'Y', pos: 1 },
    { h: 'X', pos: 2, bl: 1 },
  ],
});
const leftOut = result({ r: 'Q', pub: '2024-05-04T09:00:00Z', runners: [{ h: 'Y', pos: 1 }] });
const R = card({ r: 'R', off: '2024-05-03T14:00:00Z', c: 'C2', runners: [{ h: 'X', j: 'JX' }, { h: 'Z' }] });
const Rres = result({
  r: 'R',
  pub: '2024-05-03T14:10:00Z',
  runners: [
    { h: 'Z', pos: 1 },
    { h: 'X', pos: 2, bl: 3 },
  ],
});
const S = card({
  r: 'S',
  off: '2024-05-06T14:00:00Z',
  pub: '2024-05-03T15:00:00Z',
  c: 'C3',
  runners: [{ h: 'X', j: 'JX' }, { h: 'W' }],
});

const fieldsOf = (rows: Map<string, AnalyticsRow>, r: string) => {
  const row = rows.get(rowKey(race(r), horse('X')))!;
  return {
    status: row.status,
    careerRuns: row.careerRuns,
    careerWins: row.careerWins,
    rides: row.jockeyRides90Day,
    winRate: row.jockeyWinRate90Day,
  };
};

/** Every order of the three results (the cards first, in feed order). */
function orders(correction: Ev): Ev[][] {
  const results = [ev.result(Qv1), ev.result(Rres), correction];
  const perms: Ev[][] = [];
  const permute = (rest: Ev[], acc: Ev[]) => {
    if (rest.length === 0) perms.push(acc);
    rest.forEach((e, i) => permute([...rest.slice(0, i), ...rest.slice(i + 1)], [...acc, e]));
  };
  permute(results, []);
  return perms.map((p) => [ev.card(Q), ev.card(R), ev.card(S), ...p]);
}

describe('a result corrected after the off of a later race', () => {
  it.each([
    ['reverses the first two', ev.result(reversed), { careerRuns: 2, careerWins: 0, rides: 2, winRate: 0 }],
    ['leaves a runner out', ev.result(leftOut), { careerRuns: 1, careerWins: 0, rides: 1, winRate: 0 }],
  ] as const)('that %s: the race off between the versions keeps the first', async (_what, correction, atS) => {
    for (const events of orders(correction)) {
      for (const evicted of [false, true]) {
        const { rows } = evicted
          ? await runEngine(events, 1, new EngineState(memoryStore()), true)
          : await runEngine(events);
        expect(fieldsOf(rows, 'R')).toEqual({ status: 'final', careerRuns: 1, careerWins: 1, rides: 1, winRate: 1 });
        expect(fieldsOf(rows, 'S')).toEqual({ status: 'provisional', ...atS });
        // S was carded before the correction: the correction is an input of its rows
        expect(rows.get(rowKey(race('S'), horse('X')))!.computedAtUtc).toBe('2024-05-04T09:00:00.000Z');
      }
    }
  });

  it('a first version without a starter still counts as a race for the course snapshot key until corrected', async () => {
    // Q's first version names only a horse not on its card; R (same course key, off between the
    // versions) counts Q in its snapshot with or without the correction published after R's off
    const Qc = card({
      r: 'Q',
      off: '2024-04-20T12:00:00Z',
      runners: [
        { h: 'X', draw: 1 },
        { h: 'Y', draw: 2 },
      ],
    });
    const first = result({ r: 'Q', pub: '2024-04-20T12:10:00Z', runners: [{ h: 'N', pos: 1 }] });
    const fixed = result({
      r: 'Q',
      pub: '2024-05-12T09:00:00Z',
      runners: [
        { h: 'X', pos: 1 },
        { h: 'Y', pos: 2, bl: 1 },
      ],
    });
    const Rc = card({ r: 'R', off: '2024-05-10T14:00:00Z', runners: [{ h: 'Z', draw: 1 }] });
    const snapshotOf = (rows: Map<string, AnalyticsRow>) => {
      const row = rows.get(rowKey(race('R'), horse('Z')))!;
      return { races: row.snapshotRaces, period: row.snapshotPeriod };
    };
    const without = (await runEngine([ev.card(Qc), ev.card(Rc), ev.result(first)])).rows;
    expect(snapshotOf(without)).toEqual({ races: 1, period: '2024-04' });
    for (const events of [
      [ev.card(Qc), ev.card(Rc), ev.result(first), ev.result(fixed)],
      [ev.card(Qc), ev.card(Rc), ev.result(fixed), ev.result(first)],
    ]) {
      for (const rows of [
        (await runEngine(events)).rows,
        (await runEngine(events, 1, new EngineState(memoryStore()), true)).rows,
      ]) {
        expect(snapshotOf(rows)).toEqual({ races: 1, period: '2024-04' });
      }
    }
  });

  it('a version republished unchanged continues the one before it: one interval, from the first', async () => {
    const again = { ...Qv1, publishedAt: Date.parse('2024-05-02T08:00:00Z') };
    // republished, then corrected: one superseded interval per key, from the first publication
    const { engine, rows } = await runEngine([
      ev.card(Q),
      ev.card(R),
      ev.result(Qv1),
      ev.result(again),
      ev.result(reversed),
    ]);
    const runsOfQ = engine.state.peekHorse(horse('X'))!.runs.filter((r) => r.raceId === race('Q'));
    expect(runsOfQ.map((r) => [r.visibleAt, r.supersededAt])).toEqual([
      [Qv1.publishedAt, reversed.publishedAt],
      [reversed.publishedAt, null],
    ]);
    expect(engine.state.peekIndex('jockey', jockey('JX'))!.superseded.map((e) => [e.visibleAt, e.until])).toEqual([
      [Qv1.publishedAt, reversed.publishedAt],
    ]);
    expect(fieldsOf(rows, 'R')).toMatchObject({ careerRuns: 1, careerWins: 1 });
    // republished only: no superseded interval, and the run is visible from the first publication
    const only = (await runEngine([ev.card(Q), ev.result(again), ev.result(Qv1)])).engine;
    expect(only.state.peekHorse(horse('X'))!.runs.map((r) => [r.visibleAt, r.supersededAt])).toEqual([
      [Qv1.publishedAt, null],
    ]);
    expect(only.state.peekIndex('jockey', jockey('JX'))!.superseded).toEqual([]);
  });

  it('two different versions published at the same instant: the same rows whichever arrives first', async () => {
    // the result schema has no version number: two versions with one publishedAt are ordered by content
    // (as course versions are), so the one in force does not depend on arrival order
    const sameInstant = { ...reversed, publishedAt: Qv1.publishedAt };
    const outcomes: unknown[] = [];
    for (const first of [Qv1, sameInstant]) {
      const second = first === Qv1 ? sameInstant : Qv1;
      for (const evicted of [false, true]) {
        const events = [ev.card(Q), ev.card(R), ev.card(S), ev.result(first), ev.result(second), ev.result(Rres)];
        const { engine, rows } = evicted
          ? await runEngine(events, 1, new EngineState(memoryStore()), true)
          : await runEngine(events);
        expect(engine.counters.duplicates).toBe(0);
        outcomes.push([...rows.entries()].sort());
      }
    }
    for (const o of outcomes.slice(1)) expect(o).toEqual(outcomes[0]);
  });

  it('an older version arriving after the correction is kept, not dropped as a duplicate; a repeat is a duplicate', async () => {
    const { engine } = await runEngine([
      ev.card(Q),
      ev.result(reversed),
      ev.result(Qv1),
      ev.result(Qv1),
      ev.result(reversed),
    ]);
    expect(engine.counters.duplicates).toBe(2);
    // the same after the race was written to the store and evicted (a version read back from the state
    // compares equal to the one arriving again)
    const cold = await runEngine(
      [ev.card(Q), ev.result(reversed), ev.result(Qv1), ev.result(Qv1), ev.result(reversed)],
      1,
      new EngineState(memoryStore()),
      true,
    );
    expect(cold.engine.counters.duplicates).toBe(2);
    const q = engine.state.peekRace(race('Q'))!;
    expect(q.result!.publishedAt).toBe(reversed.publishedAt);
    expect(q.earlierResults.map((r) => r.publishedAt)).toEqual([Qv1.publishedAt]);
  });
});
