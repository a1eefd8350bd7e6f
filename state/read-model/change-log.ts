/**
 * The read model's change feed: every racing.analytics.v1 record the view applies (an upsert or a
 * tombstone of raceId:horseId) is appended to a durable, ordered change log in the view's own store and
 * handed to in-process subscribers (the API's server-sent events stream, api/stream-routes.ts).
 *
 * Sequence numbers. Each change gets the next integer of one counter, in the order the view applied
 * the records (per partition that is topic order; across partitions, the view's interleaving). The
 * changes, the counter and, per source partition, the next offset not yet recorded are written in the
 * same atomic store batch as the rows themselves, so after a crash the view's replay of an uncommitted
 * batch finds its records already recorded and appends nothing twice (no duplicates), and no number is
 * ever skipped (no gaps). A stream position is therefore one number, and resuming from it is exact
 * however many partitions feed the view.
 *
 * Epoch. The log has a random identity, created with it and dropped with the read model
 * (`racing rebuild`); event ids carry it (`<epoch>-<seq>`), so an id from before a rebuild, or from
 * another replica's view in Kafka mode (each replica numbers its own changes), is recognised as foreign
 * instead of being taken for a position in this log.
 *
 * Kept from the first reader on. A stream client only ever holds ids at or after the head it first
 * connected at, so the changes before the first stream connection of an epoch can never be asked for:
 * until then (a rebuild, the first catch-up of a history) only the numbering advances and nothing else is
 * written. The first reader (`retain`) fixes, durably, the position from which changes are kept.
 *
 * Retention. The latest `maxChanges` changes are kept (pruned in steps of a tenth, so up to 10% more
 * between prunes), and none older than `maxAgeDays` (checked at most once a minute, as changes are
 * applied). A position older than what is kept cannot be resumed from; the stream says so (a `reset`
 * event) rather than skipping what was pruned.
 *
 * Store layout (under the view's prefix, beside the read model's own keys):
 *   chg!c!<seq, 15 digits>     a change: header JSON and the row's Avro bytes as the topic carries them
 *   chg!e                      epoch
 *   chg!h                      last sequence number assigned
 *   chg!k                      changes after this sequence number are kept (absent: no reader yet)
 *   chg!p!<topic>!<partition>  next offset of that partition not yet recorded
 */
import { randomBytes } from 'node:crypto';
import type { AnalyticsRow } from '../../domain/avro-types.generated.js';
import type { BatchOp, StorePort } from '../store-port.js';

/** Where a row record came from: its topic, partition and offset. */
export interface ChangeSource {
  topic: string;
  partition: number;
  offset: number;
}

/** A row record as the view applies it; `source` is absent for records not read from a topic (tests). */
export interface RowChangeInput {
  /** raceId:horseId */
  key: string;
  /** Avro bytes of the row; null is a tombstone */
  value: Buffer | null;
  source?: ChangeSource;
}

/** One recorded change. */
export interface Change {
  seq: number;
  raceId: string;
  horseId: string;
  /** The race's local meeting date as the view knew it when the change was applied; null when unknown. */
  meetingDate: string | null;
  /** Partition and offset of the analytics record; null when it was applied without them. */
  partition: number | null;
  offset: number | null;
  /** The row's Avro bytes as the topic carries them; null for a tombstone. */
  value: Buffer | null;
  /** Epoch ms when the view applied it. */
  appliedAt: number;
}

/** What can be resumed: changes oldest..head are kept (oldest = head + 1 when none is). */
export interface ChangePosition {
  epoch: string;
  oldest: number;
  head: number;
}

/** The port the API reads changes through. */
export interface ChangeFeed {
  position(): Promise<ChangePosition>;
  /**
   * The position, once changes are kept from it on (the first call of an epoch fixes that point, durably;
   * before it nothing is kept because nobody can ask for it). A reader calls this before it hands out ids.
   */
  retain(): Promise<ChangePosition>;
  /** Up to `limit` changes with seq > afterSeq, ascending (fewer when the log ends). */
  read(afterSeq: number, limit: number): Promise<Change[]>;
  /**
   * Calls `listener` with every batch of changes once it is durable and readable through the read model,
   * in sequence order. Returns the unsubscribe function.
   */
  subscribe(listener: (changes: readonly Change[]) => void): () => void;
  /** Decodes a change's row (the same decoder the read model serves rows with). */
  decodeRow(value: Buffer): Promise<AnalyticsRow>;
}

export interface ChangeRetention {
  /** changes kept (at least; up to 10% more between prunes) */
  maxChanges: number;
  /** days a change is kept at most */
  maxAgeDays: number;
}

export const DEFAULT_CHANGE_RETENTION: ChangeRetention = Object.freeze({ maxChanges: 250_000, maxAgeDays: 7 });

/** `<epoch>-<seq>`: the SSE event id of a position. */
export function changeId(epoch: string, seq: number): string {
  return `${epoch}-${seq}`;
}

/** The shape of an event id (also published as the lastEventId query parameter's pattern). */
export const CHANGE_ID_PATTERN = '^[0-9a-f]{10}-(0|[1-9][0-9]{0,14})$';
const CHANGE_ID = new RegExp(CHANGE_ID_PATTERN);

/** Parses an event id; undefined when it is not one. */
export function parseChangeId(id: string): { epoch: string; seq: number } | undefined {
  if (!CHANGE_ID.test(id)) return undefined;
  const dash = id.indexOf('-');
  return { epoch: id.slice(0, dash), seq: Number(id.slice(dash + 1)) };
}

const PREFIX = 'chg!';
const CHANGE_PREFIX = `${PREFIX}c!`;
const CHANGE_END = `${PREFIX}c"`;
const EPOCH_KEY = `${PREFIX}e`;
const HEAD_KEY = `${PREFIX}h`;
const KEEP_KEY = `${PREFIX}k`;
const POSITION_PREFIX = `${PREFIX}p!`;
const raceOf = (key: string) => {
  const colon = key.indexOf(':');
  return colon < 0 ? key : key.slice(0, colon);
};
const changeKey = (seq: number) => CHANGE_PREFIX + String(seq).padStart(15, '0');
const positionKey = (topic: string, partition: number) => `${POSITION_PREFIX}${topic}!${partition}`;
const AGE_CHECK_MS = 60_000;
/** Changes whose age is checked per prune at most (the next prune goes on). */
const AGE_SCAN_LIMIT = 50_000;

interface Header {
  r: string;
  h: string;
  d: string | null;
  p: number | null;
  o: number | null;
  t: number;
}

function encodeChange(c: Change): Buffer {
  const header: Header = { r: c.raceId, h: c.horseId, d: c.meetingDate, p: c.partition, o: c.offset, t: c.appliedAt };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(5);
  prefix[0] = c.value === null ? 0 : 1;
  prefix.writeUInt32BE(json.length, 1);
  return c.value === null ? Buffer.concat([prefix, json]) : Buffer.concat([prefix, json, c.value]);
}

function decodeHeader(buf: Buffer): { header: Header; end: number } {
  const length = buf.readUInt32BE(1);
  return { header: JSON.parse(buf.toString('utf8', 5, 5 + length)) as Header, end: 5 + length };
}

function decodeChange(seq: number, buf: Buffer): Change {
  const { header: h, end } = decodeHeader(buf);
  return {
    seq,
    raceId: h.r,
    horseId: h.h,
    meetingDate: h.d,
    partition: h.p,
    offset: h.o,
    value: buf[0] === 1 ? buf.subarray(end) : null,
    appliedAt: h.t,
  };
}

interface State {
  epoch: string;
  head: number;
  oldest: number;
  /** changes after this seq are kept; undefined until the first reader */
  keepFrom: number | undefined;
  /** next offset not yet recorded, by positionKey */
  positions: Map<string, number>;
}

/**
 * The change log over the view's store. The read model calls `record` from its `apply` (one writer);
 * the API reads it through the ChangeFeed methods.
 */
export class ChangeLog implements ChangeFeed {
  #state: Promise<State> | undefined;
  readonly #listeners = new Set<(changes: readonly Change[]) => void>();
  #chain: Promise<unknown> = Promise.resolve();
  #lastAgeCheck = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly store: StorePort,
    readonly decodeRow: (value: Buffer) => Promise<AnalyticsRow>,
    private readonly retention: ChangeRetention = DEFAULT_CHANGE_RETENTION,
    private readonly clock: () => number = Date.now,
  ) {}

  async position(): Promise<ChangePosition> {
    const s = await this.state();
    return { epoch: s.epoch, oldest: s.oldest, head: s.head };
  }

  retain(): Promise<ChangePosition> {
    return this.#exclusive(async () => {
      const s = await this.state();
      if (s.keepFrom === undefined) {
        await this.store.put(KEEP_KEY, Buffer.from(String(s.head)));
        s.keepFrom = s.head;
        s.oldest = s.head + 1;
      }
      return { epoch: s.epoch, oldest: s.oldest, head: s.head };
    });
  }

  async read(afterSeq: number, limit: number): Promise<Change[]> {
    const out: Change[] = [];
    if (limit <= 0) return out;
    for await (const [k, v] of this.store.entries({ gte: changeKey(afterSeq + 1), lt: CHANGE_END, limit })) {
      out.push(decodeChange(Number(k.slice(CHANGE_PREFIX.length)), v));
    }
    return out;
  }

  subscribe(listener: (changes: readonly Change[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Records the row changes of one view batch: `commit` must write the given operations in the same
   * atomic store batch as the rows (and make them readable) before it resolves; subscribers are told
   * afterwards. Records already recorded (same partition, offset below the recorded position: a batch
   * replayed after a crash) get no second change.
   */
  record(
    rows: readonly RowChangeInput[],
    meetingDates: (raceIds: readonly string[]) => Promise<ReadonlyMap<string, string | null>>,
    commit: (ops: BatchOp[]) => Promise<void>,
  ): Promise<void> {
    return this.#exclusive(async () => {
      const s = await this.state();
      const now = this.clock();
      const keep = s.keepFrom !== undefined;
      // Dates only matter to what is kept or heard (stream filters).
      const dates =
        rows.length > 0 && (keep || this.#listeners.size > 0)
          ? await meetingDates([...new Set(rows.map((r) => raceOf(r.key)))])
          : new Map<string, string | null>();
      const ops: BatchOp[] = [];
      const changes: Change[] = [];
      const positions = new Map<string, number>();
      let seq = s.head;
      for (const r of rows) {
        if (r.source) {
          const pk = positionKey(r.source.topic, r.source.partition);
          const next = positions.get(pk) ?? s.positions.get(pk) ?? 0;
          if (r.source.offset < next) continue;
          positions.set(pk, r.source.offset + 1);
        }
        const raceId = raceOf(r.key);
        const change: Change = {
          seq: ++seq,
          raceId,
          horseId: r.key.slice(raceId.length + 1),
          meetingDate: dates.get(raceId) ?? null,
          partition: r.source?.partition ?? null,
          offset: r.source?.offset ?? null,
          value: r.value,
          appliedAt: now,
        };
        changes.push(change);
        if (keep) ops.push({ type: 'put', key: changeKey(change.seq), value: encodeChange(change) });
      }
      if (changes.length > 0) ops.push({ type: 'put', key: HEAD_KEY, value: Buffer.from(String(seq)) });
      for (const [k, v] of positions) ops.push({ type: 'put', key: k, value: Buffer.from(String(v)) });
      await commit(ops);
      s.head = seq;
      for (const [k, v] of positions) s.positions.set(k, v);
      if (changes.length > 0) {
        for (const listener of this.#listeners) {
          try {
            listener(changes);
          } catch {
            // A subscriber's failure is its own (the stream closes its connection); the view goes on.
          }
        }
      }
      if (keep) await this.#prune(s, now);
      else s.oldest = seq + 1;
    });
  }

  /** Forgets the in-memory state after the read model's store was cleared: the next use starts a new epoch. */
  reset(): Promise<void> {
    return this.#exclusive(async () => {
      this.#state = undefined;
      this.#lastAgeCheck = Number.NEGATIVE_INFINITY;
    });
  }

  private state(): Promise<State> {
    this.#state ??= this.#load().catch((e: unknown) => {
      this.#state = undefined;
      throw e;
    });
    return this.#state;
  }

  async #load(): Promise<State> {
    let epoch = (await this.store.get(EPOCH_KEY))?.toString('utf8');
    if (epoch === undefined) {
      epoch = randomBytes(5).toString('hex');
      await this.store.put(EPOCH_KEY, Buffer.from(epoch, 'utf8'));
    }
    const head = Number((await this.store.get(HEAD_KEY))?.toString('utf8') ?? '0');
    const kept = (await this.store.get(KEEP_KEY))?.toString('utf8');
    const keepFrom = kept === undefined ? undefined : Number(kept);
    let oldest = head + 1;
    for await (const [k] of this.store.entries({ gte: CHANGE_PREFIX, lt: CHANGE_END, limit: 1 })) {
      oldest = Number(k.slice(CHANGE_PREFIX.length));
    }
    const positions = new Map<string, number>();
    for await (const [k, v] of this.store.entries({ gte: POSITION_PREFIX, lt: `${PREFIX}p"` })) {
      positions.set(k, Number(v.toString('utf8')));
    }
    return { epoch, head, oldest, keepFrom, positions };
  }

  async #prune(s: State, now: number): Promise<void> {
    const { maxChanges, maxAgeDays } = this.retention;
    let keepFrom = s.oldest;
    if (s.head - s.oldest + 1 > maxChanges + Math.ceil(maxChanges / 10)) keepFrom = s.head - maxChanges + 1;
    if (now - this.#lastAgeCheck >= AGE_CHECK_MS) {
      this.#lastAgeCheck = now;
      const cutoff = now - maxAgeDays * 86_400_000;
      let scanned = 0;
      for await (const [k, v] of this.store.entries({ gte: changeKey(keepFrom), lt: CHANGE_END })) {
        if (decodeHeader(v).header.t >= cutoff || ++scanned > AGE_SCAN_LIMIT) break;
        keepFrom = Number(k.slice(CHANGE_PREFIX.length)) + 1;
      }
    }
    if (keepFrom <= s.oldest) return;
    // Readers learn the new bound first; one that was already reading sees the gap and says so.
    const from = s.oldest;
    s.oldest = keepFrom;
    // From the old bound, not the prefix: nothing is stored below it, and LevelDB would otherwise step
    // over the tombstones of every earlier prune that its compactions have not yet dropped.
    await this.store.clear({ gte: changeKey(from), lt: changeKey(keepFrom) });
  }

  #exclusive<T>(f: () => Promise<T>): Promise<T> {
    const p = this.#chain.then(f, f);
    this.#chain = p.catch(() => undefined);
    return p;
  }
}
