/**
 * Fetches records of chosen partitions from chosen offsets, for `read` and `consume`.
 *
 * The request goes through kafkajs's own broker connections (see kafka-internals.ts for why), with a
 * response decoder that keeps what kafkajs's drops: the offset range of every record batch. That is
 * what lets a position move past records the broker compacted away (a batch can come back with only
 * some of its records, or none) while a fetch cut short by the size limit is never mistaken for the
 * end of the data.
 */
import { RacingError } from '../../domain/errors.js';
import type { LogRecord } from '../log-port.js';
import {
  createErrorFromCode,
  decodeRecordBatch,
  KafkaDecoder,
  kafkaApiKeys,
  type KafkaJsCluster,
  kafkaRequests,
  leadersOf,
  type RawBatch,
  type RawRecord,
  READ_COMMITTED,
  STALE_METADATA_CODES,
  StaleMetadataError,
  withFreshMetadata,
} from './kafka-internals.js';

export interface FetchTarget {
  topic: string;
  partition: number;
  offset: number;
}

export interface FetchedPartition {
  topic: string;
  partition: number;
  /** The offset was below the log start or beyond the log end; the fields below are then empty. */
  outOfRange: boolean;
  /** Records at or after the requested offset, control records and aborted transactions removed. */
  records: LogRecord[];
  /** Offset after the last complete batch returned; the requested offset when none was returned. */
  nextOffset: number;
  /** What the leader can serve now: its last stable offset (the high watermark without open transactions). */
  readableEnd: number;
}

export interface FetchOptions {
  /** How long the broker may wait for records when it has none (0: answer at once). */
  maxWaitMs: number;
  partitionMaxBytes: number;
}

/** The broker caps a fetch response at fetch.max.bytes (55 MiB by default). */
const MAX_RESPONSE_BYTES = 50 * 1_048_576;
const OFFSET_OUT_OF_RANGE = 1;
/** Record batch header: base offset (8), length (4), leader epoch (4), then the magic byte. */
const BATCH_LOG_OVERHEAD = 12;
const BATCH_MAGIC_OFFSET = 16;

/**
 * One fetch of the given partitions from their leaders (one request per leader, concurrently). Stale
 * metadata and lost connections are retried; other broker errors are thrown as kafkajs errors.
 */
export function fetchPartitions(
  cluster: KafkaJsCluster,
  targets: readonly FetchTarget[],
  options: FetchOptions,
): Promise<FetchedPartition[]> {
  const topics = [...new Set(targets.map((t) => t.topic))];
  return withFreshMetadata(cluster, async () => {
    const byLeader = new Map<string, FetchTarget[]>();
    for (const topic of topics) {
      const mine = targets.filter((t) => t.topic === topic);
      const leaders = await leadersOf(
        cluster,
        topic,
        mine.map((t) => t.partition),
      );
      for (const [nodeId, partitions] of leaders) {
        const list = byLeader.get(nodeId) ?? [];
        for (const p of partitions) list.push(mine.find((t) => t.partition === p)!);
        byLeader.set(nodeId, list);
      }
    }
    const perLeader = await Promise.all(
      [...byLeader].map(([nodeId, list]) => fetchFromBroker(cluster, nodeId, list, options)),
    );
    return perLeader.flat();
  });
}

async function fetchFromBroker(
  cluster: KafkaJsCluster,
  nodeId: string,
  targets: readonly FetchTarget[],
  options: FetchOptions,
): Promise<FetchedPartition[]> {
  const broker = await cluster.findBroker({ nodeId });
  const topics: { topic: string; partitions: { partition: number; fetchOffset: string; maxBytes: number }[] }[] = [];
  // Shuffled so that, when the response size limit cuts a fetch short, no partition is always last.
  for (const t of shuffle([...targets])) {
    let entry = topics.at(-1);
    if (entry?.topic !== t.topic) {
      entry = { topic: t.topic, partitions: [] };
      topics.push(entry);
    }
    entry.partitions.push({
      partition: t.partition,
      fetchOffset: String(t.offset),
      maxBytes: options.partitionMaxBytes,
    });
  }
  const protocol = broker.lookupRequest(
    kafkaApiKeys.Fetch,
    kafkaRequests.Fetch,
  )({
    replicaId: -1,
    isolationLevel: READ_COMMITTED,
    maxWaitTime: options.maxWaitMs,
    minBytes: 1,
    maxBytes: Math.min(MAX_RESPONSE_BYTES, options.partitionMaxBytes * targets.length),
    topics,
    rackId: '',
  });
  const version = protocol.request.apiVersion;
  if (version < 4)
    throw new RacingError('internal', `the broker only offers Fetch v${version}; the Kafka log needs v4+`);
  let decoded: FetchResponse;
  try {
    decoded = (await broker.connectionPool.send({
      ...protocol,
      response: { decode: (raw) => decodeFetchResponse(raw, version), parse: async (data) => data },
    })) as FetchResponse;
  } catch (e) {
    if (e instanceof Error && e.name === 'KafkaJSConnectionClosedError')
      await broker.disconnect().catch(() => undefined);
    throw e;
  }
  if (decoded.errorCode !== 0) throw createErrorFromCode(decoded.errorCode);
  const out: FetchedPartition[] = [];
  for (const topic of decoded.topics) {
    for (const p of topic.partitions) {
      const target = targets.find((t) => t.topic === topic.name && t.partition === p.partition);
      if (target === undefined) continue;
      if (STALE_METADATA_CODES.has(p.errorCode)) throw new StaleMetadataError(`partition ${topic.name}:${p.partition}`);
      if (p.errorCode === OFFSET_OUT_OF_RANGE) {
        out.push({
          ...target,
          outOfRange: true,
          records: [],
          nextOffset: target.offset,
          readableEnd: -1,
        });
        continue;
      }
      if (p.errorCode !== 0) throw createErrorFromCode(p.errorCode);
      out.push(toFetchedPartition(topic.name, target, p));
    }
  }
  return out;
}

function toFetchedPartition(topic: string, target: FetchTarget, p: PartitionResponse): FetchedPartition {
  const records: LogRecord[] = [];
  let nextOffset = target.offset;
  // READ_COMMITTED: a transactional batch is dropped while its producer has an aborted transaction
  // open, i.e. between that transaction's first offset and the producer's next control (abort) marker.
  const pendingAborts = [...p.abortedTransactions].sort((a, b) =>
    BigInt(a.firstOffset) < BigInt(b.firstOffset) ? -1 : 1,
  );
  const abortedProducers = new Set<string>();
  for (const batch of p.batches) {
    const first = BigInt(batch.firstOffset);
    const last = first + BigInt(batch.lastOffsetDelta);
    if (Number(last) + 1 > nextOffset) nextOffset = Number(last) + 1;
    while (pendingAborts.length > 0 && BigInt(pendingAborts[0]!.firstOffset) <= last) {
      abortedProducers.add(pendingAborts.shift()!.producerId);
    }
    if (batch.isControlBatch) {
      abortedProducers.delete(batch.producerId);
      continue;
    }
    if (batch.inTransaction && abortedProducers.has(batch.producerId)) continue;
    for (const r of batch.records) {
      const offset = Number(r.offset);
      if (offset < target.offset) continue;
      records.push({
        topic,
        partition: target.partition,
        offset,
        key: r.key === null ? '' : r.key.toString('utf8'),
        value: r.value,
        timestamp: Number(r.timestamp),
        headers: decodeHeaders(r.headers),
      });
    }
  }
  const highWatermark = Number(p.highWatermark);
  const lso = Number(p.lastStableOffset);
  return {
    topic,
    partition: target.partition,
    outOfRange: false,
    records,
    nextOffset,
    readableEnd: lso >= 0 ? Math.min(lso, highWatermark) : highWatermark,
  };
}

function decodeHeaders(raw: RawRecord['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) {
    if (v === undefined) continue;
    const last = Array.isArray(v) ? v.at(-1) : v;
    if (last !== undefined) out[k] = last.toString('utf8');
  }
  return out;
}

interface PartitionResponse {
  partition: number;
  errorCode: number;
  highWatermark: bigint;
  lastStableOffset: bigint;
  abortedTransactions: { producerId: string; firstOffset: string }[];
  batches: RawBatch[];
}

interface FetchResponse {
  clientSideThrottleTime: number;
  errorCode: number;
  topics: { name: string; partitions: PartitionResponse[] }[];
}

/**
 * Fetch response v4 to v11 (the versions kafkajs 2.2 implements from v4 on), keeping each record
 * batch's offset range. A batch cut off by the size limit ends the partition's data.
 */
async function decodeFetchResponse(raw: Buffer, version: number): Promise<FetchResponse> {
  const d = new KafkaDecoder(raw);
  const throttle = d.readInt32();
  const errorCode = version >= 7 ? d.readInt16() : 0;
  if (version >= 7) d.readInt32(); // session id
  const topicCount = d.readInt32();
  const topics: FetchResponse['topics'] = [];
  for (let t = 0; t < topicCount; t++) {
    const name = d.readString();
    const partitionCount = d.readInt32();
    const partitions: PartitionResponse[] = [];
    for (let i = 0; i < partitionCount; i++) {
      const partition = d.readInt32();
      const code = d.readInt16();
      const highWatermark = d.readInt64();
      const lastStableOffset = d.readInt64();
      if (version >= 5) d.readInt64(); // log start offset
      const abortedTransactions = d.readArray((a) => ({
        producerId: a.readInt64().toString(),
        firstOffset: a.readInt64().toString(),
      }));
      if (version >= 11) d.readInt32(); // preferred read replica
      const size = d.readInt32();
      const records = size > 0 ? d.readBytes(size) : Buffer.alloc(0);
      partitions.push({
        partition,
        errorCode: code,
        highWatermark,
        lastStableOffset,
        abortedTransactions,
        batches: await decodeBatches(records),
      });
    }
    topics.push({ name, partitions });
  }
  return { clientSideThrottleTime: throttle, errorCode, topics };
}

async function decodeBatches(records: Buffer): Promise<RawBatch[]> {
  const batches: RawBatch[] = [];
  const d = new KafkaDecoder(records);
  while (d.canReadBytes(BATCH_LOG_OVERHEAD)) {
    const length = records.readInt32BE(d.offset + 8);
    if (!d.canReadBytes(BATCH_LOG_OVERHEAD + length)) break;
    const magic = records.readInt8(d.offset + BATCH_MAGIC_OFFSET);
    if (magic !== 2) {
      throw new RacingError(
        'internal',
        `record batch with magic ${magic}: only the v2 record format (Kafka 0.11+) is supported`,
      );
    }
    batches.push(await decodeRecordBatch(d));
  }
  return batches;
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
