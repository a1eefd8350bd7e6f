/**
 * The embedded LogPort: a durable, partitioned log with Kafka semantics (offsets, keys, timestamps,
 * compaction, committed group offsets) stored entirely through the StorePort, so it runs on the
 * classic-level store in production and on the in-memory store in tests.
 *
 * Store layout (topic names cannot contain '!', see TOPIC_NAME):
 *   b!<seq 16 digits>                    a run: the records one produce call appended to one partition
 *   e!<topic>!<p>                        end offset, written in the same batch as the runs
 *   g!<group>!<topic>!<p>                committed offset of a consumer group
 *   i!<topic>!<pppp>!<base offset 16>    index: run seq and record count, by the run's first offset
 *   s!<topic>!<p>                        start offset (raised by truncate)
 *   t!<topic>                            JSON TopicSpec
 * Why runs under a global sequence rather than one key per record (`r!<topic>!<p>!<offset>`): with
 * several partitions appending at once, per-record keys interleave in key order, so every LevelDB
 * compaction rewrites the data again at each level; measured on a 2-core machine that layout fell to
 * ~50k 1 KB records/s after 1.5M records. Runs keyed by an ever-growing sequence land beyond all
 * existing data (LevelDB moves such files down without rewriting them), the small index and metadata
 * keys sort after the runs so they never overlap them, and a 5,000-record produce becomes a handful of
 * store operations instead of 5,000.
 *
 * One log instance must own a store: end offsets and the run sequence are cached in memory and
 * advanced by this instance only, which is what makes offset assignment a cheap in-process operation.
 */
import { RacingError } from '../../domain/errors.js';
import type { BatchOp, StorePort } from '../../state/store-port.js';
import type {
  ConsumeOptions,
  LogBatch,
  LogPort,
  LogRecord,
  OutRecord,
  StartOffsets,
  TopicPartition,
  TopicSpec,
} from '../log-port.js';
import {
  decodeIndex,
  decodeRun,
  encodeIndex,
  encodeRun,
  filterRun,
  layoutRun,
  splitByPartition,
} from './embedded-log-codec.js';
import { CursorHeap, type MergeCursor } from './embedded-log-merge.js';

/** Options of the embedded log. */
export interface EmbeddedLogOptions {
  /** Source of default record timestamps (epoch ms); inject a fake clock in tests. */
  clock?: () => number;
}

/** Kafka's legal topic names; excluding '!' keeps every store key prefix unambiguous. */
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;
const DEFAULT_MAX_BATCH = 5_000;
/** Records fetched per partition per read-ahead; bounds memory to chunk x partitions records. */
const READ_AHEAD = 2_000;
/** Tailing consumers re-check this often even without a produce notification (e.g. a missed wake-up). */
const POLL_MS = 200;
/** Store operations per batch when compaction or truncate rewrite a topic. */
const MAINTENANCE_CHUNK = 1_000;

interface TopicState {
  readonly spec: TopicSpec;
  /** Next offset per partition; advanced only after the batch holding the records is written. */
  readonly end: number[];
  readonly start: number[];
  /** Serialises produce (and truncate's offset move) per topic so offsets are assigned in write order. */
  readonly lock: Mutex;
  /** Serialises compaction and truncate, which rewrite runs, without blocking produce. */
  readonly maintenance: Mutex;
  /** `i!<topic>!<pppp>!` per partition. */
  readonly indexPrefix: string[];
}

interface Cursor extends MergeCursor {
  readonly topic: string;
  readonly state: TopicState;
  readonly partition: number;
  /** Next offset to fetch from the store (ahead of what the handler has seen while buffered). */
  position: number;
}

interface Waiter {
  readonly topics: ReadonlySet<string>;
  readonly wake: () => void;
}

class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');
const runKey = (seq: number) => `b!${pad(seq, 16)}`;
const topicKey = (topic: string) => `t!${topic}`;
const endKey = (topic: string, p: number) => `e!${topic}!${p}`;
const startKey = (topic: string, p: number) => `s!${topic}!${p}`;
const groupKey = (group: string, topic: string, p: number) => `g!${group}!${topic}!${p}`;
const encodeOffset = (n: number) => Buffer.from(String(n), 'ascii');
const decodeOffset = (b: Buffer | undefined) => (b === undefined ? 0 : Number(b.toString('ascii')));

function unknownTopic(topic: string): RacingError {
  return new RacingError('unknown_topic', `unknown topic ${topic}`, { details: { topic } });
}

/**
 * Creates the embedded log over a StorePort (pass a `sub()` view to keep its keys apart). Produce is
 * durable once the store batch resolves; over classic-level that means it survives a process crash
 * (LevelDB's write-ahead log, not fsynced per batch, like Kafka's default flush policy).
 */
export function createEmbeddedLog(store: StorePort, options: EmbeddedLogOptions = {}): LogPort {
  return new EmbeddedLog(store, options.clock ?? Date.now);
}

class EmbeddedLog implements LogPort {
  private readonly topics = new Map<string, Promise<TopicState | undefined>>();
  private readonly waiters = new Set<Waiter>();
  private readonly adminLock = new Mutex();
  private closed = false;
  /** Running consume loops, awaited by close() so none touches the store after it is closed. */
  private readonly consuming = new Set<Promise<void>>();
  /** Next run sequence number; loaded from the last stored run on first produce. */
  private nextSeq: number | undefined;
  private seqLoading: Promise<number> | undefined;

  constructor(
    private readonly store: StorePort,
    private readonly clock: () => number,
  ) {}

  async ensureTopics(specs: readonly TopicSpec[]): Promise<void> {
    this.assertOpen();
    for (const spec of specs) {
      if (!TOPIC_NAME.test(spec.name)) {
        throw new RacingError('validation_failed', `invalid topic name ${JSON.stringify(spec.name)}`);
      }
      if (!Number.isInteger(spec.partitions) || spec.partitions < 1 || spec.partitions > 9999) {
        throw new RacingError('validation_failed', `invalid partition count ${spec.partitions} for ${spec.name}`);
      }
    }
    await this.adminLock.run(async () => {
      for (const spec of specs) {
        if ((await this.topic(spec.name)) !== undefined) continue;
        const stored: TopicSpec = { name: spec.name, partitions: spec.partitions, compacted: spec.compacted };
        if (spec.config !== undefined) stored.config = { ...spec.config };
        await this.store.put(topicKey(spec.name), Buffer.from(JSON.stringify(stored), 'utf8'));
        const zeros = new Array<number>(spec.partitions).fill(0);
        this.topics.set(spec.name, Promise.resolve(newState(stored, zeros, [...zeros])));
      }
    });
  }

  async partitions(topic: string): Promise<number> {
    return (await this.require(topic)).spec.partitions;
  }

  async produce(topic: string, records: readonly OutRecord[]): Promise<void> {
    const state = await this.require(topic);
    if (records.length === 0) return;
    const split = splitByPartition(records, state.spec.partitions);
    if ('invalid' in split) {
      throw new RacingError(
        'validation_failed',
        `partition ${split.invalid} out of range for ${topic} (${state.spec.partitions} partitions)`,
      );
    }
    const now = this.clock();
    await state.lock.run(async () => {
      this.assertOpen();
      await this.loadSeq();
      // From here to the assignment below nothing awaits, so concurrent produces on other topics
      // cannot hand out the same sequence numbers.
      let seq = this.nextSeq!;
      const next = state.end.slice();
      const ops: BatchOp[] = [];
      for (const run of split.runs) {
        const p = run.partition;
        const base = next[p]!;
        ops.push({ type: 'put', key: runKey(seq), value: encodeRun(topic, run, base, now) });
        ops.push({
          type: 'put',
          key: state.indexPrefix[p] + pad(base, 16),
          value: encodeIndex(seq, run.records.length),
        });
        next[p] = base + run.records.length;
        ops.push({ type: 'put', key: endKey(topic, p), value: encodeOffset(next[p]) });
        seq += 1;
      }
      this.nextSeq = seq;
      await this.store.batch(ops);
      for (const run of split.runs) state.end[run.partition] = next[run.partition]!;
    });
    for (const w of this.waiters) if (w.topics.has(topic)) w.wake();
  }

  async endOffsets(topic: string): Promise<number[]> {
    return (await this.require(topic)).end.slice();
  }

  async startOffsets(topic: string): Promise<number[]> {
    return (await this.require(topic)).start.slice();
  }

  async read(topic: string, partition: number, offset: number, max: number): Promise<LogRecord[]> {
    const state = await this.require(topic);
    this.assertPartition(state, partition);
    if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(max) || max < 0) {
      throw new RacingError('validation_failed', `read needs whole non-negative offset and max, got ${offset}, ${max}`);
    }
    return (await this.readRange(state, partition, offset, max, state.end[partition]!)).records;
  }

  /**
   * The embedded log has a single member per group: all partitions of the topics are assigned to this
   * call. Two concurrent calls with the same group would both consume everything and race on commits.
   */
  async consume(options: ConsumeOptions, handler: (batch: LogBatch) => Promise<void>): Promise<void> {
    const run = this.consumeLoop(options, handler);
    this.consuming.add(run);
    try {
      await run;
    } finally {
      this.consuming.delete(run);
    }
  }

  private async consumeLoop(options: ConsumeOptions, handler: (batch: LogBatch) => Promise<void>): Promise<void> {
    const topics = [...new Set(options.topics)];
    const states = await Promise.all(topics.map((t) => this.require(t)));
    const maxBatch = options.maxBatchRecords ?? DEFAULT_MAX_BATCH;
    if (!Number.isInteger(maxBatch) || maxBatch < 1) {
      throw new RacingError('validation_failed', `maxBatchRecords must be a positive integer, got ${maxBatch}`);
    }
    const cursors = await this.assign(options.group, topics, states, options.startOffsets);
    // Captured once so that untilCaughtUp means "everything that existed when consumption began".
    const stopAt = options.untilCaughtUp ? cursors.map((c) => c.state.end[c.partition]!) : undefined;
    const limit = (c: Cursor) => stopAt?.[c.index] ?? c.state.end[c.partition]!;
    const chunk = Math.min(maxBatch, READ_AHEAD);
    const fill = async (c: Cursor) => {
      const lim = limit(c);
      if (c.next < c.buffer.length || c.position >= lim) return;
      const { records, nextOffset } = await this.readRange(c.state, c.partition, c.position, chunk, lim, true);
      c.buffer = records;
      c.next = 0;
      c.position = nextOffset;
    };
    const heap = new CursorHeap<Cursor>();
    const topicSet = new Set(topics);
    const signal = options.signal;

    for (;;) {
      if (signal?.aborted || this.closed) return;
      for (const c of cursors) {
        if (heap.has(c)) continue;
        await fill(c);
        if (c.next < c.buffer.length) heap.push(c);
      }
      if (heap.size === 0) {
        if (stopAt !== undefined) return;
        // Synchronous re-check then registration: no produce can slip in between, so no lost wake-up.
        if (cursors.some((c) => c.position < limit(c))) continue;
        await this.waitForData(topicSet, signal);
        continue;
      }

      // Interleave partitions by timestamp (see embedded-log-merge.ts), refilling a cursor as soon as
      // its buffer runs dry so that its next head takes part in the ordering.
      const records: LogRecord[] = [];
      const commitTo = new Map<Cursor, number>();
      while (records.length < maxBatch && heap.size > 0) {
        const c = heap.pop()!;
        const record = c.buffer[c.next++]!;
        records.push(record);
        commitTo.set(c, record.offset + 1);
        if (c.next >= c.buffer.length) {
          c.buffer = [];
          c.next = 0;
          await fill(c);
        }
        if (c.next < c.buffer.length) heap.push(c);
      }
      await handler({ records });
      const ops: BatchOp[] = [];
      for (const [c, offset] of commitTo) {
        ops.push({ type: 'put', key: groupKey(options.group, c.topic, c.partition), value: encodeOffset(offset) });
      }
      await this.store.batch(ops);
    }
  }

  async committed(group: string, topic: string): Promise<number[]> {
    const state = await this.require(topic);
    const keys = range(state.spec.partitions).map((p) => groupKey(group, topic, p));
    return (await this.store.getMany(keys)).map(decodeOffset);
  }

  async resetGroup(group: string, topics: readonly string[]): Promise<void> {
    const ops: BatchOp[] = [];
    for (const topic of topics) {
      const state = await this.require(topic);
      for (const p of range(state.spec.partitions)) ops.push({ type: 'del', key: groupKey(group, topic, p) });
    }
    await this.store.batch(ops);
  }

  async truncate(topic: string): Promise<void> {
    const state = await this.require(topic);
    await state.maintenance.run(async () => {
      const start = await state.lock.run(async () => {
        const ends = state.end.slice();
        // Start offsets move first: reads clamp to them, so a crash part-way through the deletes below
        // leaves unreachable leftovers rather than resurrected records.
        await this.store.batch(
          ends.map((offset, p) => ({ type: 'put' as const, key: startKey(topic, p), value: encodeOffset(offset) })),
        );
        for (const [p, offset] of ends.entries()) state.start[p] = offset;
        return ends;
      });
      for (const p of range(state.spec.partitions)) {
        const prefix = state.indexPrefix[p]!;
        let ops: BatchOp[] = [];
        for await (const [key, value] of this.store.entries({ gte: prefix, lt: prefix + pad(start[p]!, 16) })) {
          // A run and its index entry go in the same batch, so an index entry never outlives its run.
          ops.push({ type: 'del', key: runKey(decodeIndex(value).seq) }, { type: 'del', key });
          if (ops.length >= MAINTENANCE_CHUNK) {
            await this.store.batch(ops);
            ops = [];
          }
        }
        await this.store.batch(ops);
      }
    });
  }

  /**
   * Keeps only the latest record per key in each partition of a compacted topic; offsets of kept
   * records never change. Tombstones are kept as the latest record of their key and are not purged in
   * this version: Kafka removes them after delete.retention.ms, but without that grace period a
   * consumer that lags (or replays from its committed offset) would never see the delete and would keep
   * the stale value forever.
   */
  async compact(topic: string): Promise<void> {
    const state = await this.require(topic);
    if (!state.spec.compacted) return;
    await state.maintenance.run(async () => {
      for (const p of range(state.spec.partitions)) await this.compactPartition(state, p);
    });
  }

  private async compactPartition(state: TopicState, p: number): Promise<void> {
    const topic = state.spec.name;
    const prefix = state.indexPrefix[p]!;
    // Runs are whole produce calls, so none straddles this end; later runs wait for the next compaction.
    const span = { gte: prefix, lt: prefix + pad(state.end[p]!, 16) };
    const latest = new Map<string, number>();
    for await (const [, value] of this.store.entries(span)) {
      const run = await this.store.get(runKey(decodeIndex(value).seq));
      if (run === undefined) continue;
      for (const e of layoutRun(run, topic, p).entries) latest.set(e.key, e.offset);
    }
    const live = (offset: number, key: string) => latest.get(key) === offset;
    let ops: BatchOp[] = [];
    for await (const [indexKey, value] of this.store.entries(span)) {
      const { seq } = decodeIndex(value);
      const run = await this.store.get(runKey(seq));
      if (run === undefined) continue;
      const layout = layoutRun(run, topic, p);
      if (layout.entries.every((e) => live(e.offset, e.key))) continue;
      const kept = filterRun(run, layout, live);
      if (kept === undefined) ops.push({ type: 'del', key: runKey(seq) }, { type: 'del', key: indexKey });
      else {
        ops.push({ type: 'put', key: runKey(seq), value: kept.buf });
        ops.push({ type: 'put', key: indexKey, value: encodeIndex(seq, kept.count) });
      }
      if (ops.length >= MAINTENANCE_CHUNK) {
        await this.store.batch(ops);
        ops = [];
      }
    }
    await this.store.batch(ops);
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiters) w.wake();
    // Consumers stop after their current batch; their failures belong to their own callers.
    await Promise.allSettled([...this.consuming]);
    // Let in-flight produce/truncate batches finish so the caller can close the store afterwards.
    for (const pending of this.topics.values()) {
      const state = await pending.catch(() => undefined);
      if (state !== undefined) await state.maintenance.run(() => state.lock.run(async () => undefined));
    }
  }

  private async loadSeq(): Promise<void> {
    if (this.nextSeq !== undefined) return;
    this.seqLoading ??= (async () => {
      let last = -1;
      for await (const [key] of this.store.entries({ gte: 'b!', lt: 'b"', reverse: true, limit: 1 })) {
        last = Number(key.slice(2));
      }
      return last + 1;
    })();
    const loaded = await this.seqLoading;
    // Another topic's produce may already have advanced the counter while this one awaited the load.
    this.nextSeq ??= loaded;
  }

  private assertOpen(): void {
    if (this.closed) throw new RacingError('internal', 'the embedded log is closed');
  }

  private assertPartition(state: TopicState, partition: number): void {
    if (!Number.isInteger(partition) || partition < 0 || partition >= state.spec.partitions) {
      throw new RacingError('validation_failed', `partition ${partition} out of range for ${state.spec.name}`);
    }
  }

  private async require(topic: string): Promise<TopicState> {
    this.assertOpen();
    const state = await this.topic(topic);
    if (state === undefined) throw unknownTopic(topic);
    return state;
  }

  /** Loads a topic's metadata once; a miss is not cached so a later ensureTopics is seen. */
  private topic(name: string): Promise<TopicState | undefined> {
    const cached = this.topics.get(name);
    if (cached !== undefined) return cached;
    if (!TOPIC_NAME.test(name)) return Promise.resolve(undefined);
    const loading = this.load(name);
    this.topics.set(name, loading);
    const forget = () => {
      if (this.topics.get(name) === loading) this.topics.delete(name);
    };
    loading.then((state) => {
      if (state === undefined) forget();
    }, forget);
    return loading;
  }

  private async load(name: string): Promise<TopicState | undefined> {
    const raw = await this.store.get(topicKey(name));
    if (raw === undefined) return undefined;
    const spec = JSON.parse(raw.toString('utf8')) as TopicSpec;
    const ps = range(spec.partitions);
    const [ends, starts] = await Promise.all([
      this.store.getMany(ps.map((p) => endKey(name, p))),
      this.store.getMany(ps.map((p) => startKey(name, p))),
    ]);
    return newState(spec, ends.map(decodeOffset), starts.map(decodeOffset));
  }

  /**
   * Reads records of [max(from, start), lim) up to `max`; `nextOffset` is where the next read should
   * begin, past any compaction gap, so a cursor never re-scans an empty stretch. With `wholeRuns` the
   * last run fetched is returned to its end even beyond `max`, so a consumer's next read-ahead does
   * not fetch and decode that run a second time.
   */
  private async readRange(state: TopicState, p: number, from: number, max: number, lim: number, wholeRuns = false) {
    const records: LogRecord[] = [];
    const first = Math.max(from, state.start[p]!, 0);
    if (max <= 0 || first >= lim) return { records, nextOffset: Math.max(from, lim) };
    const topic = state.spec.name;
    const prefix = state.indexPrefix[p]!;
    // The run holding `first` is the last one that starts at or before it.
    let gte = prefix;
    for await (const [key] of this.store.entries({
      gte: prefix,
      lt: prefix + pad(first + 1, 16),
      reverse: true,
      limit: 1,
    })) {
      gte = key;
    }
    let pending: number[] = [];
    let expected = 0;
    const fetch = async () => {
      const runs = await this.store.getMany(pending.map(runKey));
      // A run missing here was removed by a concurrent truncate or compaction after the index was read.
      const take = wholeRuns ? Number.POSITIVE_INFINITY : max;
      for (const run of runs) if (run !== undefined) decodeRun(run, topic, p, first, lim, take, records);
      pending = [];
      expected = 0;
    };
    for await (const [, value] of this.store.entries({ gte, lt: prefix + pad(lim, 16) })) {
      const { seq, count } = decodeIndex(value);
      pending.push(seq);
      expected += count;
      if (records.length + expected >= max) {
        await fetch();
        if (records.length >= max) break;
      }
    }
    if (pending.length > 0) await fetch();
    const nextOffset = records.length >= max ? records[records.length - 1]!.offset + 1 : lim;
    return { records, nextOffset };
  }

  private async assign(
    group: string,
    topics: readonly string[],
    states: readonly TopicState[],
    startOffsets: ConsumeOptions['startOffsets'],
  ): Promise<Cursor[]> {
    const cursors: Cursor[] = [];
    for (const [i, topic] of topics.entries()) {
      const state = states[i]!;
      for (const partition of range(state.spec.partitions)) {
        cursors.push({ index: cursors.length, topic, state, partition, position: 0, buffer: [], next: 0 });
      }
    }
    const assigned: TopicPartition[] = cursors.map((c) => ({ topic: c.topic, partition: c.partition }));
    const explicit: StartOffsets = startOffsets ? await startOffsets(assigned) : new Map();
    const committed = await this.store.getMany(cursors.map((c) => groupKey(group, c.topic, c.partition)));
    for (const c of cursors) {
      const stored = committed[c.index];
      c.position =
        explicit.get(`${c.topic}:${c.partition}`) ??
        (stored === undefined ? c.state.start[c.partition]! : decodeOffset(stored));
    }
    return cursors;
  }

  private waitForData(topics: ReadonlySet<string>, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        this.waiters.delete(waiter);
        resolve();
      };
      const waiter: Waiter = { topics, wake: done };
      const timer = setTimeout(done, POLL_MS);
      signal?.addEventListener('abort', done, { once: true });
      this.waiters.add(waiter);
    });
  }
}

function newState(spec: TopicSpec, end: number[], start: number[]): TopicState {
  const indexPrefix = range(spec.partitions).map((p) => `i!${spec.name}!${pad(p, 4)}!`);
  return { spec, end, start, lock: new Mutex(), maintenance: new Mutex(), indexPrefix };
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}
