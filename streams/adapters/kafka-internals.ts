/**
 * The kafkajs internals the Kafka log relies on, typed and kept in one place (with kafka-fetch.ts).
 *
 * Why internals at all: kafkajs's public consumer has no manual assignment (no `assign()`) and its
 * fetch path flattens record batches into messages, so a fetch that returns nothing because a batch's
 * remaining records were compacted away looks exactly like one cut short by size limits. The port
 * needs random access (`read`) and exact positions (`consume`), so both fetch through kafkajs's own
 * Cluster/Broker/connection objects (kafka-fetch.ts). kafkajs also lacks OffsetDelete (forgetting one
 * topic's committed offsets), built here from its encoder and decoder, and its admin ListOffsets gives
 * up on a leader that is still taking over a new topic. kafkajs 2.2.4 is its last release;
 * `createCluster` fails with a clear message if a different version moved any of this.
 */
import { createRequire } from 'node:module';
import type { Kafka } from 'kafkajs';
import { RacingError } from '../../domain/errors.js';

const require = createRequire(import.meta.url);

/** kafkajs's protocol Decoder (src/protocol/decoder.js). */
export interface Decoder {
  offset: number;
  readInt8(): number;
  readInt16(): number;
  readInt32(): number;
  readInt64(): bigint;
  readString(): string;
  readBytes(length: number): Buffer;
  canReadBytes(length: number): boolean;
  readArray<T>(reader: (d: Decoder) => T): T[];
}

interface Encoder {
  writeInt32(n: number): Encoder;
  writeString(s: string): Encoder;
  writeArray(items: readonly (Encoder | number)[]): Encoder;
}

export interface RawRecord {
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  timestamp: string;
  headers: Record<string, Buffer | Buffer[] | undefined>;
}

/** A record batch as kafkajs's decoder returns it (src/protocol/recordBatch/v0/decoder.js). */
export interface RawBatch {
  firstOffset: string;
  lastOffsetDelta: number;
  isControlBatch: boolean;
  inTransaction: boolean;
  producerId: string;
  records: RawRecord[];
}

export interface ProtocolRequest {
  request: { apiKey: number; apiVersion: number; apiName: string; encode(): Promise<Encoder> };
  response: { decode(raw: Buffer): Promise<unknown>; parse(data: unknown): Promise<unknown> };
  requestTimeout?: number;
}

/** kafkajs's Broker (src/broker/index.js): the connections to one node. */
export interface KafkaJsBroker {
  versions: Record<number, { minVersion: number; maxVersion: number }> | null;
  connectionPool: { send(request: ProtocolRequest): Promise<unknown> };
  lookupRequest(apiKey: number, definitions: unknown): (args: Record<string, unknown>) => ProtocolRequest;
  deleteRecords(args: {
    topics: { topic: string; partitions: { partition: number; offset: string }[] }[];
  }): Promise<unknown>;
  disconnect(): Promise<void>;
}

/** kafkajs's Cluster (src/cluster/index.js): metadata, leaders and brokers of one client. */
export interface KafkaJsCluster {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  refreshMetadata(): Promise<void>;
  addMultipleTargetTopics(topics: string[]): Promise<void>;
  findLeaderForPartitions(topic: string, partitions: number[]): Record<string, number[]>;
  findBroker(args: { nodeId: string }): Promise<KafkaJsBroker>;
  findGroupCoordinator(args: { groupId: string }): Promise<KafkaJsBroker>;
  fetchTopicsOffset(
    topics: { topic: string; fromBeginning: boolean; partitions: { partition: number }[] }[],
  ): Promise<{ topic: string; partitions: { partition: number; offset: string }[] }[]>;
}

type ProtocolErrorFactory = (code: number) => Error & { type: string; retriable: boolean };

export const KafkaDecoder = require('kafkajs/src/protocol/decoder') as new (buffer: Buffer) => Decoder;
const KafkaEncoder = require('kafkajs/src/protocol/encoder') as new () => Encoder;
export const decodeRecordBatch = require('kafkajs/src/protocol/recordBatch/v0/decoder') as (
  d: Decoder,
) => Promise<RawBatch>;
export const { requests: kafkaRequests } = require('kafkajs/src/protocol/requests') as {
  requests: { Fetch: unknown };
};
export const kafkaApiKeys = require('kafkajs/src/protocol/requests/apiKeys') as { Fetch: number };
export const { createErrorFromCode } = require('kafkajs/src/protocol/error') as {
  createErrorFromCode: ProtocolErrorFactory;
};

export const READ_COMMITTED = 1;
const OFFSET_DELETE_API_KEY = 47;
const GROUP_ID_NOT_FOUND = 69;
const GROUP_SUBSCRIBED_TO_TOPIC = 86;
const ATTEMPTS = 6;

/**
 * A Cluster configured exactly like the clients of `kafka` (brokers, logger, retry, timeouts), built
 * through kafkajs's private factory because Cluster is not exported.
 */
export function createCluster(kafka: Kafka): KafkaJsCluster {
  const symbol = Object.getOwnPropertySymbols(kafka).find((s) => s.description === 'private:Kafka:createCluster');
  const factory = symbol === undefined ? undefined : (kafka as unknown as Record<symbol, unknown>)[symbol];
  if (typeof factory !== 'function') {
    throw new RacingError(
      'internal',
      'kafkajs internals changed (no private:Kafka:createCluster); the Kafka log needs kafkajs 2.2.x',
    );
  }
  return factory({
    metadataMaxAge: 300_000,
    allowAutoTopicCreation: false,
    maxInFlightRequests: null,
    isolationLevel: READ_COMMITTED,
  }) as KafkaJsCluster;
}

/** Thrown when metadata names no leader for a partition; refreshed metadata usually does. */
export class StaleMetadataError extends Error {
  override readonly name = 'StaleMetadataError';
}

const TRANSIENT_NAMES = new Set([
  'StaleMetadataError',
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSLockTimeout',
  'KafkaJSTopicMetadataNotLoaded',
]);

const STALE_METADATA_TYPES = new Set([
  'UNKNOWN_TOPIC_OR_PARTITION',
  'LEADER_NOT_AVAILABLE',
  'NOT_LEADER_FOR_PARTITION',
  'FENCED_LEADER_EPOCH',
  'UNKNOWN_LEADER_EPOCH',
  'KAFKA_STORAGE_ERROR',
]);

/** Protocol error codes of a partition that fresh metadata (a new leader) cures. */
export const STALE_METADATA_CODES = new Set([3, 5, 6, 56, 74, 75, 100]);

/** Errors that a retry with fresh metadata (a new leader, a new connection) usually cures. */
function isTransient(e: unknown): boolean {
  const err = e as { name?: string; type?: string } | null;
  return (
    TRANSIENT_NAMES.has(err?.name ?? '') ||
    STALE_METADATA_TYPES.has(err?.type ?? '') ||
    partitionErrorTypes(e).some((type) => STALE_METADATA_TYPES.has(type))
  );
}

/** Runs `attempt` until it succeeds, refreshing metadata with a short backoff after transient errors. */
export async function withFreshMetadata<T>(cluster: KafkaJsCluster, attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (e) {
      if (n >= ATTEMPTS || !isTransient(e)) throw e;
      await cluster.refreshMetadata().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, Math.min(2_000, 50 * 2 ** n)));
    }
  }
}

/** Partitions of `topic` grouped by the node that leads them; stale metadata if one has no leader. */
export async function leadersOf(
  cluster: KafkaJsCluster,
  topic: string,
  partitions: readonly number[],
): Promise<[string, number[]][]> {
  await cluster.addMultipleTargetTopics([topic]);
  const leaders = Object.entries(cluster.findLeaderForPartitions(topic, [...partitions]));
  if (leaders.reduce((n, [, ps]) => n + ps.length, 0) < partitions.length) {
    throw new StaleMetadataError(`no leader known for some partitions of ${topic}`);
  }
  return leaders;
}

/**
 * Earliest and next offsets of every partition (ListOffsets to the leaders). Unlike kafkajs's admin
 * call, a leader that is still taking over a new topic (NOT_LEADER_OR_FOLLOWER right after creation
 * in KRaft mode) is waited for with fresh metadata instead of failing the call.
 */
export function fetchWatermarks(
  cluster: KafkaJsCluster,
  topic: string,
  partitions: number,
): Promise<{ low: number[]; high: number[] }> {
  const list = Array.from({ length: partitions }, (_, partition) => ({ partition }));
  return withFreshMetadata(cluster, async () => {
    await cluster.addMultipleTargetTopics([topic]);
    const [high, low] = await Promise.all(
      [false, true].map((fromBeginning) => cluster.fetchTopicsOffset([{ topic, fromBeginning, partitions: list }])),
    );
    const read = (result: typeof high) => {
      const out = new Array<number>(partitions).fill(-1);
      for (const p of result?.find((t) => t.topic === topic)?.partitions ?? []) {
        if (p.partition < partitions) out[p.partition] = Number(p.offset);
      }
      if (out.includes(-1)) throw new StaleMetadataError(`no leader known for some partitions of ${topic}`);
      return out;
    };
    return { low: read(low), high: read(high) };
  });
}

/**
 * Deletes every record below `offset` in each partition (DeleteRecords to the leaders). Partition
 * errors come back as kafkajs's KafkaJSDeleteTopicRecordsError; `partitionErrorTypes` reads them.
 */
export function deleteRecords(
  cluster: KafkaJsCluster,
  topic: string,
  partitions: readonly { partition: number; offset: number }[],
): Promise<void> {
  return withFreshMetadata(cluster, async () => {
    const leaders = await leadersOf(
      cluster,
      topic,
      partitions.map((p) => p.partition),
    );
    await Promise.all(
      leaders.map(async ([nodeId, mine]) => {
        const broker = await cluster.findBroker({ nodeId });
        const entries = partitions.filter((p) => mine.includes(p.partition));
        await broker.deleteRecords({
          topics: [{ topic, partitions: entries.map((p) => ({ partition: p.partition, offset: String(p.offset) })) }],
        });
      }),
    );
  });
}

/** The per-partition error types of a KafkaJSDeleteTopicRecordsError (empty for other errors). */
export function partitionErrorTypes(e: unknown): string[] {
  const partitions = (e as { partitions?: { error?: { type?: string } }[] } | null)?.partitions;
  return Array.isArray(partitions) ? partitions.map((p) => p.error?.type ?? '') : [];
}

/**
 * Deletes a group's committed offsets of some partitions (OffsetDelete, KIP-496, Kafka 2.4+). The
 * broker refuses partitions of topics that active members are subscribed to; those come back in
 * `subscribed`.
 */
export async function deleteCommittedOffsets(
  cluster: KafkaJsCluster,
  groupId: string,
  topics: readonly { topic: string; partitions: readonly number[] }[],
): Promise<{ groupMissing: boolean; subscribed: string[] }> {
  const coordinator = await cluster.findGroupCoordinator({ groupId });
  if (coordinator.versions?.[OFFSET_DELETE_API_KEY] === undefined) {
    throw new RacingError('internal', 'the broker does not support OffsetDelete (Kafka 2.4+ is required)');
  }
  const request: ProtocolRequest = {
    request: {
      apiKey: OFFSET_DELETE_API_KEY,
      apiVersion: 0,
      apiName: 'OffsetDelete',
      encode: async () =>
        new KafkaEncoder()
          .writeString(groupId)
          .writeArray(topics.map((t) => new KafkaEncoder().writeString(t.topic).writeArray([...t.partitions]))),
    },
    response: {
      decode: async (raw) => {
        const d = new KafkaDecoder(raw);
        const errorCode = d.readInt16();
        d.readInt32(); // throttle time
        const results = d.readArray((td) => ({
          topic: td.readString(),
          partitions: td.readArray((pd) => ({ partition: pd.readInt32(), errorCode: pd.readInt16() })),
        }));
        return { errorCode, results, clientSideThrottleTime: 0 };
      },
      parse: async (data) => data,
    },
  };
  const response = (await coordinator.connectionPool.send(request)) as {
    errorCode: number;
    results: { topic: string; partitions: { partition: number; errorCode: number }[] }[];
  };
  if (response.errorCode === GROUP_ID_NOT_FOUND) return { groupMissing: true, subscribed: [] };
  if (response.errorCode !== 0) throw createErrorFromCode(response.errorCode);
  const subscribed = new Set<string>();
  for (const t of response.results) {
    for (const p of t.partitions) {
      if (p.errorCode === GROUP_SUBSCRIBED_TO_TOPIC) subscribed.add(t.topic);
      else if (p.errorCode !== 0) throw createErrorFromCode(p.errorCode);
    }
  }
  return { groupMissing: false, subscribed: [...subscribed] };
}
