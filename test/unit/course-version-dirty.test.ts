/**
 * A new course version is in force for the races off after it was published (EngineState.courseAt), so
 * it recomputes those races only: the races at the course off before it keep their rows and are not
 * recomputed. The rows after it are those of an engine that had the version from the start. In memory,
 * and with every race written to a store and evicted before the version arrives (the replay's case).
 */
import { describe, expect, it } from 'vitest';
import type { AnalyticsRow } from '../../domain/avro-types.generated.js';
import { AnalyticsEngine } from '../../streams/processors/analytics-engine.js';
import { EngineState } from '../../streams/processors/engine-state.js';
import { card, course, race, result } from '../support/builders.js';
import { courseVersion, topologyBlock } from '../support/course-builders.js';
import { memoryStore } from '../support/memory-store.js';

const runners = [{ h: 'A' }, { h: 'B' }, { h: 'C' }];
const finishing = (...horses: string[]) => horses.map((h, i) => ({ h, pos: i + 1 }));
const races = [
  card({ r: 'early', off: '2024-03-01T14:00:00Z', c: 'Ascot', runners }),
  result({
    r: 'early',
    pub: '2024-03-01T14:10:00Z',
    runners: finishing('A', 'B', 'C'),
  }),
  card({ r: 'late', off: '2024-05-01T14:00:00Z', c: 'Ascot', runners }),
  result({
    r: 'late',
    pub: '2024-05-01T14:10:00Z',
    runners: finishing('B', 'A', 'C'),
  }),
  card({ r: 'elsewhere', off: '2024-05-02T14:00:00Z', c: 'York', runners }),
];
const base = courseVersion({ c: 'Ascot', pub: '2024-01-01T00:00:00Z' });
const measured = courseVersion({ c: 'Ascot', pub: '2024-04-01T00:00:00Z', topology: topologyBlock('generated', 17) });

async function applyAll(engine: AnalyticsEngine): Promise<void> {
  for (const e of races) {
    if ('offTime' in e) await engine.applyCard(e);
    else await engine.applyResult(e);
  }
}

function byKey(outputs: { key: string; row: AnalyticsRow | null }[]): Map<string, AnalyticsRow | null> {
  return new Map(outputs.map((o) => [o.key, o.row]));
}

describe('a new course version', () => {
  for (const cold of [false, true]) {
    it(`recomputes only the races at the course off after it was published${cold ? ' (races evicted first)' : ''}`, async () => {
      const state = new EngineState(cold ? memoryStore() : undefined);
      const engine = new AnalyticsEngine(state);
      await engine.applyCourse(base);
      await applyAll(engine);
      const before = byKey(await engine.flush());
      expect(before.size).toBe(9);
      if (cold) {
        await state.store!.batch(state.takeDirty());
        state.now = Number.POSITIVE_INFINITY;
        state.evict();
        expect(state.peekRace(race('early'))).toBeUndefined();
        expect(state.peekRace(race('late'))).toBeUndefined();
      }
      const recomputed = engine.counters.racesRecomputed;
      await engine.applyCourse(measured);
      const after = byKey(await engine.flush());
      // only the race off after the version: its three rows, with the measured climb
      expect(engine.counters.racesRecomputed - recomputed).toBe(1);
      expect([...after.keys()].map((k) => k.slice(0, k.indexOf(':')))).toEqual([
        race('late'),
        race('late'),
        race('late'),
      ]);
      for (const row of after.values()) expect(row!.courseTotalClimbM).toBe(17);
      for (const [k, row] of before) if (k.startsWith(race('early'))) expect(row!.courseTotalClimbM).toBeNull();

      // the rows now are those of an engine that had both versions before any race
      const fresh = new AnalyticsEngine(new EngineState());
      await fresh.applyCourse(base);
      await fresh.applyCourse(measured);
      await applyAll(fresh);
      const expected = byKey(await fresh.flush());
      const current = new Map([...before, ...after]);
      expect([...current.entries()].sort()).toEqual([...expected.entries()].sort());
    });
  }
});

describe("a course version published after a race's card and before its off", () => {
  it("is an input of the race's provisional rows when it changes what they read: their computedAtUtc is its publishedAt", async () => {
    const engine = new AnalyticsEngine(new EngineState());
    await engine.applyCourse(base);
    // carded on 04-30 14:00 (a day before the off); the measured version follows at 18:00
    await engine.applyCard(card({ r: 'next', off: '2024-05-01T14:00:00Z', c: 'Ascot', runners }));
    const carded = byKey(await engine.flush());
    expect([...carded.values()].map((r) => [r!.computedAtUtc, r!.courseTotalClimbM])).toEqual(
      runners.map(() => ['2024-04-30T14:00:00.000Z', null]),
    );
    await engine.applyCourse(
      courseVersion({ c: 'Ascot', pub: '2024-04-30T18:00:00Z', topology: topologyBlock('generated', 17) }),
    );
    const measuredRows = byKey(await engine.flush());
    expect([...measuredRows.values()].map((r) => [r!.computedAtUtc, r!.courseTotalClimbM])).toEqual(
      runners.map(() => ['2024-04-30T18:00:00.000Z', 17]),
    );
    // a version that changes none of what a row reads (its surface history, a sibling): no row changes
    await engine.applyCourse(
      courseVersion({
        c: 'Ascot',
        pub: '2024-04-30T20:00:00Z',
        topology: topologyBlock('generated', 17),
        history: [
          ['1988-01-01', 'turf', 'turf'],
          ['2024-06-01', 'aw', 'Tapeta'],
        ],
        extra: { siblingCourseIds: [course('Ascot-inner')] },
      }),
    );
    expect(await engine.flush()).toEqual([]);
    // then one that changes the direction
    await engine.applyCourse(
      courseVersion({
        c: 'Ascot',
        pub: '2024-04-30T21:00:00Z',
        topology: topologyBlock('generated', 17),
        extra: { direction: 'right' },
      }),
    );
    const turned = byKey(await engine.flush());
    expect([...turned.values()].map((r) => [r!.computedAtUtc, r!.courseDirectionCode])).toEqual(
      runners.map(() => ['2024-04-30T21:00:00.000Z', 2]),
    );
  });
});

describe('course versions arriving out of publication order', () => {
  it("give a pending race's provisional rows the computedAtUtc of publication order", async () => {
    // carded 04-30 14:00, off 05-01 14:00; B (18:00) turns the course right and C (20:00) back left,
    // so the direction a row reads has been C's since 20:00. C arriving before B must not leave the
    // rows at the card's time: B is not in force at the off, but it changes since when the fields are C's.
    const next = card({ r: 'next', off: '2024-05-01T14:00:00Z', c: 'Ascot', runners });
    const turned = courseVersion({ c: 'Ascot', pub: '2024-04-30T18:00:00Z', extra: { direction: 'right' } });
    const back = courseVersion({
      c: 'Ascot',
      pub: '2024-04-30T20:00:00Z',
      history: [
        ['1988-01-01', 'turf', 'turf'],
        ['2024-06-01', 'aw', 'Tapeta'],
      ],
    });
    const latestRows = async (versions: Parameters<AnalyticsEngine['applyCourse']>[0][]) => {
      const engine = new AnalyticsEngine(new EngineState());
      await engine.applyCourse(base);
      await engine.applyCard(next);
      const rows = byKey(await engine.flush());
      for (const v of versions) {
        await engine.applyCourse(v);
        for (const [k, row] of byKey(await engine.flush())) rows.set(k, row);
      }
      return [...rows.values()].map((r) => [r!.computedAtUtc, r!.courseDirectionCode]);
    };
    const inOrder = await latestRows([turned, back]);
    expect(inOrder).toEqual(runners.map(() => ['2024-04-30T20:00:00.000Z', 1]));
    expect(await latestRows([back, turned])).toEqual(inOrder);
  });
});
