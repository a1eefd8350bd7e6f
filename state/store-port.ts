/**
 * The state-store port: an ordered key-value store with atomic batches and range scans. Keys are
 * strings compared by UTF-8 bytes; values are Buffers. The classic-level adapter implements it; every
 * adapter must pass test/contract/store-contract.ts.
 */

export type BatchOp = { type: 'put'; key: string; value: Buffer } | { type: 'del'; key: string };

/**
 * An atomic batch built one operation at a time (StorePort.writeBatch): a writer with very many
 * operations (a checkpoint of a long replay has hundreds of thousands) hands each over as it makes it,
 * rather than holding them all as objects first. Nothing is visible until `write` resolves, and then
 * all of it is. Each key and value is copied when it is added, so the caller may reuse their bytes.
 */
export interface StoreBatch {
  put(key: string, value: Buffer): void;
  del(key: string): void;
  /** operations added so far */
  readonly length: number;
  /** Applies every operation added, or none. A batch is written (or discarded) once. */
  write(): Promise<void>;
  /** Drops the batch unwritten (after a failure while filling it in). */
  discard(): Promise<void>;
}

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
  /** A batch to fill in operation by operation, then write as one (see StoreBatch). */
  writeBatch(): StoreBatch;
  /** Entries in key order within the range. */
  entries(range?: RangeOptions): AsyncIterable<[string, Buffer]>;
  /**
   * Deletes every key in the range. Without bounds (the whole store or sub-store, as a rebuild or a
   * reset does) the space is reclaimed before it resolves, so that reads after it cost what they cost
   * on a new store (LevelDB: the range compacted, no tombstones left to step over).
   */
  clear(range?: RangeOptions): Promise<void>;
  /** A view of this store under a key prefix; its keys are relative to the prefix. Same underlying database. */
  sub(prefix: string): StorePort;
  close(): Promise<void>;
}
