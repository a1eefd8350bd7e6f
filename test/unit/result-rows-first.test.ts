/**
 * A result's final rows go out first: the batch holding it recomputes the resulted race and produces its
 * rows before it recomputes the pending races whose horses, jockeys, trainers, sires or course key the
 * result touches (live latency). Only the order changes: the rows produced, and the topic at the end,
 * are those of one flush of everything (the behaviour before), which the reference here reproduces.
 * Embedded log and in-memory stores.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AnalyticsRow } from '../../domain/avro-types.generated.js';
import type { PublishableEvent } from '../../domain/events.js';
import { generateFeed } from '../../domain/generator/index.js';
import { silentLogger } from '../../domain/logger.js';
import type { OutRecord } from '../../streams/log-port.js';
import { AnalyticsEngine, type RowOutput } from '../../streams/processors/analytics-engine.js';
import { AnalyticsProcessor } from '../../streams/processors/analytics-processor.js';
import { EngineState } from '../../streams/processors/engine-state.js';
import { publishEvents } from '../../streams/publisher.js';
import { compactedTopic, embeddedWorld, interceptProduce } from '../support/embedded-world.js';

const logger = silentLogger();
const FEED = { from: '2024-06-01', to: '2024-06-04', seed: 11, scale: 0.4 };
/** results held back from the history and published one at a time */
const HELD = 6;

function feed(): { history: PublishableEvent[]; held: (PublishableEvent & { kind: 'result' })[] } {
  const events = [...generateFeed(FEED)] as PublishableEvent[];
  const results = events.filter((e): e is PublishableEvent & { kind: 'result' } => e.kind === 'result');
  const held = results.slice(-HELD);
  return { history: events.filter((e) => !held.includes(e as never)), held };
}

const raceOf = (key: string) => key.slice(0, key.indexOf(':'));

/**
 * The engine as it was: one flush recomputes every dirty race (a direct-only flush returns nothing and
 * leaves its races dirty for it).
 */
function oneFlushOfEverything(): void {
  const flush = AnalyticsEngine.prototype.flush;
  vi.spyOn(AnalyticsEngine.prototype, 'flush').mockImplementation(function (
    this: AnalyticsEngine,
    owns,
    limit,
    options = {},
  ): Promise<RowOutput[]> {
    if (options.directOnly) return Promise.resolve([]);
    return flush.call(this, owns, limit, { emit: options.emit });
  });
}

/** The history processed, then each held result published and processed on its own; what was produced. */
async function live() {
  const { history, held } = feed();
  const { store, log: inner, topics, codecs } = await embeddedWorld(history);
  let produced: OutRecord[][] = [];
  const log = interceptProduce(inner, (topic, records, produce) => {
    if (topic === topics.analytics) produced.push([...records]);
    return produce(topic, records);
  });
  const processor = await AnalyticsProcessor.open({ log, codecs, store: store.sub('processor/'), logger });
  await processor.run({ untilCaughtUp: true });
  const decode = (r: OutRecord) =>
    r.value ? codecs.serde.decode<AnalyticsRow>(topics.analytics, r.value) : Promise.resolve(null);
  const steps: { raceId: string; produces: { key: string; row: AnalyticsRow | null }[][] }[] = [];
  for (const result of held) {
    produced = [];
    await publishEvents(inner, codecs, [result]);
    await processor.run({ untilCaughtUp: true });
    steps.push({
      raceId: result.value.raceId,
      produces: await Promise.all(
        produced.map((records) => Promise.all(records.map(async (r) => ({ key: r.key, row: await decode(r) })))),
      ),
    });
  }
  const topic = await compactedTopic(inner, topics.analytics);
  return { steps, topic };
}

/** Every row produced, in an order that does not depend on the order of production. */
const allRows = (produces: { key: string; row: AnalyticsRow | null }[][]) =>
  produces.flat().sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a result in a batch: its race first', () => {
  it('the first rows produced are the resulted race final rows; the rows and the topic are as before', async () => {
    oneFlushOfEverything();
    const before = await live();
    vi.restoreAllMocks();
    const now = await live();

    let dependents = 0;
    for (const [i, step] of now.steps.entries()) {
      const first = step.produces[0]!;
      expect(first.length).toBeGreaterThan(0);
      // the first produce holds the resulted race's rows and only them, every one final
      expect(first.every((o) => raceOf(o.key) === step.raceId)).toBe(true);
      expect(first.every((o) => o.row?.status === 'final')).toBe(true);
      // every runner's final row (what the race's rows are once its result is in)
      const rows = first.filter((o) => o.row).map((o) => o.key);
      expect(rows.sort()).toEqual(
        before.steps[i]!.produces.flat()
          .filter((o) => raceOf(o.key) === step.raceId && o.row)
          .map((o) => o.key)
          .sort(),
      );
      // the pending races it touched follow, in a produce of their own
      const later = step.produces.slice(1).flat();
      expect(later.some((o) => raceOf(o.key) === step.raceId)).toBe(false);
      dependents += later.length;
      // the same rows as one flush of everything produced (in one produce)
      expect(before.steps[i]!.produces.length).toBeLessThanOrEqual(1);
      expect(allRows(step.produces)).toEqual(allRows(before.steps[i]!.produces));
    }
    // the held results do touch pending races (else this would show nothing about the order)
    expect(dependents).toBeGreaterThan(0);
    expect(now.topic).toEqual(before.topic);
    expect(now.topic.size).toBeGreaterThan(100);
  });
});

/** Busy for `ms` on this thread (a consumer decoding and applying what it read). */
function busy(ms: number): void {
  const end = performance.now() + ms;
  while (performance.now() < end);
}

describe('a result in a batch: the rest of the process takes its rows before the dependents', () => {
  it('a consumer woken by the direct rows goes through its reads and writes before the pending races are computed', async () => {
    const { history, held } = feed();
    const { store, log: inner, topics, codecs } = await embeddedWorld(history);
    // what a view does on the rows: steps of work, each resuming on a later turn of the event loop (its
    // store reads and writes), started when the direct rows are produced
    const STEPS = 6;
    let done = 0;
    let producesInStep = 0;
    const seen: { steps: number; dependents: number }[] = [];
    const log = interceptProduce(inner, async (topic, records, produce) => {
      await produce(topic, records);
      if (topic !== topics.analytics) return;
      if (producesInStep++ === 0) {
        done = 0;
        void (async () => {
          for (let i = 0; i < STEPS; i++) {
            await new Promise<void>((resolve) => setImmediate(resolve));
            busy(0.5);
            done++;
          }
        })();
      } else seen.push({ steps: done, dependents: records.length });
    });
    // (a bound no busy machine reaches: what is tested is that the batch waits for the chain, not how long)
    const processor = await AnalyticsProcessor.open({
      log,
      codecs,
      store: store.sub('processor/'),
      logger,
      settleMaxMs: 10_000,
    });
    await processor.run({ untilCaughtUp: true });
    for (const result of held) {
      producesInStep = 0;
      await publishEvents(inner, codecs, [result]);
      await processor.run({ untilCaughtUp: true });
      // let the chain end before the next step starts another
      await new Promise<void>((resolve) => setTimeout(resolve, 20));
    }
    // the held results do have dependents (a second produce), else this shows nothing
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((s) => s.dependents > 0)).toBe(true);
    // by the time the dependents' rows are produced, the consumer went through every step
    expect(seen.map((s) => s.steps)).toEqual(seen.map(() => STEPS));
  });
});

describe('AnalyticsEngine.flush directOnly', () => {
  it('recomputes only the races whose own input was applied; the others stay dirty, with identical rows', async () => {
    const { history, held } = feed();
    const engines = [new AnalyticsEngine(new EngineState()), new AnalyticsEngine(new EngineState())];
    for (const engine of engines) {
      for (const e of history) {
        if (e.kind === 'card') await engine.applyCard(e.value);
        else if (e.kind === 'result') await engine.applyResult(e.value);
        else await engine.applyCourse(e.value);
      }
      await engine.flush();
    }
    const [whole, split] = engines as [AnalyticsEngine, AnalyticsEngine];
    const sorted = (out: RowOutput[]) => [...out].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    let dependents = 0;
    for (const result of held) {
      await whole.applyResult(result.value);
      await split.applyResult(result.value);
      const expected = await whole.flush();

      const direct = await split.flush(undefined, undefined, { directOnly: true });
      expect(direct.length).toBeGreaterThan(0);
      expect(direct.every((o) => raceOf(o.key) === result.value.raceId && o.row?.status === 'final')).toBe(true);
      const others = expected.filter((o) => raceOf(o.key) !== result.value.raceId);
      if (others.length > 0) expect(split.hasDirty()).toBe(true);
      // nothing direct is left: a second direct-only flush recomputes nothing
      const recomputed = split.counters.racesRecomputed;
      expect(await split.flush(undefined, undefined, { directOnly: true })).toEqual([]);
      expect(split.counters.racesRecomputed).toBe(recomputed);

      const rest = await split.flush();
      expect(split.hasDirty()).toBe(false);
      dependents += rest.length;
      expect(sorted([...direct, ...rest])).toEqual(sorted(expected));
    }
    expect(dependents).toBeGreaterThan(0);
    expect(split.counters.racesRecomputed).toBe(whole.counters.racesRecomputed);
  });

  it('leaves a direct race it does not own dirty, and with a limit the rest for the next call', async () => {
    const { history } = feed();
    const engine = new AnalyticsEngine(new EngineState());
    const cards = history.filter((e): e is PublishableEvent & { kind: 'card' } => e.kind === 'card').slice(0, 5);
    for (const e of cards) await engine.applyCard(e.value);
    const ids = [...new Set(cards.map((e) => e.value.raceId))].sort();
    expect(ids.length).toBeGreaterThan(2);
    const notOwned = ids[0]!;
    const owns = (id: string) => id !== notOwned;

    const first = await engine.flush(owns, 1, { directOnly: true });
    expect(new Set(first.map((o) => raceOf(o.key)))).toEqual(new Set([ids[1]]));
    const next = await engine.flush(owns, undefined, { directOnly: true });
    expect(new Set(next.map((o) => raceOf(o.key)))).toEqual(new Set(ids.slice(2)));
    expect(engine.hasDirty(owns)).toBe(false);
    expect(engine.hasDirty()).toBe(true); // the race it does not own, left for the full flush to drop
    expect(await engine.flush(owns)).toEqual([]);
    expect(engine.hasDirty()).toBe(false);
    expect(await engine.flush(undefined, undefined, { directOnly: true })).toEqual([]);
  });
});
