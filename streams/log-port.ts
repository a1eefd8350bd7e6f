/**
 * The log port: what processors, the generator, the importer and the API's materialiser need from a
 * partitioned, durable log with Kafka semantics. Adapters: embedded (classic-level) and Kafka (kafkajs).
 * Every adapter must pass test/contract/log-contract.ts.
 */

/** A topic's declared shape. `compacted` topics keep at least the latest record per key. */
export interface TopicSpec {
  name: string;
  partitions: number;
  compacted: boolean;
  /** Extra broker-side settings (e.g. min.compaction.lag.ms); adapters may ignore those they cannot honour. */
  config?: Readonly<Record<string, string>>;
}

/** A record to append. `value: null` is a tombstone (meaningful on compacted topics). */
export interface OutRecord {
  key: string;
  value: Buffer | null;
  /** Event time in epoch ms; defaults to the wall clock at append. */
  timestamp?: number;
  headers?: Readonly<Record<string, string>>;
  /** Explicit partition; by default murmur2(key) mod partitions, as Kafka's default partitioner does. */
  partition?: number;
}

/** A record read back from the log. */
export interface LogRecord {
  topic: string;
  partition: number;
  offset: number;
  key: string;
  value: Buffer | null;
  timestamp: number;
  headers: Readonly<Record<string, string>>;
}

export interface TopicPartition {
  topic: string;
  partition: number;
}

/** Start position per partition, keyed `${topic}:${partition}`; absent means "the group's committed offset, else the earliest". */
export type StartOffsets = ReadonlyMap<string, number>;

export interface ConsumeOptions {
  /** Consumer group id; committed offsets are stored per group. */
  group: string;
  topics: readonly string[];
  /**
   * Called when partitions are assigned to this consumer; may return start offsets (for a processor
   * that keeps its input positions in its own state store, committed atomically with its state).
   */
  startOffsets?: (assigned: readonly TopicPartition[]) => Promise<StartOffsets>;
  /**
   * Called when this member has left the group and holds no partition until `startOffsets` tells of
   * its next assignment (Kafka: it lost the broker, left, and joins again by itself; meanwhile the group
   * may give its partitions to others). The embedded log never leaves.
   */
  onLeave?: () => void;
  /** Stop once every assigned partition has reached the end offset it had when consumption began. */
  untilCaughtUp?: boolean;
  /** Upper bound on records per handler call. */
  maxBatchRecords?: number;
  /** Stops consumption after the current batch. */
  signal?: AbortSignal;
}

/**
 * One handler call. Records are in log order within a partition; across partitions the embedded
 * adapter interleaves by timestamp. After the handler resolves, the adapter commits, for the group,
 * the offset after the last record of each partition in the batch.
 */
export interface LogBatch {
  records: readonly LogRecord[];
}

export interface LogPort {
  /** Creates missing topics with the given specs; existing topics are left as they are. */
  ensureTopics(specs: readonly TopicSpec[]): Promise<void>;
  /** Number of partitions of an existing topic; throws a RacingError `unknown_topic` otherwise. */
  partitions(topic: string): Promise<number>;
  /**
   * Appends records; resolves when they are durable. Order is kept per partition, also across calls
   * made before the earlier ones resolved (they are written in call order). A call made before an
   * earlier one failed may still be written.
   */
  produce(topic: string, records: readonly OutRecord[]): Promise<void>;
  /** Next offset to be written per partition (the high watermark), index = partition. */
  endOffsets(topic: string): Promise<number[]>;
  /** Earliest readable offset per partition (after deletion or compaction of a prefix). */
  startOffsets(topic: string): Promise<number[]>;
  /** Reads up to `max` records of one partition from `offset` (records removed by compaction are skipped). */
  read(topic: string, partition: number, offset: number, max: number): Promise<LogRecord[]>;
  /** Consumes as a member of a consumer group; see ConsumeOptions and LogBatch. */
  consume(options: ConsumeOptions, handler: (batch: LogBatch) => Promise<void>): Promise<void>;
  /** The group's committed offsets for a topic, index = partition (0 when none). */
  committed(group: string, topic: string): Promise<number[]>;
  /** Forgets a group's committed offsets (operators' replay from the start). */
  resetGroup(group: string, topics: readonly string[]): Promise<void>;
  /** Removes every record of a topic, keeping the topic (used to drop derived outputs before a rebuild). */
  truncate(topic: string): Promise<void>;
  /** Runs compaction on a compacted topic now (the embedded adapter compacts on demand; Kafka's broker does it itself). */
  compact(topic: string): Promise<void>;
  close(): Promise<void>;
}
