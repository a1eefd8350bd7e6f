/**
 * The Kafka LogPort: the same contract as the embedded log (test/contract/log-contract.ts), on Apache
 * Kafka through kafkajs. One admin client, one idempotent producer and one fetch client per log; each
 * `consume` call is its own consumer group member (kafka-consumer.ts).
 *
 * Where Kafka and the embedded log differ, this adapter keeps the port's meaning:
 * - keys are placed with murmur2 (domain/murmur2.ts) computed here, not by the client, so a key lands
 *   on the same partition number in both modes;
 * - topics it creates keep records until truncated (`retention.ms=-1` unless the spec sets it), as the
 *   embedded log does: event times go back to 1988 and time-based retention would delete them at once;
 * - `truncate` works on compacted topics too (Kafka refuses DeleteRecords there unless the policy also
 *   has `delete`, so the policy is widened for the call and restored);
 * - `compact` is a no-op: the broker's log cleaner compacts on its own schedule (min.compaction.lag.ms,
 *   min.cleanable.dirty.ratio), which the contract allows for.
 */
import { defaultPartition } from '../../domain/murmur2.js';
import { RacingError } from '../../domain/errors.js';
import type { Logger } from '../../domain/logger.js';
import type { ConsumeOptions, LogBatch, LogPort, LogRecord, OutRecord, TopicSpec } from '../log-port.js';
import { type Admin, Kafka, type Message } from 'kafkajs';
import { ProduceThread } from './kafka-produce-thread.js';
import { InlineSender, isGivenUp, type RecordSender } from './kafka-producer.js';
import { consumeGroup } from './kafka-consumer.js';
import { toRacingError } from './kafka-errors.js';
import { fetchPartitions } from './kafka-fetch.js';
import { createCluster, deleteCommittedOffsets, fetchWatermarks, type KafkaJsCluster } from './kafka-internals.js';
import { kafkaLogLevel, pinoLogCreator } from './kafka-logging.js';
import { deleteAllRecords, describeTopicConfig, topicConfigEntries } from './kafka-topics.js';

export interface KafkaLogOptions {
  /** Bootstrap brokers, `host:port`. */
  brokers: readonly string[];
  /** Client id the broker sees in its logs and quotas; default `racing`. */
  clientId?: string;
  logger: Logger;
  /** Startup fails with `broker_unreachable` when the brokers do not answer within this; default 10 s. */
  connectTimeoutMs?: number;
  /** Replication factor of the topics ensureTopics creates; default 1 (a single-broker development cluster). */
  replicationFactor?: number;
  /**
   * Produce from a worker thread (default, unless RACING_KAFKA_PRODUCE_THREAD=0): kafkajs's encoding of
   * the records then runs beside the caller's event loop instead of on it.
   */
  produceThread?: boolean;
}

/** The Kafka log: the LogPort plus what operators and tests need to inspect on the broker. */
export interface KafkaLog extends LogPort {
  readonly brokers: readonly string[];
  /** Every configuration entry of a topic as the broker reports it (describeConfigs), defaults included. */
  topicConfig(topic: string): Promise<Record<string, string>>;
}

/** Kafka's legal topic names (the same rule as the embedded log). */
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;
/** Partition counts are re-read after this, so partitions added by an operator are picked up. */
const METADATA_TTL_MS = 60_000;
/** Topics must show a leader for every partition within this after ensureTopics creates them. */
const TOPIC_READY_TIMEOUT_MS = 30_000;
/** Produce requests are cut so that no partition's batch nears the broker's 1 MiB max.message.bytes. */
const CHUNK_PARTITION_BYTES = 512 * 1024;
const CHUNK_REQUEST_BYTES = 4 * 1_048_576;
const RECORD_OVERHEAD_BYTES = 32;
const READ_MAX_FETCH_BYTES = 16 * 1_048_576;
/** Longer than the producer's own retries (~25 s): a send still pending then is taken as lost. */
const SEND_TIMEOUT_MS = 60_000;

/**
 * Connects to the brokers and returns the log. Fails with RacingError `broker_unreachable` (retriable)
 * when they do not answer within `connectTimeoutMs`.
 */
export async function createKafkaLog(options: KafkaLogOptions): Promise<KafkaLog> {
  const brokers = options.brokers.map((b) => b.trim()).filter((b) => b.length > 0);
  if (brokers.length === 0) throw new RacingError('config_invalid', 'the Kafka log needs at least one broker');
  const connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
  const logger = options.logger.child({ component: 'kafka-log' });
  const kafka = new Kafka({
    clientId: options.clientId ?? 'racing',
    brokers,
    connectionTimeout: Math.min(connectTimeoutMs, 3_000),
    requestTimeout: 30_000,
    retry: { initialRetryTime: 200, retries: 5, maxRetryTime: 5_000 },
    logLevel: kafkaLogLevel(logger),
    logCreator: pinoLogCreator(options.logger.child({ component: 'kafkajs' })),
  });
  const admin = kafka.admin();
  const reader = createCluster(kafka);
  // The producer runs in its own thread (kafka-produce-thread.ts) unless RACING_KAFKA_PRODUCE_THREAD=0;
  // the thread connects it at its first send, the brokers' reachability being checked here by the others.
  const thread =
    (options.produceThread ?? process.env['RACING_KAFKA_PRODUCE_THREAD'] !== '0')
      ? new ProduceThread(
          {
            clientId: options.clientId ?? 'racing',
            brokers: [...brokers],
            connectionTimeout: Math.min(connectTimeoutMs, 3_000),
            logLevel: kafkaLogLevel(logger),
          },
          logger,
          options.logger.child({ component: 'kafkajs' }),
        )
      : undefined;
  const inline = thread ? undefined : new InlineSender(kafka);
  const sender: RecordSender = thread ?? inline!;
  const connecting = Promise.all([admin.connect(), reader.connect(), inline?.connect()]);
  try {
    await withDeadline(connecting, connectTimeoutMs);
  } catch (cause) {
    connecting.catch(() => undefined);
    await Promise.allSettled([admin.disconnect(), reader.disconnect(), sender.close()]);
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new RacingError(
      'broker_unreachable',
      `Kafka broker(s) ${brokers.join(', ')} unreachable within ${connectTimeoutMs} ms: ${reason}`,
      { cause, retriable: true, details: { brokers } },
    );
  }
  logger.info({ brokers }, 'connected to Kafka');
  return new KafkaLogAdapter(kafka, admin, reader, sender, brokers, logger, options.replicationFactor ?? 1);
}

class KafkaLogAdapter implements KafkaLog {
  private readonly partitionCounts = new Map<string, { partitions: number; at: number }>();
  private readonly consuming = new Set<Promise<void>>();
  private readonly closing = new AbortController();
  private readonly produceLock = new Mutex();
  /**
   * Settles with the answer to the last send handed to a sender that queues (see produce): the sender
   * answers in order (a reset answers every send pending), so once it has settled every send has.
   */
  private lastAnswer: Promise<void> = Promise.resolve();
  private closed: Promise<void> | undefined;

  constructor(
    private readonly kafka: Kafka,
    private readonly admin: Admin,
    private readonly reader: KafkaJsCluster,
    private readonly sender: RecordSender,
    readonly brokers: readonly string[],
    private readonly logger: Logger,
    private readonly replicationFactor: number,
  ) {}

  async ensureTopics(specs: readonly TopicSpec[]): Promise<void> {
    this.assertOpen();
    const byName = new Map<string, TopicSpec>();
    for (const spec of specs) {
      if (!TOPIC_NAME.test(spec.name)) {
        throw new RacingError('validation_failed', `invalid topic name ${JSON.stringify(spec.name)}`);
      }
      if (!Number.isInteger(spec.partitions) || spec.partitions < 1 || spec.partitions > 9999) {
        throw new RacingError('validation_failed', `invalid partition count ${spec.partitions} for ${spec.name}`);
      }
      if (!byName.has(spec.name)) byName.set(spec.name, spec);
    }
    if (byName.size === 0) return;
    const configs = new Map([...byName.values()].map((s) => [s.name, topicConfigEntries(s)]));
    try {
      const existing = new Set(await this.admin.listTopics());
      const missing = [...byName.values()].filter((s) => !existing.has(s.name));
      if (missing.length > 0) {
        // Another instance may create the same topics concurrently: kafkajs resolves `false` when every
        // failure is TOPIC_ALREADY_EXISTS, and the wait below covers both cases.
        await this.admin.createTopics({
          waitForLeaders: false,
          topics: missing.map((s) => ({
            topic: s.name,
            numPartitions: s.partitions,
            replicationFactor: this.replicationFactor,
            configEntries: configs.get(s.name)!,
          })),
        });
        this.logger.info({ topics: missing.map((s) => s.name) }, 'created topics');
      }
      await this.waitForLeaders([...byName.values()], new Set(missing.map((s) => s.name)));
    } catch (e) {
      throw toRacingError(e, 'ensureTopics');
    }
  }

  /** Polls metadata until every partition of the topics has a leader (created topics: all of them). */
  private async waitForLeaders(specs: readonly TopicSpec[], created: ReadonlySet<string>): Promise<void> {
    const names = specs.map((s) => s.name);
    const deadline = Date.now() + TOPIC_READY_TIMEOUT_MS;
    let lastProblem = '';
    for (;;) {
      try {
        const { topics } = await this.admin.fetchTopicMetadata({ topics: names });
        const problems = specs.filter((spec) => {
          const meta = topics.find((t) => t.name === spec.name);
          if (meta === undefined || meta.partitions.length === 0) return true;
          if (created.has(spec.name) && meta.partitions.length < spec.partitions) return true;
          return meta.partitions.some((p) => p.leader < 0);
        });
        if (problems.length === 0) {
          // Metadata can name a leader before it serves the partition; ListOffsets waits for that.
          for (const spec of specs)
            if (created.has(spec.name)) await fetchWatermarks(this.reader, spec.name, spec.partitions);
          const now = Date.now();
          for (const t of topics) this.partitionCounts.set(t.name, { partitions: t.partitions.length, at: now });
          return;
        }
        lastProblem = `no leader yet for ${problems.map((s) => s.name).join(', ')}`;
      } catch (e) {
        lastProblem = (e as Error).message;
      }
      if (Date.now() > deadline) {
        throw new RacingError('internal', `topics not ready within ${TOPIC_READY_TIMEOUT_MS} ms: ${lastProblem}`, {
          retriable: true,
        });
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async partitions(topic: string): Promise<number> {
    this.assertOpen();
    const cached = this.partitionCounts.get(topic);
    if (cached !== undefined && Date.now() - cached.at < METADATA_TTL_MS) return cached.partitions;
    if (!TOPIC_NAME.test(topic)) throw unknownTopic(topic);
    try {
      const { topics } = await this.admin.fetchTopicMetadata({ topics: [topic] });
      const count = topics.find((t) => t.name === topic)?.partitions.length ?? 0;
      if (count === 0) throw unknownTopic(topic);
      this.partitionCounts.set(topic, { partitions: count, at: Date.now() });
      return count;
    } catch (e) {
      const error = toRacingError(e, `partitions of ${topic}`, { topic });
      throw error.code === 'unknown_topic' ? unknownTopic(topic) : error;
    }
  }

  /**
   * Produces in call order: a produce's requests are handed to the sender under the produce lock, one
   * produce after the other. A sender that queues (the produce thread) is handed the next produce's
   * requests while this one's are still unanswered (their answers are awaited after the lock), so a
   * caller that produces slices as it computes them needs no turn of its event loop between them.
   */
  async produce(topic: string, records: readonly OutRecord[]): Promise<void> {
    const { answered } = await this.produceLock.run(async () => {
      const n = await this.partitions(topic);
      if (records.length === 0) return { answered: undefined };
      const messages = toMessages(topic, records, n);
      this.assertOpen();
      const chunks = chunkBySize(messages);
      if (this.sender.queues) {
        const sends: Promise<void>[] = [];
        try {
          for (const chunk of chunks) {
            // Bounded: after a broker restart a send on the old connection can stay unanswered for
            // ever, and the processor's batch (and everything queued behind it) with it. The sender
            // sends one at a time, so a send's time runs from the answer to the one before it: the
            // time it waits in the queue behind other produces' sends is not held against it.
            const previous = this.lastAnswer;
            const sent = this.sender.send(topic, chunk);
            this.lastAnswer = sent.then(
              () => undefined,
              () => undefined,
            );
            sends.push(withDeadline(sent, SEND_TIMEOUT_MS, previous));
          }
        } catch (e) {
          // (a thread that cannot start, a buffer that cannot be had): the sends handed over are given up
          for (const p of sends) p.catch(() => undefined);
          throw this.sendFailed(e, topic);
        }
        return { answered: Promise.all(sends) };
      }
      try {
        for (const chunk of chunks) await withDeadline(this.sender.send(topic, chunk), SEND_TIMEOUT_MS);
      } catch (e) {
        throw this.sendFailed(e, topic);
      }
      return { answered: undefined };
    });
    if (answered === undefined) return;
    try {
      await answered;
    } catch (e) {
      throw this.sendFailed(e, topic);
    }
  }

  /** After a failed send: a new producer for the next one, and the failure as a RacingError. */
  private sendFailed(e: unknown, topic: string): RacingError {
    // A new producer for the next send, so that no sequence number of this one is reused (also while
    // a send with no answer is still running on it). Sends queued behind the failed one are not made.
    // A send that was only given up or not made (another send failed first) resets nothing more: the
    // failure that caused it did.
    if (!isGivenUp(e)) this.sender.reset();
    const error = toRacingError(e, `produce to ${topic}`, { topic });
    // A send that timed out is as retriable as a broker that refused the connection.
    if (/no answer within/.test(error.message) && !error.retriable) {
      return new RacingError('broker_unreachable', error.message, { cause: e, retriable: true, details: { topic } });
    }
    return error;
  }

  async endOffsets(topic: string): Promise<number[]> {
    return (await this.watermarks(topic)).high;
  }

  async startOffsets(topic: string): Promise<number[]> {
    return (await this.watermarks(topic)).low;
  }

  private async watermarks(topic: string): Promise<{ low: number[]; high: number[] }> {
    const n = await this.partitions(topic);
    try {
      return await fetchWatermarks(this.reader, topic, n);
    } catch (e) {
      throw toRacingError(e, `offsets of ${topic}`, { topic });
    }
  }

  async read(topic: string, partition: number, offset: number, max: number): Promise<LogRecord[]> {
    const n = await this.partitions(topic);
    if (!Number.isInteger(partition) || partition < 0 || partition >= n) {
      throw new RacingError('validation_failed', `partition ${partition} out of range for ${topic}`);
    }
    if (!Number.isSafeInteger(offset) || offset < 0 || !Number.isSafeInteger(max) || max < 0) {
      throw new RacingError('validation_failed', `read needs whole non-negative offset and max, got ${offset}, ${max}`);
    }
    const out: LogRecord[] = [];
    const partitionMaxBytes = Math.max(1_048_576, Math.min(READ_MAX_FETCH_BYTES, max * 2_048));
    let position = offset;
    try {
      while (out.length < max) {
        const [r] = await fetchPartitions(this.reader, [{ topic, partition, offset: position }], {
          maxWaitMs: 0,
          partitionMaxBytes,
        });
        if (r === undefined) break;
        if (r.outOfRange) {
          const earliest = (await this.watermarks(topic)).low[partition] ?? 0;
          if (position >= earliest) break;
          position = earliest;
          continue;
        }
        for (const record of r.records) {
          if (out.length >= max) break;
          out.push(record);
        }
        // The first batch of a single-partition fetch always comes back whole, so no progress means
        // the end of what the partition holds.
        if (r.nextOffset <= position || r.nextOffset >= r.readableEnd) break;
        position = r.nextOffset;
      }
    } catch (e) {
      throw toRacingError(e, `read ${topic}:${partition}`, { topic, partition });
    }
    return out;
  }

  async consume(options: ConsumeOptions, handler: (batch: LogBatch) => Promise<void>): Promise<void> {
    this.assertOpen();
    // Unknown topics fail here rather than inside a group join.
    for (const topic of new Set(options.topics)) await this.partitions(topic);
    if (options.topics.length === 0) {
      // Nothing to join: caught up at once, or idle until stopped (as the embedded log).
      if (!options.untilCaughtUp) await abortedOrClosed(options.signal, this.closing.signal);
      return;
    }
    const run = consumeGroup(
      {
        kafka: this.kafka,
        logger: this.logger,
        watermarks: (topic) => this.watermarks(topic),
        committedOffsets: (group, topic) => this.committedOffsets(group, topic),
        closing: this.closing.signal,
      },
      options,
      handler,
    );
    this.consuming.add(run);
    try {
      await run;
    } finally {
      this.consuming.delete(run);
    }
  }

  async committed(group: string, topic: string): Promise<number[]> {
    return (await this.committedOffsets(group, topic)).map((o) => Math.max(o, 0));
  }

  private async committedOffsets(group: string, topic: string): Promise<number[]> {
    const n = await this.partitions(topic);
    try {
      const [result] = await this.admin.fetchOffsets({ groupId: group, topics: [topic] });
      const out = new Array<number>(n).fill(-1);
      for (const p of result?.partitions ?? []) if (p.partition < n) out[p.partition] = Number(p.offset);
      return out;
    } catch (e) {
      throw toRacingError(e, `committed offsets of ${group} on ${topic}`, { group, topic });
    }
  }

  /**
   * Deletes the group's committed offsets of these topics (OffsetDelete), leaving its offsets of other
   * topics alone. Kafka only allows it while no member of the group is running.
   */
  async resetGroup(group: string, topics: readonly string[]): Promise<void> {
    const targets: { topic: string; partitions: number[] }[] = [];
    for (const topic of new Set(topics)) {
      targets.push({ topic, partitions: range(await this.partitions(topic)) });
    }
    if (targets.length === 0) return;
    const active = (members: number) =>
      new RacingError(
        'validation_failed',
        `cannot reset consumer group ${group}: it has ${members > 0 ? members : 'active'} running member(s); stop its consumers first`,
        { retriable: true, details: { group, members } },
      );
    try {
      const { groups } = await this.admin.describeGroups([group]);
      const members = groups[0]?.members.length ?? 0;
      if (members > 0) throw active(members);
      for (let attempt = 1; ; attempt++) {
        try {
          const result = await deleteCommittedOffsets(this.reader, group, targets);
          if (result.subscribed.length > 0) throw active(0);
          return;
        } catch (e) {
          const type = (e as { type?: string }).type ?? '';
          if (attempt >= 5 || !/COORDINATOR/.test(type)) throw e;
          await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
        }
      }
    } catch (e) {
      throw toRacingError(e, `resetGroup ${group}`, { group });
    }
  }

  async truncate(topic: string): Promise<void> {
    await this.partitions(topic);
    try {
      const { low, high } = await this.watermarks(topic);
      const partitions = high
        .map((offset, partition) => ({ partition, offset }))
        .filter((p) => p.offset > (low[p.partition] ?? 0));
      if (partitions.length > 0) await deleteAllRecords(this.admin, this.reader, topic, partitions);
    } catch (e) {
      throw toRacingError(e, `truncate ${topic}`, { topic });
    }
  }

  async compact(topic: string): Promise<void> {
    // The broker's log cleaner compacts compacted topics on its own schedule; nothing to trigger.
    await this.partitions(topic);
  }

  async topicConfig(topic: string): Promise<Record<string, string>> {
    await this.partitions(topic);
    try {
      const config = await describeTopicConfig(this.admin, topic);
      return Object.fromEntries([...config].map(([name, e]) => [name, e.value]));
    } catch (e) {
      throw toRacingError(e, `config of ${topic}`, { topic });
    }
  }

  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing.abort();
      // Consumers stop after their current batch; their failures belong to their own callers.
      await Promise.allSettled([...this.consuming]);
      await this.produceLock.run(async () => undefined);
      await this.lastAnswer;
      await Promise.allSettled([this.sender.close(), this.admin.disconnect(), this.reader.disconnect()]);
      this.logger.debug('Kafka log closed');
    })();
    return this.closed;
  }

  private assertOpen(): void {
    if (this.closed !== undefined) throw new RacingError('internal', 'the Kafka log is closed');
  }
}

/** The records as kafkajs messages, each with its partition (the key's default one unless given). */
function toMessages(topic: string, records: readonly OutRecord[], n: number): (Message & { partition: number })[] {
  const now = Date.now();
  return records.map((r) => {
    const partition = r.partition ?? defaultPartition(r.key, n);
    if (!Number.isInteger(partition) || partition < 0 || partition >= n) {
      throw new RacingError('validation_failed', `partition ${partition} out of range for ${topic} (${n} partitions)`);
    }
    const message: Message & { partition: number } = {
      key: r.key,
      value: r.value,
      partition,
      timestamp: String(r.timestamp ?? now),
    };
    if (r.headers !== undefined) message.headers = { ...r.headers };
    return message;
  });
}

/** Splits messages into produce requests small enough for the broker's batch and request limits. */
function chunkBySize<M extends Message & { partition: number }>(messages: readonly M[]): M[][] {
  const chunks: M[][] = [];
  let current: M[] = [];
  let total = 0;
  const perPartition = new Map<number, number>();
  for (const m of messages) {
    let size = RECORD_OVERHEAD_BYTES + Buffer.byteLength(String(m.key ?? ''));
    if (Buffer.isBuffer(m.value)) size += m.value.length;
    for (const [k, v] of Object.entries(m.headers ?? {})) size += k.length + String(v ?? '').length + 8;
    const used = perPartition.get(m.partition) ?? 0;
    if (current.length > 0 && (used + size > CHUNK_PARTITION_BYTES || total + size > CHUNK_REQUEST_BYTES)) {
      chunks.push(current);
      current = [];
      total = 0;
      perPartition.clear();
    }
    current.push(m);
    total += size;
    perPartition.set(m.partition, (perPartition.get(m.partition) ?? 0) + size);
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

function unknownTopic(topic: string): RacingError {
  return new RacingError('unknown_topic', `unknown topic ${topic}`, { details: { topic } });
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

function abortedOrClosed(...signals: (AbortSignal | undefined)[]): Promise<void> {
  return new Promise((resolve) => {
    const live = signals.filter((s): s is AbortSignal => s !== undefined);
    if (live.some((s) => s.aborted)) return resolve();
    for (const s of live) s.addEventListener('abort', () => resolve(), { once: true });
  });
}

/**
 * `promise`, or a failure `ms` after `from` settled if it has not settled by then (by default the timer
 * starts now).
 */
function withDeadline<T>(promise: Promise<T>, ms: number, from: Promise<unknown> = Promise.resolve()): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  const timeout = new Promise<never>((_, reject) => {
    void from.then(() => {
      if (!done) timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    });
  });
  return Promise.race([promise, timeout]).finally(() => {
    done = true;
    clearTimeout(timer);
  });
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
