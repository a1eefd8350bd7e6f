/**
 * The embedded LogPort: a durable, partitioned log with Kafka semantics (offsets, keys, timestamps,
 * compaction, committed group offsets) stored entirely through the StorePort, so it runs on the
 * classic-level store in production and on the in-memory store in tests.
 *
 * Store layout (topic names cannot contain '!', see TOPIC_NAME):
 *   t!<topic>                          JSON TopicSpec
 *   r!<topic>!<pppp>!<offset 16 digits> binary record (see encodeRecord)
 *   e!<topic>!<p>                      end offset, written in the same batch as the records
 *   s!<topic>!<p>                      start offset (raised by truncate)
 *   g!<group>!<topic>!<p>              committed offset of a consumer group
 *
 * One log instance must own a store: end offsets are cached in memory and advanced by this instance
 * only, which is what makes offset assignment a cheap in-process operation.
 */
import { RacingError } from '../../domain/errors.js';
import { murmur2, toPositive } from '../../domain/murmur2.js';
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

/** Options of the embedded log. */
export interface EmbeddedLogOptions {
  /** Source of default record timestamps (epoch ms); inject a fake clock in tests. */
  clock?: () => number;
}

/** Kafka's legal topic names; excluding '!' keeps every store key prefix unambiguous. */
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;
const DEFAULT_MAX_BATCH = 5_000;
/** Records fetched per partition per read-ahead; bounds memory to chunk x partitions records. */
const READ_AHEAD = 1_000;
/** Tailing consumers re-check this often even without a produce notification (e.g. a missed wake-up). */
const POLL_MS = 200;
const COMPACT_DELETE_CHUNK = 10_000;
const FORMAT_VERSION = 1;
const EMPTY_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

interface TopicState {
  readonly spec: TopicSpec;
  /** Next offset per partition; advanced only after the batch holding the records is written. */
  readonly end: number[];
  readonly start: number[];
  /** Serialises produce/truncate per topic so offsets are assigned in write order. */
  readonly lock: Mutex;
  /** `r!<topic>!<pppp>!` per partition, precomputed because produce builds one key per record. */
  readonly recordPrefix: string[];
}

interface Cursor {
  readonly index: number;
  readonly topic: string;
  readonly state: TopicState;
  readonly partition: number;
  /** Next offset to fetch from the store (ahead of what the handler has seen while buffered). */
  position: number;
  buffer: LogRecord[];
  next: number;
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
const topicKey = (topic: string) => `t!${topic}`;
const endKey = (topic: string, p: number) => `e!${topic}!${p}`;
const startKey = (topic: string, p: number) => `s!${topic}!${p}`;
const groupKey = (group: string, topic: string, p: number) => `g!${group}!${topic}!${p}`;
const recordPrefix = (topic: string, p: number) => `r!${topic}!${pad(p, 4)}!`;
const offsetFromKey = (key: string) => Number(key.slice(-16));
const encodeOffset = (n: number) => Buffer.from(String(n), 'ascii');
const decodeOffset = (b: Buffer | undefined) => (b === undefined ? 0 : Number(b.toString('ascii')));

/**
 * Record value layout: u8 version, f64 timestamp, u32 key length + key, i32 value length (-1 = null) +
 * value, u16 header count, then per header u32 length + name, u32 length + value. Fixed-width lengths
 * keep encode to one allocation and decode to zero-copy slices.
 */
function encodeRecord(key: string, value: Buffer | null, timestamp: number, headers: Readonly<Record<string, string>>) {
  const keyLen = Buffer.byteLength(key, 'utf8');
  const names = Object.keys(headers);
  let size = 1 + 8 + 4 + keyLen + 4 + (value === null ? 0 : value.length) + 2;
  for (const name of names) size += 8 + Buffer.byteLength(name, 'utf8') + Buffer.byteLength(headers[name]!, 'utf8');
  const buf = Buffer.allocUnsafe(size);
  let o = buf.writeUInt8(FORMAT_VERSION, 0);
  o = buf.writeDoubleBE(timestamp, o);
  o = buf.writeUInt32BE(keyLen, o);
  o += buf.write(key, o, 'utf8');
  if (value === null) o = buf.writeInt32BE(-1, o);
  else {
    o = buf.writeInt32BE(value.length, o);
    o += value.copy(buf, o);
  }
  o = buf.writeUInt16BE(names.length, o);
  for (const name of names) {
    for (const s of [name, headers[name]!]) {
      const len = buf.write(s, o + 4, 'utf8');
      buf.writeUInt32BE(len, o);
      o += 4 + len;
    }
  }
  return { buf, keyStart: 13, keyEnd: 13 + keyLen };
}

function decodeRecord(topic: string, partition: number, offset: number, buf: Buffer): LogRecord {
  if (buf[0] !== FORMAT_VERSION) {
    throw new RacingError('internal', `unsupported record format ${buf[0]} at ${topic}/${partition}/${offset}`);
  }
  const timestamp = buf.readDoubleBE(1);
  const keyLen = buf.readUInt32BE(9);
  let o = 13;
  const key = buf.toString('utf8', o, o + keyLen);
  o += keyLen;
  const valueLen = buf.readInt32BE(o);
  o += 4;
  let value: Buffer | null = null;
  if (valueLen >= 0) {
    value = buf.subarray(o, o + valueLen);
    o += valueLen;
  }
  const count = buf.readUInt16BE(o);
  o += 2;
  let headers = EMPTY_HEADERS;
  if (count > 0) {
    const pairs: [string, string][] = [];
    for (let i = 0; i < count; i++) {
      const pair: string[] = [];
      for (let j = 0; j < 2; j++) {
        const len = buf.readUInt32BE(o);
        pair.push(buf.toString('utf8', o + 4, o + 4 + len));
        o += 4 + len;
      }
      pairs.push([pair[0]!, pair[1]!]);
    }
    // fromEntries defines own properties, so a header named "__proto__" cannot touch the prototype.
    headers = Object.fromEntries(pairs);
  }
  return { topic, partition, offset, key, value, timestamp, headers };
}

function keyOfRecord(buf: Buffer): string {
  return buf.toString('utf8', 13, 13 + buf.readUInt32BE(9));
}

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
    const n = state.spec.partitions;
    await state.lock.run(async () => {
      this.assertOpen();
      const next = state.end.slice();
      const touched = new Set<number>();
      const ops: BatchOp[] = new Array(records.length);
      const now = this.clock();
      for (let i = 0; i < records.length; i++) {
        const r = records[i]!;
        const { buf, keyStart, keyEnd } = encodeRecord(r.key, r.value, r.timestamp ?? now, r.headers ?? EMPTY_HEADERS);
        // Hashing the key bytes already written into the record avoids a second UTF-8 encode.
        const p = r.partition ?? toPositive(murmur2(buf.subarray(keyStart, keyEnd))) % n;
        if (!Number.isInteger(p) || p < 0 || p >= n) {
          throw new RacingError('validation_failed', `partition ${p} out of range for ${topic} (${n} partitions)`);
        }
        const offset = next[p]!;
        next[p] = offset + 1;
        touched.add(p);
        ops[i] = { type: 'put', key: state.recordPrefix[p] + pad(offset, 16), value: buf };
      }
      for (const p of touched) ops.push({ type: 'put', key: endKey(topic, p), value: encodeOffset(next[p]!) });
      await this.store.batch(ops);
      for (const p of touched) state.end[p] = next[p]!;
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
    return (await this.readRange(state, partition, offset, max, state.end[partition]!)).records;
  }

  async consume(options: ConsumeOptions, handler: (batch: LogBatch) => Promise<void>): Promise<void> {
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
      const { records, nextOffset } = await this.readRange(c.state, c.partition, c.position, chunk, lim);
      c.buffer = records;
      c.next = 0;
      c.position = nextOffset;
    };
    const heap = new CursorHeap();
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

      // k-way merge of the partition heads by (timestamp, topic order, partition); each partition's
      // own records stay in offset order because only its head is ever compared.
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
    await state.lock.run(async () => {
      const start = state.end.slice();
      // The start offsets go first: reads clamp to them, so a crash before the clear finishes leaves
      // unreadable leftovers rather than resurrected records.
      await this.store.batch(
        range(start.length).map((p) => ({ type: 'put', key: startKey(topic, p), value: encodeOffset(start[p]!) })),
      );
      for (const p of range(start.length)) state.start[p] = start[p]!;
      await this.store.clear({ gte: `r!${topic}!`, lt: `r!${topic}"` });
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
    for (const p of range(state.spec.partitions)) {
      // Records produced during compaction lie beyond this snapshot and are left for the next run.
      const end = state.end[p]!;
      const latest = new Map<string, string>();
      let deletes: BatchOp[] = [];
      const gte = state.recordPrefix[p] + pad(state.start[p]!, 16);
      for await (const [storeKey, buf] of this.store.entries({ gte, lt: state.recordPrefix[p] + pad(end, 16) })) {
        const key = keyOfRecord(buf);
        const previous = latest.get(key);
        if (previous !== undefined) deletes.push({ type: 'del', key: previous });
        latest.set(key, storeKey);
        if (deletes.length >= COMPACT_DELETE_CHUNK) {
          await this.store.batch(deletes);
          deletes = [];
        }
      }
      await this.store.batch(deletes);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.waiters) w.wake();
    // Let in-flight produce/truncate batches finish so the caller can close the store afterwards.
    for (const pending of this.topics.values()) {
      const state = await pending.catch(() => undefined);
      if (state !== undefined) await state.lock.run(async () => undefined);
    }
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
   * begin, past any compaction gap, so a cursor never re-scans an empty stretch.
   */
  private async readRange(state: TopicState, p: number, from: number, max: number, lim: number) {
    const records: LogRecord[] = [];
    const first = Math.max(from, state.start[p]!, 0);
    if (max <= 0 || first >= lim) return { records, nextOffset: Math.max(from, lim) };
    const prefix = state.recordPrefix[p]!;
    for await (const [key, buf] of this.store.entries({
      gte: prefix + pad(first, 16),
      lt: prefix + pad(lim, 16),
      limit: max,
    })) {
      records.push(decodeRecord(state.spec.name, p, offsetFromKey(key), buf));
    }
    const nextOffset = records.length === max ? records[records.length - 1]!.offset + 1 : lim;
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
  const recordPrefixes = range(spec.partitions).map((p) => recordPrefix(spec.name, p));
  return { spec, end, start, lock: new Mutex(), recordPrefix: recordPrefixes };
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** Min-heap of cursors ordered by their head record: timestamp, then assignment order (topic, partition). */
class CursorHeap {
  private readonly items: Cursor[] = [];
  private readonly members = new Set<Cursor>();

  get size(): number {
    return this.items.length;
  }

  has(c: Cursor): boolean {
    return this.members.has(c);
  }

  push(c: Cursor): void {
    this.members.add(c);
    const items = this.items;
    items.push(c);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(items[i]!, items[parent]!)) break;
      [items[i], items[parent]] = [items[parent]!, items[i]!];
      i = parent;
    }
  }

  pop(): Cursor | undefined {
    const items = this.items;
    const top = items[0];
    if (top === undefined) return undefined;
    this.members.delete(top);
    const last = items.pop()!;
    if (items.length > 0) {
      items[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < items.length && before(items[l]!, items[m]!)) m = l;
        if (r < items.length && before(items[r]!, items[m]!)) m = r;
        if (m === i) break;
        [items[i], items[m]] = [items[m]!, items[i]!];
        i = m;
      }
    }
    return top;
  }
}

function before(a: Cursor, b: Cursor): boolean {
  const ta = a.buffer[a.next]!.timestamp;
  const tb = b.buffer[b.next]!.timestamp;
  return ta !== tb ? ta < tb : a.index < b.index;
}
