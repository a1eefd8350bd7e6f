import { describe, expect, it } from 'vitest';
import type { RaceResult } from '../../domain/avro-types.generated.js';
import type { PublishableEvent } from '../../domain/events.js';
import { generateFeed } from '../../domain/generator/index.js';
import { AnalyticsEngine, type RowOutput } from '../../streams/processors/analytics-engine.js';
import { type Linker, raceLinks, sameLinks } from '../../streams/processors/engine-links.js';
import type { EngineResidency } from '../../streams/processors/engine-residency.js';
import type { RaceLinks, RaceState } from '../../streams/processors/engine-state.js';
import { EngineState } from '../../streams/processors/engine-state.js';
import { memoryStore } from '../support/memory-store.js';

/**
 * A batch's races are linked together (AnalyticsEngine's reconcile readies and unlinks every changed race,
 * then Linker.linkMany links them all: each race's horses race by race, its events in the entity indexes
 * one index at a time). The state and every row must be what the reconcile before it left, each race
 * readied, unlinked and linked in turn: the engines below take the same feed in the same batches, one
 * each way, flush as the processor does, and write their state after each batch; in memory, and with the
 * state stored, evicted and rolled up after each batch. The feed carries corrected results (superseded
 * versions) and results that leave a declared runner out.
 */

type Out = [key: string, value: string | null, timestamp: number];

const out = (o: RowOutput): Out => [o.key, o.value ? Buffer.from(o.value).toString('base64') : null, o.timestamp];

const DAY = 86_400_000;

/** The generator's feed with corrections: every 9th result has its first two reversed a day and a half later, every 23rd its last starter left out. */
function feedWithCorrections(): PublishableEvent[] {
  const feed = [...generateFeed({ from: '2024-03-01', to: '2024-04-10' })];
  const corrections: PublishableEvent[] = [];
  let n = 0;
  for (const e of feed) {
    if (e.kind !== 'result' || e.value.runners.length < 3) continue;
    n++;
    const v: RaceResult = e.value;
    const publishedAt = v.publishedAt + 1.5 * DAY;
    if (n % 9 === 0) {
      const [a, b, ...rest] = v.runners;
      const runners = [{ ...b!, position: a!.position }, { ...a!, position: b!.position }, ...rest];
      corrections.push({ kind: 'result', value: { ...v, publishedAt, runners }, publishedAt });
    } else if (n % 23 === 0) {
      corrections.push({ kind: 'result', value: { ...v, publishedAt, runners: v.runners.slice(0, -1) }, publishedAt });
    }
  }
  return [...feed, ...corrections].sort((x, y) => x.publishedAt - y.publishedAt);
}

type Engine = {
  reconcile(races: Iterable<RaceState>): Promise<void>;
  residency: EngineResidency;
  linker: Linker;
  dirtyRaces: Set<string>;
  directRaces: Set<string>;
  counters: { resultRunnersNotOnCard: number };
};

/**
 * The engine's reconcile before races were linked together: each race readied, unlinked and linked in
 * turn, before the next race is readied.
 */
function raceByRace(engine: AnalyticsEngine): void {
  const e = engine as unknown as Engine;
  e.reconcile = async (races) => {
    for (const race of races) {
      e.dirtyRaces.add(race.raceId);
      e.directRaces.add(race.raceId);
      engine.state.touchRace(race);
      const next = raceLinks(race, () => e.counters.resultRunnersNotOnCard++);
      const prev = race.links;
      if (sameLinks(prev, next)) continue;
      if (prev) await e.residency.ready(prev);
      if (next) await e.residency.ready(next);
      if (prev) e.linker.unlink(race.raceId, prev);
      if (next) e.linker.link(race.raceId, next);
      race.links = next;
    }
  };
}

async function replay(
  feed: readonly PublishableEvent[],
  together: boolean,
  stored: boolean,
): Promise<{ outs: Out[][]; state: Map<string, string>; largest: number; earlier: number; rollUps: number }> {
  // stored: every record written to a store and everything evicted after each batch, each index's months
  // rolled up into its head at every write (what the processor does with cold state, at its most)
  const state = stored ? new EngineState(memoryStore(), -1) : new EngineState();
  const engine = new AnalyticsEngine(state);
  if (!together) raceByRace(engine);
  const linker = (engine as unknown as Engine).linker;
  const linkMany = linker.linkMany.bind(linker);
  let largest = 0;
  let earlier = 0;
  linker.linkMany = (races: readonly (readonly [string, RaceLinks])[]) => {
    largest = Math.max(largest, races.length);
    for (const [, l] of races) if (l.kind === 'ran' && l.earlier.length > 0) earlier++;
    linkMany(races);
  };
  const outs: Out[][] = [];
  const flush = async (directOnly: boolean): Promise<Out[]> =>
    (await engine.flush(undefined, Number.POSITIVE_INFINITY, { directOnly })).map(out);
  const records = new Map<string, string>();
  const write = async (): Promise<void> => {
    const ops = state.takeDirty();
    for (const op of ops) records.set(op.key, op.type === 'put' ? Buffer.from(op.value).toString('base64') : '');
    if (!stored) return;
    await state.store!.batch(ops);
    const now = state.now;
    state.now = Number.POSITIVE_INFINITY;
    state.evict();
    state.now = now;
  };
  for (let i = 0; i < feed.length; i += 1_500) {
    await engine.applyEvents(feed.slice(i, i + 1_500));
    outs.push(await flush(true));
    outs.push(await flush(false));
    await write();
  }
  return { outs, state: records, largest, earlier, rollUps: state.rollUps };
}

describe('races linked together', () => {
  const feed = feedWithCorrections();
  for (const stored of [false, true]) {
    it(`leave the state and the rows linking them race by race leaves, corrections included${stored ? ', with the state stored, evicted and rolled up after every batch' : ''}`, async () => {
      const one = await replay(feed, false, stored);
      const together = await replay(feed, true, stored);
      // batches of 1,500 events link hundreds of races at once, some with superseded versions
      expect(together.largest).toBeGreaterThan(300);
      expect(one.largest).toBe(1);
      expect(together.earlier).toBeGreaterThan(20);
      if (stored) expect(together.rollUps).toBeGreaterThan(50);
      expect(one.outs.flat().filter(([, v]) => v !== null).length).toBeGreaterThan(10_000);
      for (let b = 0; b < one.outs.length; b++) expect(together.outs[b], `flush ${b}`).toEqual(one.outs[b]);
      // every record each batch's write put (the last value of each key)
      expect(together.state.size).toBeGreaterThan(1_000);
      expect([...together.state.keys()].sort()).toEqual([...one.state.keys()].sort());
      for (const [key, value] of one.state) expect(together.state.get(key), key).toBe(value);
    });
  }
});
