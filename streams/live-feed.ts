/**
 * The live feed: publishes a deterministic feed (the demo's generated racing) to the input topics in
 * wall-clock time. Every event whose publishedAt has come is published, in feed order; then a timer
 * waits for the next one (no polling). The feed is an unbounded lazy iterable, so the calendar turning
 * needs nothing special: the next day's cards are simply the next events.
 *
 * Exactly once across restarts: the state (in the data dir's store) holds the feed's parameters, a
 * watermark (every event published at or before it has been published) and the input topics' end
 * offsets right after that. On open, the records appended after those offsets are read back: a crash
 * between producing a batch and writing the watermark left them there, and events found among them
 * (same topic, key, timestamp and bytes) are not produced again. The state also keeps a digest of the
 * last event published, which a restart checks against the regenerated feed, so a data dir whose feed
 * came from a different generator (another version of the code) is refused rather than continued with
 * events of another population.
 *
 * Nothing here knows the generator: the feed, the clock and the ports are given.
 */
import { createHash } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { RacingError } from '../domain/errors.js';
import type { PublishableEvent } from '../domain/events.js';
import type { Logger } from '../domain/logger.js';
import type { StorePort } from '../state/store-port.js';
import type { Codecs } from './codecs.js';
import type { LogPort } from './log-port.js';
import { publishEvents } from './publisher.js';

/** Wall-clock time and waiting, injectable so tests advance time instead of waiting for it. */
export interface Clock {
  now(): number;
  /** Resolves after `ms` milliseconds, or at once when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** setTimeout takes at most 2^31 - 1 ms; longer waits are taken in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, Math.min(ms, MAX_TIMER_MS)));
      signal.addEventListener('abort', done, { once: true });
    }),
};

/** What identifies the feed: the generator's options. */
export interface FeedParams {
  from: string;
  seed: number;
  scale: number;
}

export interface LiveFeedState {
  format: 1;
  params: FeedParams;
  /** every event with publishedAt at or before this (epoch ms) is published; null before the first */
  watermark: number | null;
  /** end offsets of the input topics right after the watermark was reached, by topic */
  ends: Record<string, number[]>;
  /** the last event published: topic, key, timestamp and SHA-256 of its value bytes */
  last: { topic: string; key: string; timestamp: number; sha256: string } | null;
  /** events published by this feed so far */
  published: number;
}

export interface LiveFeedDeps {
  log: LogPort;
  codecs: Codecs;
  /** where the state is kept (a sub-store of the data dir's store) */
  store: StorePort;
  logger: Logger;
  clock: Clock;
  /** the feed for its parameters, in feed order, as long as needed */
  feed: (params: FeedParams) => Iterable<PublishableEvent>;
}

export interface CatchUpProgress {
  /** publishedAt of the last event published */
  last: number;
  published: number;
}

const STATE_KEY = 'state';
/** Records per produce call during a catch-up; a batch ends only between two instants. */
const CHUNK = 5_000;
/** The longest the generator runs before letting the event loop serve requests, in ms. */
const SLICE_MS = 20;

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const recordId = (topic: string, key: string, timestamp: number) => `${topic}\u0000${key}\u0000${timestamp}`;

export class LiveFeed {
  private iterator: Iterator<PublishableEvent> | undefined;
  /** the next event not yet published (peeked), or null when the feed ended */
  private next: PublishableEvent | null | undefined;
  /** records found after the stored end offsets: id -> value bytes (a crash's batch, published again never) */
  private already = new Map<string, Buffer[]>();
  private running = false;

  private constructor(
    private readonly deps: LiveFeedDeps,
    private state: LiveFeedState,
  ) {}

  /** Starts a new feed: nothing published yet; the state is written at once. */
  static async create(deps: LiveFeedDeps, params: FeedParams): Promise<LiveFeed> {
    const state: LiveFeedState = {
      format: 1,
      params,
      watermark: null,
      ends: await endsOf(deps.log, deps.codecs),
      last: null,
      published: 0,
    };
    await deps.store.put(STATE_KEY, Buffer.from(JSON.stringify(state)));
    return new LiveFeed(deps, state);
  }

  /** The feed of a data dir, or undefined when it has none. */
  static async open(deps: LiveFeedDeps): Promise<LiveFeed | undefined> {
    const raw = await deps.store.get(STATE_KEY);
    if (raw === undefined) return undefined;
    const state = JSON.parse(raw.toString('utf8')) as LiveFeedState;
    if (state.format !== 1) throw new RacingError('config_invalid', `live feed state has an unknown format`);
    return new LiveFeed(deps, state);
  }

  get params(): FeedParams {
    return this.state.params;
  }

  /** Every event published at or before this instant (epoch ms) is published; null when none is. */
  get watermark(): number | null {
    return this.state.watermark;
  }

  /** Events published by this feed, across restarts. */
  get published(): number {
    return this.state.published;
  }

  /**
   * Publishes every event due by now (its publishedAt at or before the clock) that is not published yet,
   * in chunks, writing the watermark after each. Yields to the event loop while generating, so a
   * service serving requests meanwhile stays responsive.
   */
  async catchUp(
    options: { signal?: AbortSignal; onProgress?: (p: CatchUpProgress) => void } = {},
  ): Promise<{ published: number }> {
    const { signal } = options;
    if (!(await this.position(signal))) return { published: 0 };
    let count = 0;
    let batch: PublishableEvent[] = [];
    let sliceStart = performance.now();
    let now = this.deps.clock.now();
    while (this.next && this.next.publishedAt <= now) {
      const e = this.next;
      batch.push(e);
      this.next = this.pull();
      // A batch ends only between two instants: the watermark then covers every event of its last instant.
      const boundary = !this.next || this.next.publishedAt > e.publishedAt;
      if (boundary && (batch.length >= CHUNK || signal?.aborted)) {
        count += await this.publish(batch);
        batch = [];
        options.onProgress?.({ last: e.publishedAt, published: count });
        if (signal?.aborted) break;
        now = this.deps.clock.now();
      }
      if (performance.now() - sliceStart > SLICE_MS) {
        await yieldToLoop();
        sliceStart = performance.now();
      }
    }
    if (batch.length > 0) {
      count += await this.publish(batch);
      options.onProgress?.({ last: batch.at(-1)!.publishedAt, published: count });
    }
    return { published: count };
  }

  /**
   * Catches up, then publishes each event at its time until the signal aborts (or the feed ends): a
   * timer to the next event's publishedAt, then everything due by then.
   */
  async run(signal: AbortSignal): Promise<void> {
    if (this.running) throw new RacingError('internal', 'the live feed is already running');
    this.running = true;
    let first = true;
    try {
      while (!signal.aborted) {
        const { published } = await this.catchUp({ signal });
        if (signal.aborted || !this.next) return;
        const at = {
          published,
          watermark: this.state.watermark === null ? null : new Date(this.state.watermark).toISOString(),
          next: new Date(this.next.publishedAt).toISOString(),
        };
        if (first) this.deps.logger.info(at, 'live feed caught up; publishing each event at its time');
        else if (published > 0) this.deps.logger.debug(at, 'live feed published');
        first = false;
        await this.deps.clock.sleep(this.next.publishedAt - this.deps.clock.now(), signal);
      }
    } finally {
      this.running = false;
    }
  }

  /** The publishedAt of the next event to publish (undefined before the feed is positioned or at its end). */
  get nextAt(): number | undefined {
    return this.next ? this.next.publishedAt : undefined;
  }

  private pull(): PublishableEvent | null {
    const r = this.iterator!.next();
    return r.done ? null : r.value;
  }

  /**
   * On first use: regenerates the feed up to the watermark (checking that its last event is the one
   * published), and reads back what was appended to the input topics after the stored offsets.
   */
  private async position(signal?: AbortSignal): Promise<boolean> {
    if (this.next !== undefined) return true;
    const { watermark, last } = this.state;
    this.iterator = this.deps.feed(this.state.params)[Symbol.iterator]();
    let e = this.pull();
    let lastSkipped: PublishableEvent | undefined;
    let sliceStart = performance.now();
    while (e && watermark !== null && e.publishedAt <= watermark) {
      lastSkipped = e;
      e = this.pull();
      if (performance.now() - sliceStart > SLICE_MS) {
        if (signal?.aborted) return false;
        await yieldToLoop();
        sliceStart = performance.now();
      }
    }
    if (last !== null) {
      const seen = lastSkipped ? this.encode(lastSkipped) : undefined;
      if (
        !seen ||
        seen.topic !== last.topic ||
        seen.key !== last.key ||
        seen.timestamp !== last.timestamp ||
        sha256(seen.value) !== last.sha256
      ) {
        throw new RacingError(
          'config_invalid',
          'the live feed cannot continue this data dir: the regenerated feed differs from what it published ' +
            '(the generator changed since); start from an empty data dir, or turn the live feed off (RACING_LIVE=0)',
        );
      }
    }
    await this.readBack();
    this.next = e;
    return true;
  }

  /** Records appended to the input topics after the stored end offsets (a batch whose watermark was not written). */
  private async readBack(): Promise<void> {
    const { log, codecs } = this.deps;
    const t = codecs.topics;
    for (const topic of [t.courses, t.cards, t.results]) {
      const ends = await log.endOffsets(topic);
      const stored = this.state.ends[topic] ?? [];
      for (let p = 0; p < ends.length; p++) {
        let offset = Math.min(stored[p] ?? 0, ends[p]!);
        while (offset < ends[p]!) {
          const records = await log.read(topic, p, offset, 1_000);
          if (records.length === 0) break;
          for (const r of records) {
            if (r.value === null) continue;
            const id = recordId(topic, r.key, r.timestamp);
            const list = this.already.get(id) ?? [];
            list.push(r.value);
            this.already.set(id, list);
          }
          offset = records.at(-1)!.offset + 1;
        }
      }
    }
    if (this.already.size > 0)
      this.deps.logger.debug({ records: this.already.size }, 'live feed: records after its last watermark read back');
  }

  private encode(e: PublishableEvent): { topic: string; key: string; timestamp: number; value: Buffer } {
    const { codecs } = this.deps;
    if (e.kind === 'card')
      return {
        topic: codecs.topics.cards,
        key: e.value.raceId,
        timestamp: e.publishedAt,
        value: codecs.card.encode(e.value),
      };
    if (e.kind === 'result')
      return {
        topic: codecs.topics.results,
        key: e.value.raceId,
        timestamp: e.publishedAt,
        value: codecs.result.encode(e.value),
      };
    return {
      topic: codecs.topics.courses,
      key: e.value.courseId,
      timestamp: e.publishedAt,
      value: codecs.course.encode(e.value),
    };
  }

  /** True (and forgotten) when the event is among the records read back. */
  private takeAlready(e: PublishableEvent): boolean {
    const enc = this.encode(e);
    const id = recordId(enc.topic, enc.key, enc.timestamp);
    const list = this.already.get(id);
    if (!list) return false;
    const i = list.findIndex((b) => b.equals(enc.value));
    if (i < 0) return false;
    list.splice(i, 1);
    if (list.length === 0) this.already.delete(id);
    return true;
  }

  /** Produces the events (less those already in the log), then writes the watermark. Returns how many were produced. */
  private async publish(events: PublishableEvent[]): Promise<number> {
    const { log, codecs, store } = this.deps;
    const fresh = this.already.size > 0 ? events.filter((e) => !this.takeAlready(e)) : events;
    if (fresh.length > 0) await publishEvents(log, codecs, fresh, { batchSize: CHUNK * 2 });
    const lastEvent = events.at(-1)!;
    const enc = this.encode(lastEvent);
    this.state = {
      ...this.state,
      watermark: lastEvent.publishedAt,
      ends: await endsOf(log, codecs),
      last: { topic: enc.topic, key: enc.key, timestamp: enc.timestamp, sha256: sha256(enc.value) },
      published: this.state.published + events.length,
    };
    await store.put(STATE_KEY, Buffer.from(JSON.stringify(this.state)));
    // Records read back at or before the watermark can no longer match an event to come.
    for (const id of this.already.keys())
      if (Number(id.split('\u0000')[2]) <= lastEvent.publishedAt) this.already.delete(id);
    return fresh.length;
  }
}

async function endsOf(log: LogPort, codecs: Codecs): Promise<Record<string, number[]>> {
  const t = codecs.topics;
  const out: Record<string, number[]> = {};
  for (const topic of [t.courses, t.cards, t.results]) out[topic] = await log.endOffsets(topic);
  return out;
}
