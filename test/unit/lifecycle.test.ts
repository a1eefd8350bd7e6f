import { describe, expect, it } from 'vitest';
import { AnalyticsEngine, rowKey, type RowOutput } from '../../streams/processors/analytics-engine.js';
import { EngineState } from '../../streams/processors/engine-state.js';
import { card, horse, race, result } from '../support/builders.js';

describe('row lifecycle', () => {
  const declared = card({
    r: 'L',
    off: '2024-07-01T14:00:00Z',
    pub: '2024-06-30T10:00:00Z',
    runners: [{ h: 'A', j: 'J' }, { h: 'B' }, { h: 'C' }],
  });
  const update = {
    ...card({
      r: 'L',
      off: '2024-07-01T14:00:00Z',
      pub: '2024-07-01T09:00:00Z',
      v: 2,
      going: 'Soft',
      runners: [{ h: 'A', j: 'J' }, { h: 'B', nr: true }, { h: 'C' }],
    }),
  };
  const res = result({
    r: 'L',
    pub: '2024-07-01T14:06:00Z',
    runners: [
      { h: 'C', pos: 1 },
      { h: 'A', pos: 2, bl: 1.5 },
    ],
  });

  it('with an emit sink, flush hands over the same outputs in the same order, race by race, and returns none', async () => {
    const collected = new AnalyticsEngine(new EngineState());
    const sunk = new AnalyticsEngine(new EngineState());
    const other = card({ r: 'M', off: '2024-07-01T15:00:00Z', pub: '2024-06-30T11:00:00Z', runners: [{ h: 'A' }] });
    for (const step of [[declared, other], [update], [res]] as const) {
      for (const e of step) {
        for (const engine of [collected, sunk]) {
          if ('runners' in e && 'offTime' in e) await engine.applyCard(e);
          else await engine.applyResult(e);
        }
      }
      const want = await collected.flush();
      const got: RowOutput[] = [];
      const racesDone: number[] = [];
      const returned = await sunk.flush(undefined, undefined, {
        emit: (o) => got.push(o),
        // each race's outputs are handed over before the next race is computed
        between: () => void racesDone.push(got.length),
      });
      expect(returned).toEqual([]);
      expect(want.length).toBeGreaterThan(0);
      expect(got).toEqual(want);
      expect(racesDone.at(-1)).toBe(got.length);
      if (step.length === 2) expect(racesDone[0]).toBeGreaterThan(0);
    }
  });

  it('provisional rows on the card, a tombstone for a non-runner, final rows with positions on the result', async () => {
    const engine = new AnalyticsEngine(new EngineState());
    await engine.applyCard(declared);
    const first = await engine.flush();
    expect(first.map((o) => o.key).sort()).toEqual(
      [rowKey(race('L'), horse('A')), rowKey(race('L'), horse('B')), rowKey(race('L'), horse('C'))].sort(),
    );
    expect(first.every((o) => o.row?.status === 'provisional' && o.row.position === 0)).toBe(true);
    expect(first[0]!.row!.computedAtUtc).toBe('2024-06-30T10:00:00.000Z');

    await engine.applyCard(update);
    const second = await engine.flush();
    const tomb = second.find((o) => o.key === rowKey(race('L'), horse('B')));
    expect(tomb?.row).toBeNull();
    const a2 = second.find((o) => o.key === rowKey(race('L'), horse('A')))!;
    expect(a2.row!.computedAtUtc).toBe('2024-07-01T09:00:00.000Z');
    expect(a2.row!.fieldSize).toBe(2);
    expect(a2.row!.goingCode).toBeGreaterThan(0);

    await engine.applyResult(res);
    const third = await engine.flush();
    const byKey = new Map(third.map((o: RowOutput) => [o.key, o.row]));
    expect(byKey.get(rowKey(race('L'), horse('C')))).toMatchObject({
      status: 'final',
      position: 1,
      computedAtUtc: '2024-07-01T14:06:00.000Z',
    });
    expect(byKey.get(rowKey(race('L'), horse('A')))).toMatchObject({ status: 'final', position: 2 });
    expect(byKey.has(rowKey(race('L'), horse('B')))).toBe(false);

    // a duplicate delivery changes nothing and emits nothing
    await engine.applyResult(res);
    await engine.applyCard(update);
    expect(await engine.flush()).toEqual([]);
    expect(engine.counters.duplicates).toBe(2);
  });

  it('a result arriving before any card is held until the card arrives', async () => {
    const engine = new AnalyticsEngine(new EngineState());
    await engine.applyResult(res);
    expect(await engine.flush()).toEqual([]);
    await engine.applyCard(update);
    await engine.applyCard(declared);
    const out = await engine.flush();
    expect(out.filter((o) => o.row).map((o) => o.row!.status)).toEqual(['final', 'final']);
  });

  it('a result published before a pending race recomputes its provisional rows', async () => {
    const engine = new AnalyticsEngine(new EngineState());
    await engine.applyCard(card({ r: 'P1', off: '2024-07-02T13:00:00Z', runners: [{ h: 'X', j: 'J' }] }));
    await engine.applyCard(card({ r: 'P2', off: '2024-07-02T15:00:00Z', runners: [{ h: 'Y', j: 'J' }] }));
    await engine.flush();
    await engine.applyResult(result({ r: 'P1', pub: '2024-07-02T13:05:00Z', runners: [{ h: 'X', pos: 1 }] }));
    const out = await engine.flush();
    const p2 = out.find((o) => o.key === rowKey(race('P2'), horse('Y')))!;
    expect(p2.row).toMatchObject({
      status: 'provisional',
      jockeyRides90Day: 1,
      jockeyWinRate90Day: 1,
      computedAtUtc: '2024-07-02T13:05:00.000Z',
    });
  });

  it('late data: a result that should have been visible recomputes exactly the final rows that missed it', async () => {
    const engine = new AnalyticsEngine(new EngineState());
    await engine.applyCard(card({ r: 'Q1', off: '2024-07-03T13:00:00Z', runners: [{ h: 'X', j: 'J' }] }));
    await engine.applyCard(card({ r: 'Q2', off: '2024-07-03T15:00:00Z', runners: [{ h: 'Y', j: 'J' }] }));
    await engine.applyResult(result({ r: 'Q2', pub: '2024-07-03T15:05:00Z', runners: [{ h: 'Y', pos: 1 }] }));
    const before = (await engine.flush()).find((o) => o.key === rowKey(race('Q2'), horse('Y')))!;
    expect(before.row!.jockeyRides90Day).toBe(0);
    await engine.applyResult(result({ r: 'Q1', pub: '2024-07-03T13:05:00Z', runners: [{ h: 'X', pos: 2 }] }));
    const after = await engine.flush();
    const q2 = after.find((o) => o.key === rowKey(race('Q2'), horse('Y')))!;
    expect(q2.row).toMatchObject({
      status: 'final',
      jockeyRides90Day: 1,
      jockeyWinRate90Day: 0,
      computedAtUtc: '2024-07-03T15:05:00.000Z',
    });
  });
});

describe('draw bias snapshots', () => {
  it('uses races visible at the start of the month; 0 without a draw', async () => {
    const engine = new AnalyticsEngine(new EngineState());
    // two March races at C1 flat/middle/turf, 6 drawn runners: low third wins one, high third the other... then a low again
    const field = (p: string) => [1, 2, 3, 4, 5, 6].map((d) => ({ h: `${p}${d}`, draw: d }));
    const winners = [
      ['M1', 1],
      ['M2', 6],
      ['M3', 2],
    ] as const;
    for (const [i, [r, d]] of winners.entries()) {
      await engine.applyCard(card({ r, off: `2024-03-1${i}T14:00:00Z`, runners: field(r) }));
      await engine.applyResult(
        result({
          r,
          pub: `2024-03-1${i}T14:05:00Z`,
          runners: field(r).map((x, k) => ({ h: x.h, pos: x.draw === d ? 1 : k + 2 })),
        }),
      );
    }
    // a race in late March: its snapshot is February's end (no races) -> 0
    await engine.applyCard(card({ r: 'MAR', off: '2024-03-30T14:00:00Z', runners: [{ h: 'Z1', draw: 3 }] }));
    // April: snapshot covers March: low 2/3, high 1/3 -> strength 0.3333
    await engine.applyCard(
      card({
        r: 'APR',
        off: '2024-04-02T14:00:00Z',
        runners: [
          { h: 'Z2', draw: 3 },
          { h: 'Z3', draw: 0 },
        ],
      }),
    );
    const out = new Map((await engine.flush()).map((o) => [o.key, o.row]));
    expect(out.get(rowKey(race('MAR'), horse('Z1')))!.drawBiasStrength).toBe(0);
    expect(out.get(rowKey(race('APR'), horse('Z2')))).toMatchObject({ drawBiasStrength: 0.3333, drawBiasRaces: 3 });
    expect(out.get(rowKey(race('APR'), horse('Z3')))!.drawBiasStrength).toBe(0);
  });
});

describe('checkpoint and restore', () => {
  it('an engine restored from a checkpoint mid-stream ends with the same rows as one that never stopped', async () => {
    const { memoryStore } = await import('../support/memory-store.js');
    const { feedOrder, ev } = await import('../support/engine-harness.js');
    const evs = feedOrder([
      ev.card(
        card({
          r: 'K1',
          off: '2024-08-01T13:00:00Z',
          runners: [
            { h: 'A', j: 'J', t: 'T', s: 'S', draw: 1 },
            { h: 'B', j: 'K', draw: 2 },
          ],
        }),
      ),
      ev.result(
        result({
          r: 'K1',
          pub: '2024-08-01T13:05:00Z',
          runners: [
            { h: 'A', pos: 1 },
            { h: 'B', pos: 2, bl: 1 },
          ],
        }),
      ),
      ev.card(
        card({
          r: 'K2',
          off: '2024-08-03T13:00:00Z',
          runners: [
            { h: 'A', j: 'K', t: 'T', s: 'S' },
            { h: 'C', j: 'J' },
          ],
        }),
      ),
      ev.card(
        card({
          r: 'K3',
          off: '2024-08-02T13:00:00Z',
          runners: [
            { h: 'B', j: 'J', t: 'T' },
            { h: 'D', s: 'S' },
          ],
        }),
      ),
      ev.result(
        result({
          r: 'K3',
          pub: '2024-08-02T13:05:00Z',
          runners: [
            { h: 'D', pos: 1 },
            { h: 'B', pos: 2, bl: 3 },
          ],
        }),
      ),
      ev.result(
        result({
          r: 'K2',
          pub: '2024-08-03T13:05:00Z',
          runners: [
            { h: 'C', pos: 1 },
            { h: 'A', pos: 0 },
          ],
        }),
      ),
    ]);
    const apply = (e: AnalyticsEngine, x: (typeof evs)[number]) =>
      x.kind === 'card' ? e.applyCard(x.value) : e.applyResult(x.value);
    const applyAll = async (e: AnalyticsEngine, xs: typeof evs) => {
      await e.prefetch(xs);
      for (const x of xs) await apply(e, x);
    };
    const collect = (m: Map<string, unknown>, outs: RowOutput[]) => {
      for (const o of outs) {
        if (o.row) m.set(o.key, o.row);
        else m.delete(o.key);
      }
    };
    const straight = new Map<string, unknown>();
    const one = new AnalyticsEngine(new EngineState());
    await applyAll(one, evs);
    collect(straight, await one.flush());
    expect(straight.size).toBe(6);

    for (let cut = 1; cut < evs.length; cut++) {
      // restored from the checkpoint by a new engine
      const rows = new Map<string, unknown>();
      const store = memoryStore();
      const first = new AnalyticsEngine(new EngineState(store));
      await applyAll(first, evs.slice(0, cut));
      collect(rows, await first.flush());
      await store.batch(first.state.takeDirty());
      const second = new AnalyticsEngine(await EngineState.open(store));
      await applyAll(second, evs.slice(cut));
      collect(rows, await second.flush());
      expect(rows).toEqual(straight);

      // the same engine after evicting everything it holds (reloaded from the store on demand)
      const rows2 = new Map<string, unknown>();
      const store2 = memoryStore();
      const third = new AnalyticsEngine(new EngineState(store2));
      await applyAll(third, evs.slice(0, cut));
      collect(rows2, await third.flush());
      await store2.batch(third.state.takeDirty());
      third.state.now = Number.POSITIVE_INFINITY;
      third.state.evict();
      expect(third.state.stats()['horses']).toBe(0);
      for (const x of evs.slice(cut)) await apply(third, x);
      collect(rows2, await third.flush());
      expect(rows2).toEqual(straight);
    }
  });
});
