import type { BatchOp, RangeOptions, StoreBatch, StorePort } from '../../state/store-port.js';

/** An in-memory StorePort for fast unit tests (sorted by UTF-8 byte order like LevelDB). */
export function memoryStore(): StorePort {
  return scoped(new Map<string, Buffer>(), '');
}

function cmp(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
}

function scoped(map: Map<string, Buffer>, prefix: string): StorePort {
  const inRange = (k: string, r: RangeOptions) =>
    (r.gte === undefined || cmp(k, r.gte) >= 0) && (r.lt === undefined || cmp(k, r.lt) < 0);
  const keysIn = (r: RangeOptions) => {
    const ks = [...map.keys()]
      .filter((k) => k.startsWith(prefix))
      .map((k) => k.slice(prefix.length))
      .filter((k) => inRange(k, r))
      .sort(cmp);
    if (r.reverse) ks.reverse();
    return r.limit === undefined ? ks : ks.slice(0, r.limit);
  };
  const store: StorePort = {
    async get(key) {
      return map.get(prefix + key);
    },
    async getMany(keys) {
      return keys.map((k) => map.get(prefix + k));
    },
    async put(key, value) {
      map.set(prefix + key, value);
    },
    async del(key) {
      map.delete(prefix + key);
    },
    async batch(ops: readonly BatchOp[]) {
      // all or nothing, as a store batch: an operation that cannot be stored rejects the whole batch
      for (const op of ops) {
        if (op.type === 'put' && !(op.value instanceof Uint8Array)) throw new TypeError(`put ${op.key}: not a Buffer`);
      }
      for (const op of ops) {
        if (op.type === 'put') map.set(prefix + op.key, op.value);
        else map.delete(prefix + op.key);
      }
    },
    writeBatch(): StoreBatch {
      // copies as it goes, like the native batch: the caller may reuse a value's bytes after put
      const ops: BatchOp[] = [];
      let done = false;
      const open = () => {
        if (done) throw new Error('this batch was already written or discarded');
      };
      return {
        put(key, value) {
          open();
          ops.push({ type: 'put', key, value: Buffer.from(value) });
        },
        del(key) {
          open();
          ops.push({ type: 'del', key });
        },
        get length() {
          return ops.length;
        },
        async write() {
          open();
          done = true;
          await store.batch(ops);
        },
        async discard() {
          done = true;
        },
      };
    },
    async *entries(range: RangeOptions = {}) {
      for (const k of keysIn(range)) {
        const v = map.get(prefix + k);
        if (v !== undefined) yield [k, v] as [string, Buffer];
      }
    },
    async clear(range: RangeOptions = {}) {
      for (const k of keysIn(range)) map.delete(prefix + k);
    },
    sub(p: string) {
      return scoped(map, prefix + p);
    },
    async close() {},
  };
  return store;
}
