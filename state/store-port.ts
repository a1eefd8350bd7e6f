/**
 * The state-store port: an ordered key-value store with atomic batches and range scans. Keys are
 * strings compared by UTF-8 bytes; values are Buffers. The classic-level adapter implements it; every
 * adapter must pass test/contract/store-contract.ts.
 */

export type BatchOp = { type: 'put'; key: string; value: Buffer } | { type: 'del'; key: string };

export interface RangeOptions {
  /** Inclusive lower bound. */
  gte?: string;
  /** Exclusive upper bound. */
  lt?: string;
  reverse?: boolean;
  limit?: number;
}

export interface StorePort {
  /** Value for a key, or undefined. */
  get(key: string): Promise<Buffer | undefined>;
  /** Values for several keys, in the same order (undefined where absent). */
  getMany(keys: readonly string[]): Promise<(Buffer | undefined)[]>;
  put(key: string, value: Buffer): Promise<void>;
  del(key: string): Promise<void>;
  /** Applies every operation or none. */
  batch(ops: readonly BatchOp[]): Promise<void>;
  /** Entries in key order within the range. */
  entries(range?: RangeOptions): AsyncIterable<[string, Buffer]>;
  /** Deletes every key in the range. */
  clear(range?: RangeOptions): Promise<void>;
  /** A view of this store under a key prefix; its keys are relative to the prefix. Same underlying database. */
  sub(prefix: string): StorePort;
  close(): Promise<void>;
}
