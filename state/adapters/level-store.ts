/**
 * The classic-level (LevelDB) adapter of the StorePort. One database per data directory; `sub()` views
 * share it through plain key-prefix concatenation so a single atomic batch can never span two
 * databases and every component's keys stay in one LevelDB instance (one lock, one write-ahead log).
 */
import { ClassicLevel } from 'classic-level';
import { RacingError } from '../../domain/errors.js';
import type { BatchOp, RangeOptions, StoreBatch, StorePort } from '../store-port.js';

/** A StorePort over classic-level; `db` exposes the raw handle for diagnostics and maintenance only. */
export type LevelStore = StorePort & { readonly db: unknown };

type Db = ClassicLevel<string, Buffer>;

/**
 * LevelDB's 4 MiB default memtable stalls bulk appends (the embedded log writes 5 MiB batches) on L0
 * compactions within seconds; 64 MiB keeps 10k-op batches flowing at the cost of up to two memtables
 * (128 MiB) of RAM and a longer log replay on open after a crash.
 */
const WRITE_BUFFER_SIZE = 64 * 1024 * 1024;

/** Above every key: keys are UTF-8, whose bytes never reach 0xff. */
const ALL_KEYS_END = Buffer.alloc(8, 0xff);

/** Items per native `nextv` call: big enough to amortise the N-API round trip, small enough to stream. */
const ITERATOR_CHUNK = 1_000;

/**
 * Opens (creating if missing) a classic-level database at `path` with utf8 keys and Buffer values.
 * Throws a RacingError `store_locked` when another process (or another handle in this process) holds
 * the LevelDB lock of that directory.
 */
export async function openLevelStore(path: string): Promise<LevelStore> {
  const db: Db = new ClassicLevel<string, Buffer>(path, {
    keyEncoding: 'utf8',
    valueEncoding: 'buffer',
    writeBufferSize: WRITE_BUFFER_SIZE,
  });
  try {
    await db.open();
  } catch (err) {
    if (isLockedError(err)) {
      throw new RacingError('store_locked', `data dir ${path} is in use by another racing process`, {
        cause: err,
        details: { path },
      });
    }
    throw err;
  }
  const root = view(db, '', Buffer.alloc(0));
  return Object.assign(root, {
    db,
    async close() {
      await db.close();
    },
  });
}

function isLockedError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const { code } = err as Error & { code?: unknown };
  const cause = err.cause as (Error & { code?: unknown }) | undefined;
  return code === 'LEVEL_DATABASE_NOT_OPEN' && cause?.code === 'LEVEL_LOCKED';
}

/**
 * The smallest byte string greater than every string that starts with `prefix`, or undefined when no
 * such bound exists (empty prefix, or all 0xff). Computed on bytes, not code units, because LevelDB
 * orders by UTF-8 bytes and a string bound like `prefix + '\uffff'` would miss 4-byte characters.
 */
function prefixUpperBound(prefix: Buffer): Buffer | undefined {
  let end = prefix.length;
  while (end > 0 && prefix[end - 1] === 0xff) end--;
  if (end === 0) return undefined;
  const bound = Buffer.from(prefix.subarray(0, end));
  bound[end - 1] = bound[end - 1]! + 1;
  return bound;
}

interface NativeRange {
  gte: Buffer;
  lt?: Buffer;
  reverse: boolean;
  limit: number;
}

/**
 * Range bounds are passed to LevelDB as Buffers (keyEncoding 'buffer' per call) so that the prefix's
 * upper bound can be a byte string that is not valid UTF-8.
 */
function nativeRange(prefix: Buffer, range: RangeOptions): NativeRange | undefined {
  if (range.limit !== undefined && range.limit <= 0) return undefined;
  const gte = range.gte === undefined ? prefix : Buffer.concat([prefix, Buffer.from(range.gte, 'utf8')]);
  const lt = range.lt === undefined ? prefixUpperBound(prefix) : Buffer.concat([prefix, Buffer.from(range.lt, 'utf8')]);
  const out: NativeRange = { gte, reverse: range.reverse ?? false, limit: range.limit ?? -1 };
  if (lt !== undefined) out.lt = lt;
  return out;
}

function view(db: Db, prefix: string, prefixBytes: Buffer): StorePort {
  const k = (key: string) => prefix + key;
  const store: StorePort = {
    async get(key) {
      return db.get(k(key));
    },
    async getMany(keys) {
      if (keys.length === 0) return [];
      return db.getMany(keys.map(k));
    },
    async put(key, value) {
      await db.put(k(key), value);
    },
    async del(key) {
      await db.del(k(key));
    },
    async batch(ops: readonly BatchOp[]) {
      if (ops.length === 0) return;
      // A fresh array is needed anyway for the prefixed keys; building it in one pass keeps 10k+ op
      // batches cheap (abstract-level copies each op once more while encoding).
      const mapped = new Array<{ type: 'put'; key: string; value: Buffer } | { type: 'del'; key: string }>(ops.length);
      for (let i = 0; i < ops.length; i++) {
        const op = ops[i]!;
        mapped[i] =
          op.type === 'put' ? { type: 'put', key: k(op.key), value: op.value } : { type: 'del', key: k(op.key) };
      }
      await db.batch(mapped);
    },
    writeBatch(): StoreBatch {
      // classic-level's chained batch copies each operation into the native write batch as it is added
      const batch = db.batch();
      return {
        put(key, value) {
          batch.put(k(key), value);
        },
        del(key) {
          batch.del(k(key));
        },
        get length() {
          return batch.length;
        },
        async write() {
          if (batch.length === 0) await batch.close();
          else await batch.write();
        },
        async discard() {
          await batch.close();
        },
      };
    },
    async *entries(range: RangeOptions = {}) {
      const native = nativeRange(prefixBytes, range);
      if (native === undefined) return;
      const it = db.iterator<Buffer, Buffer>({ ...native, keyEncoding: 'buffer', valueEncoding: 'buffer' });
      try {
        for (;;) {
          const items = await it.nextv(ITERATOR_CHUNK);
          if (items.length === 0) return;
          for (const [key, value] of items) yield [key.toString('utf8', prefixBytes.length), value] as [string, Buffer];
        }
      } finally {
        await it.close();
      }
    },
    async clear(range: RangeOptions = {}) {
      const native = nativeRange(prefixBytes, range);
      if (native === undefined) return;
      await db.clear<Buffer>({ ...native, keyEncoding: 'buffer' });
      // A clear of a whole (sub)store drops what a rebuild or a reset replaces: compacted at once, its
      // deletions would otherwise stay as tombstones that every iterator over the range steps across
      // until LevelDB compacts them on its own (a one-year rebuild on a rebuilt data dir took 57 s
      // instead of 31; docs/performance-history.md, the twenty-second session). Bounded clears (the change
      // log's pruning of its oldest entries) are left to LevelDB's own compactions.
      if (range.gte === undefined && range.lt === undefined && range.limit === undefined) {
        await db.compactRange(native.gte, native.lt ?? ALL_KEYS_END, { keyEncoding: 'buffer' });
      }
    },
    sub(p: string) {
      return view(db, prefix + p, Buffer.from(prefix + p, 'utf8'));
    },
    // Closing a view must not close the shared database; only the root handle owns it.
    async close() {},
  };
  return store;
}
