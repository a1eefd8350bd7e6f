/**
 * `LogPort.consume` on Kafka: one member of a consumer group.
 *
 * kafkajs does the group protocol (join, sync, heartbeats, rebalances, commits with the member's
 * generation), but every partition it is assigned is paused the moment the assignment arrives, so
 * its own fetch loop never fetches and only keeps the member alive. Records are fetched here from
 * explicit positions (see kafka-internals.ts), which is what makes the port's semantics exact:
 *
 * - positions on assignment: `startOffsets(assigned)`, else this run's own position for a partition
 *   it keeps across a rebalance, else the group's committed offset, else the earliest offset;
 * - batches of up to `maxBatchRecords`, partitions interleaved by record timestamp as far as the
 *   fetched records allow (as the embedded log does), log order kept within a partition;
 * - after the handler resolves, the offset after the last record of each partition in the batch is
 *   committed; a handler error rejects without committing that batch;
 * - `untilCaughtUp` stops at the end offsets each partition had when it was first assigned.
 *
 * A broker outage does not end the call: when fetches, commits or kafkajs's own group loop fail for
 * a reason that can pass (broker unreachable, leader moving; kafkajs gives up after its retry budget
 * of a few seconds), the member leaves, waits with an exponential backoff (1 s doubling to 15 s) and
 * joins again, resuming every partition it gets back from this run's own position. Only the
 * caller's errors (handler, startOffsets) and errors that cannot pass end it.
 *
 * kafkajs never restarts a crashed consumer by itself here (`restartOnFailure` says no): a crash is a
 * failure of this member like any other, and the member rejoins with a fresh consumer. Left to itself,
 * kafkajs restarts a crashed consumer from a timer, and a restart still joining when the consumer is
 * disconnected escapes the disconnect (kafkajs drops its handle on the runner, then the join
 * completes): a ghost member, heartbeating for ever and holding partitions that no code reads. Seen
 * after a broker restart: ghosts in an instance's own groups held its input partitions (its processor
 * and view idle for good, without an error), and a ghost in the shared `racing-analytics` group held
 * race partitions that no instance emitted.
 *
 * Heartbeats come from kafkajs's loop, not from this one, so a slow handler never costs the member
 * its place in the group. The price is at-least-once across members during a rebalance: a partition
 * can move to another member while a batch of it is in the handler here; that batch's commit is then
 * skipped and the new owner re-delivers it. Within one run nothing is lost or delivered twice: a
 * partition kept across a rebalance continues from this run's position.
 */
import type { Consumer, ConsumerCrashEvent, ConsumerGroupJoinEvent, Kafka } from 'kafkajs';
import { RacingError } from '../../domain/errors.js';
import type { Logger } from '../../domain/logger.js';
import type { ConsumeOptions, LogBatch, LogRecord, TopicPartition } from '../log-port.js';
import { toRacingError } from './kafka-errors.js';
import { fetchPartitions } from './kafka-fetch.js';
import { createCluster, type KafkaJsCluster } from './kafka-internals.js';

/** What the consumer needs from the log's admin client. */
export interface ConsumerDeps {
  kafka: Kafka;
  logger: Logger;
  /** Low and high watermarks per partition. */
  watermarks(topic: string): Promise<{ low: number[]; high: number[] }>;
  /** The group's committed offsets per partition, -1 where none. */
  committedOffsets(group: string, topic: string): Promise<number[]>;
  /** Aborted when the log closes: the consumer stops after its current batch. */
  closing: AbortSignal;
}

export const DEFAULT_MAX_BATCH = 5_000;
/** A tailing fetch waits this long at the broker for new records (bounds the reaction to an abort). */
const LONG_POLL_MS = 500;
/** Per-partition fetch size: a whole producer batch (max.message.bytes is 1 MiB by default) fits. */
const PARTITION_FETCH_BYTES = 2 * 1_048_576;
/** How long a partition positioned beyond its end waits before it is fetched again. */
const PARKED_MS = 1_000;
/** The first assignment must arrive within this; later rebalances are bounded by the broker. */
const FIRST_JOIN_TIMEOUT_MS = 60_000;
/** kafkajs's paused fetch loop sleeps this long per round: it paces heartbeats and bounds disconnect. */
const IDLE_LOOP_MS = 200;
/** Rejoining after an outage: first wait, doubling up to the cap (plus up to 20% jitter). */
const REJOIN_FIRST_MS = 1_000;
const REJOIN_MAX_MS = 15_000;
/** A member that ran this long before it failed starts its backoff over. */
const BACKOFF_RESET_MS = 60_000;
/** A consumer left behind that joins the group anyway is made to leave after this (see `start`). */
const GHOST_LEAVE_DELAY_MS = 100;
/** Leaving the group while the broker is away must not hold up the rejoin for kafkajs's own timeouts. */
const LEAVE_TIMEOUT_MS = 5_000;
/**
 * A fetch that has not answered this long after its long-poll wait is taken as a lost connection (a
 * request on a connection the broker dropped while restarting could otherwise wait for ever).
 */
const FETCH_STALL_MS = 30_000;
/**
 * Waiting this long for kafkajs to complete a rebalance it started means it is not coming back (seen
 * after a broker restart): the member starts over with a fresh consumer. Longer than the group's
 * rebalance timeout (60 s), so a slow but healthy rebalance is never cut short.
 */
const REJOIN_STALL_MS = 75_000;

const COMMIT_RETRY_LATER = new Set([
  'REBALANCE_IN_PROGRESS',
  'ILLEGAL_GENERATION',
  'UNKNOWN_MEMBER_ID',
  'NOT_COORDINATOR',
  'NOT_COORDINATOR_FOR_GROUP',
  'COORDINATOR_NOT_AVAILABLE',
  'GROUP_COORDINATOR_NOT_AVAILABLE',
  'COORDINATOR_LOAD_IN_PROGRESS',
  'GROUP_LOAD_IN_PROGRESS',
]);

const TRANSIENT_ERRORS = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSLockTimeout',
  'KafkaJSBrokerNotFound',
]);

interface PartitionState {
  readonly topic: string;
  readonly partition: number;
  readonly topicIndex: number;
  /** Offset after the last record handed to the handler: what a commit records. */
  delivered: number;
  /** Next offset to fetch; ahead of `delivered` while records are buffered. */
  fetchPos: number;
  buffer: LogRecord[];
  head: number;
  /** What the partition's leader could serve at the last fetch (its last stable offset). */
  readableEnd: number;
  parkedUntil: number;
}

const keyOf = (tp: { topic: string; partition: number }) => `${tp.topic}:${tp.partition}`;

/** Runs one `consume` call to completion; see the module comment for the semantics. */
export async function consumeGroup(
  deps: ConsumerDeps,
  options: ConsumeOptions,
  handler: (batch: LogBatch) => Promise<void>,
): Promise<void> {
  const member = new GroupMember(deps, options, handler);
  await member.run();
}

class GroupMember {
  private readonly topics: string[];
  private readonly maxBatch: number;
  private readonly logger: Logger;
  private consumer: Consumer;
  private cluster: KafkaJsCluster;
  private readonly parts = new Map<string, PartitionState>();
  /** untilCaughtUp: end offsets captured when each partition was first assigned to this run. */
  private readonly stopAt = new Map<string, number>();
  /** Delivered positions whose commit has not succeeded yet (e.g. refused during a rebalance). */
  private readonly uncommitted = new Map<string, number>();
  /** Latest assignment reported by kafkajs, and a counter of assignments (bumped on every join). */
  private assignment: TopicPartition[] = [];
  private generation = 0;
  private applied = 0;
  private rebalancing = false;
  /** when the member last started waiting for an assignment (a rebalance kafkajs started) */
  private waitingSince = 0;
  /**
   * The group's leader (this member) assigned itself nothing. Right after a broker restart kafkajs can
   * compute the assignment from metadata that lists no partitions yet, and every member then holds an
   * empty assignment for good; see applyAssignment.
   */
  private emptyAsLeader = false;
  private fatal: Error | undefined;
  private wakers: (() => void)[] = [];
  private readonly wake = () => {
    const wakers = this.wakers;
    this.wakers = [];
    for (const w of wakers) w();
  };

  constructor(
    private readonly deps: ConsumerDeps,
    private readonly options: ConsumeOptions,
    private readonly handler: (batch: LogBatch) => Promise<void>,
  ) {
    this.topics = [...new Set(options.topics)];
    this.maxBatch = options.maxBatchRecords ?? DEFAULT_MAX_BATCH;
    if (!Number.isInteger(this.maxBatch) || this.maxBatch < 1) {
      throw new RacingError('validation_failed', `maxBatchRecords must be a positive integer, got ${this.maxBatch}`);
    }
    this.logger = deps.logger.child({ component: 'kafka-consumer', group: options.group });
    this.consumer = this.newConsumer();
    this.cluster = createCluster(deps.kafka);
  }

  private newConsumer(): Consumer {
    return this.deps.kafka.consumer({
      groupId: this.options.group,
      // Heartbeats come from kafkajs's own loop every second whatever the handler does, so a short
      // session is safe, and it bounds how long a dead member (kill -9, an outage) holds its partitions.
      sessionTimeout: 10_000,
      rebalanceTimeout: 60_000,
      heartbeatInterval: 1_000,
      maxWaitTimeInMs: IDLE_LOOP_MS,
      allowAutoTopicCreation: false,
      // No restarts of kafkajs's own (see the module comment): a crash ends this consumer, and the
      // member joins again with a new one, so no join is ever in flight when a consumer is let go.
      retry: { retries: 5, restartOnFailure: async () => false },
    });
  }

  async run(): Promise<void> {
    if (this.stopping()) return;
    const onAbort = this.wake;
    this.options.signal?.addEventListener('abort', onAbort);
    this.deps.closing.addEventListener('abort', onAbort);
    try {
      for (let attempt = 0, failures = 0; ; attempt++) {
        const startedAt = Date.now();
        let failure: unknown;
        try {
          await this.start();
          await this.loop();
        } catch (e) {
          failure = e;
        }
        await this.stop(attempt > 0 || failure !== undefined);
        // The caller's own errors (handler, startOffsets) come back unchanged, as on the embedded log.
        if (failure instanceof CallerError) throw failure.error;
        if (failure === undefined) return;
        const error = toRacingError(failure, `consume (group ${this.options.group})`);
        if (!error.retriable || this.stopping()) throw error;
        this.options.onLeave?.();
        // The backoff starts over after a while in the group, and after an answer from the broker (a
        // coordinator still loading): it is there, so the next join is worth trying soon.
        failures = Date.now() - startedAt > BACKOFF_RESET_MS || brokerAnswered(failure) ? 1 : failures + 1;
        const wait =
          Math.min(REJOIN_MAX_MS, REJOIN_FIRST_MS * 2 ** Math.min(failures - 1, 10)) * (1 + Math.random() * 0.2);
        this.logger.warn(
          { err: error.message, code: error.code, retryInMs: Math.round(wait), attempt: attempt + 1 },
          'consumer lost the broker; rejoining the group after a backoff',
        );
        await this.sleep(wait);
        if (this.stopping()) return;
        this.rejoining();
      }
    } finally {
      this.options.signal?.removeEventListener('abort', onAbort);
      this.deps.closing.removeEventListener('abort', onAbort);
    }
  }

  /**
   * A fresh kafkajs consumer and fetch cluster for the next join. Positions (`delivered`), pending
   * commits and the untilCaughtUp targets stay: the partitions this member gets back continue there.
   */
  private rejoining(): void {
    this.consumer = this.newConsumer();
    this.cluster = createCluster(this.deps.kafka);
    this.fatal = undefined;
    this.rebalancing = true; // wait for the new join's assignment before fetching again
    for (const s of this.parts.values()) {
      s.fetchPos = s.delivered; // what was fetched and not delivered is fetched again
      s.buffer = [];
      s.head = 0;
    }
  }

  private async start(): Promise<void> {
    const consumer = this.consumer;
    const { GROUP_JOIN, REBALANCING, CRASH } = consumer.events;
    // A consumer left behind by a rejoin (its disconnect timed out) may still report; it is ignored.
    const current = () => consumer === this.consumer;
    // kafkajs calls listeners synchronously from inside its join: pausing here happens before its
    // fetch loop runs again, and a throw here would fail the join, hence the try.
    consumer.on(GROUP_JOIN, (event: ConsumerGroupJoinEvent) => {
      if (!current()) {
        // Left behind yet in the group (a rebalance of its own completing while it was let go): it
        // must not hold partitions. Once kafkajs has marked it running, a disconnect leaves the group.
        this.logger.warn({ memberId: event.payload.memberId }, 'a consumer left behind joined the group; leaving');
        setTimeout(() => void consumer.disconnect().catch(() => undefined), GHOST_LEAVE_DELAY_MS);
        return;
      }
      try {
        consumer.pause(this.topics.map((topic) => ({ topic })));
        this.assignment = Object.entries(event.payload.memberAssignment).flatMap(([topic, partitions]) =>
          partitions.map((partition) => ({ topic, partition })),
        );
        this.generation += 1;
        this.rebalancing = false;
        this.emptyAsLeader = this.assignment.length === 0 && event.payload.isLeader;
      } catch (e) {
        this.fatal = toRacingError(e, `consume (group ${this.options.group}): pausing the assigned partitions`);
      }
      this.wake();
    });
    consumer.on(REBALANCING, () => {
      if (!current()) return;
      if (!this.rebalancing) this.waitingSince = Date.now();
      this.rebalancing = true;
      this.wake();
    });
    consumer.on(CRASH, (event: ConsumerCrashEvent) => {
      if (!current()) return;
      // kafkajs has disconnected the consumer (it never restarts one here): this member rejoins with
      // a new one after a backoff when kafkajs would have restarted, and fails otherwise.
      const error = toRacingError(event.payload.error, `consume (group ${this.options.group})`);
      this.fatal = error.retriable || !kafkaWouldRestart(event.payload.error) ? error : retriable(error);
      this.wake();
    });
    await this.cluster.connect();
    await consumer.connect();
    await consumer.subscribe({ topics: this.topics, fromBeginning: true });
    await consumer.run({ autoCommit: false, eachBatchAutoResolve: false, eachBatch: async () => undefined });
  }

  private stopping(): boolean {
    return this.options.signal?.aborted === true || this.deps.closing.aborted;
  }

  private async loop(): Promise<void> {
    const joinDeadline = Date.now() + FIRST_JOIN_TIMEOUT_MS;
    const joinedBefore = this.generation;
    for (;;) {
      if (this.fatal !== undefined) throw this.fatal;
      if (this.stopping()) return;
      if (this.generation === 0 || this.rebalancing) {
        if (this.generation !== joinedBefore && Date.now() - this.waitingSince > REJOIN_STALL_MS) {
          throw new RacingError(
            'broker_unreachable',
            `consume (group ${this.options.group}): no new assignment within ${REJOIN_STALL_MS} ms of a rebalance`,
            { retriable: true },
          );
        }
        if (this.generation === joinedBefore && Date.now() > joinDeadline) {
          throw new RacingError(
            'broker_unreachable',
            `consume (group ${this.options.group}): no partition assignment within ${FIRST_JOIN_TIMEOUT_MS} ms`,
            { retriable: true },
          );
        }
        await this.sleep(1_000);
        continue;
      }
      if (this.applied !== this.generation) {
        await this.applyAssignment();
        continue;
      }
      if (this.options.untilCaughtUp && this.caughtUp()) return;
      const generation = this.generation;
      const records = await this.assemble();
      // An assignment that changed meanwhile resets every position from `delivered`, so dropping
      // what was assembled loses nothing.
      if (generation !== this.generation || this.rebalancing || this.fatal !== undefined) continue;
      if (records.length === 0) {
        await this.poll();
        continue;
      }
      await this.deliver(records);
    }
  }

  private async applyAssignment(): Promise<void> {
    const generation = this.generation;
    if (this.emptyAsLeader) {
      const partitions = await Promise.all(this.topics.map(async (t) => (await this.deps.watermarks(t)).high.length));
      if (partitions.some((n) => n > 0)) {
        // Join again with a fresh client (and so fresh metadata): the rejoin path's backoff applies.
        throw new RacingError(
          'broker_unreachable',
          `consume (group ${this.options.group}): the group's leader assigned no partition of ${this.topics.join(', ')}; ` +
            'its metadata was incomplete (a broker restarting?)',
          { retriable: true },
        );
      }
    }
    const order = (tp: TopicPartition) => this.topics.indexOf(tp.topic);
    const assigned = [...this.assignment].sort((a, b) => order(a) - order(b) || a.partition - b.partition);
    const owned = new Set(assigned.map(keyOf));
    for (const key of this.parts.keys()) if (!owned.has(key)) this.parts.delete(key);
    await this.commitPending();
    const explicit = this.options.startOffsets
      ? await this.options.startOffsets(assigned).catch((e: unknown) => Promise.reject(new CallerError(e)))
      : new Map<string, number>();
    const topics = [...new Set(assigned.map((tp) => tp.topic))];
    const info = new Map(
      await Promise.all(
        topics.map(
          async (topic) =>
            [
              topic,
              {
                ...(await this.deps.watermarks(topic)),
                committed: await this.deps.committedOffsets(this.options.group, topic),
              },
            ] as const,
        ),
      ),
    );
    if (generation !== this.generation) return;
    for (const tp of assigned) {
      const key = keyOf(tp);
      const topicInfo = info.get(tp.topic)!;
      const low = topicInfo.low[tp.partition] ?? 0;
      const high = topicInfo.high[tp.partition] ?? 0;
      const committed = topicInfo.committed[tp.partition] ?? -1;
      const requested = explicit.get(key) ?? this.parts.get(key)?.delivered ?? (committed >= 0 ? committed : low);
      if (requested < low) {
        this.logger.warn(
          { topic: tp.topic, partition: tp.partition, requested, earliest: low },
          'records before the start position were deleted; consuming from the earliest offset',
        );
      }
      const start = Math.max(requested, low);
      this.parts.set(key, {
        topic: tp.topic,
        partition: tp.partition,
        topicIndex: order(tp),
        delivered: start,
        fetchPos: start,
        buffer: [],
        head: 0,
        readableEnd: high,
        parkedUntil: 0,
      });
      if (this.options.untilCaughtUp && !this.stopAt.has(key)) this.stopAt.set(key, high);
    }
    this.applied = generation;
    this.logger.debug({ generation, partitions: assigned.map(keyOf) }, 'partitions assigned');
  }

  private caughtUp(): boolean {
    for (const [key, s] of this.parts) {
      if (s.head < s.buffer.length || s.fetchPos < (this.stopAt.get(key) ?? Number.POSITIVE_INFINITY)) return false;
    }
    return true;
  }

  /** Whether a partition has records to fetch now, as far as the last fetch or assignment knew. */
  private hasMore(key: string, s: PartitionState, now: number): boolean {
    const limit = Math.min(this.stopAt.get(key) ?? Number.POSITIVE_INFINITY, s.readableEnd);
    return s.fetchPos < limit && now >= s.parkedUntil;
  }

  /**
   * Merges buffered partitions by timestamp into one batch. A partition whose buffer runs dry while
   * it still has records is refilled before the merge goes on, so its next record takes part in the
   * ordering; one that cannot be refilled at once is left out of the rest of this batch.
   */
  private async assemble(): Promise<LogRecord[]> {
    const generation = this.generation;
    const out: LogRecord[] = [];
    const stalled = new Set<PartitionState>();
    while (out.length < this.maxBatch) {
      const now = Date.now();
      const dry = [...this.parts].filter(
        ([key, s]) => s.head >= s.buffer.length && !stalled.has(s) && this.hasMore(key, s, now),
      );
      if (dry.length > 0) {
        const progressed = await this.fill(
          dry.map(([, s]) => s),
          0,
        );
        if (generation !== this.generation) return out;
        for (const [, s] of dry) if (!progressed.has(s)) stalled.add(s);
        continue;
      }
      let next: PartitionState | undefined;
      for (const s of this.parts.values()) {
        if (s.head >= s.buffer.length) continue;
        if (next === undefined || before(s, next)) next = s;
      }
      if (next === undefined) break;
      out.push(next.buffer[next.head++]!);
      if (next.head >= next.buffer.length) {
        next.buffer = [];
        next.head = 0;
      }
    }
    return out;
  }

  /** Nothing buffered: waits at the broker for records of the partitions that may still get some. */
  private async poll(): Promise<void> {
    const now = Date.now();
    const candidates = [...this.parts]
      .filter(([key, s]) => s.fetchPos < (this.stopAt.get(key) ?? Number.POSITIVE_INFINITY) && now >= s.parkedUntil)
      .map(([, s]) => s);
    if (candidates.length === 0) {
      const parked = [...this.parts.values()].map((s) => s.parkedUntil).filter((t) => t > now);
      await this.sleep(parked.length > 0 ? Math.min(...parked) - now : LONG_POLL_MS);
      return;
    }
    await this.fill(candidates, LONG_POLL_MS);
  }

  /** Fetches into the (empty) buffers of `states`; returns those whose position moved. */
  private async fill(states: readonly PartitionState[], maxWaitMs: number): Promise<Set<PartitionState>> {
    const generation = this.generation;
    const fetched = await withTimeout(
      fetchPartitions(
        this.cluster,
        states.map((s) => ({ topic: s.topic, partition: s.partition, offset: s.fetchPos })),
        { maxWaitMs, partitionMaxBytes: PARTITION_FETCH_BYTES },
      ),
      maxWaitMs + FETCH_STALL_MS,
    ).catch((e: unknown) => {
      throw toRacingError(e, `fetch (group ${this.options.group})`);
    });
    const progressed = new Set<PartitionState>();
    if (generation !== this.generation) return progressed;
    for (const r of fetched) {
      const key = keyOf(r);
      const s = this.parts.get(key);
      if (s === undefined) continue;
      if (r.outOfRange) {
        if (await this.reposition(s)) progressed.add(s);
        continue;
      }
      const limit = this.stopAt.get(key);
      const records = limit === undefined ? r.records : r.records.filter((x) => x.offset < limit);
      if (records.length > 0 || r.nextOffset > s.fetchPos) progressed.add(s);
      s.readableEnd = r.readableEnd;
      s.buffer = records;
      s.head = 0;
      s.fetchPos = Math.max(s.fetchPos, r.nextOffset);
    }
    return progressed;
  }

  /**
   * After OFFSET_OUT_OF_RANGE: below the log start (records deleted, e.g. by truncate or retention)
   * the partition continues at the earliest offset; beyond the end it waits, as on the embedded log,
   * until the log grows to that offset.
   */
  private async reposition(s: PartitionState): Promise<boolean> {
    const { low, high } = await this.deps.watermarks(s.topic);
    const earliest = low[s.partition] ?? 0;
    const end = high[s.partition] ?? 0;
    if (s.fetchPos < earliest) {
      this.logger.warn(
        { topic: s.topic, partition: s.partition, position: s.fetchPos, earliest },
        'records were deleted before they were consumed; continuing at the earliest offset',
      );
      s.fetchPos = earliest;
      return true;
    }
    if (s.fetchPos > end) {
      if (s.parkedUntil === 0) {
        this.logger.warn(
          { topic: s.topic, partition: s.partition, position: s.fetchPos, end },
          'start position is beyond the end of the partition; waiting for the log to reach it',
        );
      }
      s.readableEnd = end;
      s.parkedUntil = Date.now() + PARKED_MS;
    }
    return false;
  }

  private async deliver(records: LogRecord[]): Promise<void> {
    await this.handler({ records }).catch((e: unknown) => Promise.reject(new CallerError(e)));
    for (const r of records) {
      const key = keyOf(r);
      const s = this.parts.get(key);
      if (s !== undefined) s.delivered = r.offset + 1;
      this.uncommitted.set(key, r.offset + 1);
    }
    await this.commitPending();
  }

  /**
   * Commits delivered positions of the partitions this member owns now. A commit refused because the
   * group is rebalancing stays pending (retried after the next batch or join); positions of partitions
   * that moved to another member are dropped, since that member re-delivers from the last commit.
   */
  private async commitPending(): Promise<void> {
    if (this.uncommitted.size === 0) return;
    const owned = new Set(this.assignment.map(keyOf));
    const entries: [string, number][] = [];
    for (const [key, offset] of this.uncommitted) {
      if (owned.has(key)) entries.push([key, offset]);
      else {
        this.uncommitted.delete(key);
        this.logger.debug({ partition: key, offset }, 'not committing a partition that moved to another member');
      }
    }
    if (entries.length === 0) return;
    try {
      // Bounded: a commit sent while kafkajs restarts itself after a broker restart can wait for ever.
      await withTimeout(
        this.consumer.commitOffsets(
          entries.map(([key, offset]) => {
            // Topic names cannot contain ':' (Kafka's legal names), so the last one separates the partition.
            const sep = key.lastIndexOf(':');
            return { topic: key.slice(0, sep), partition: Number(key.slice(sep + 1)), offset: String(offset) };
          }),
        ),
        FETCH_STALL_MS,
      );
      for (const [key, offset] of entries) if (this.uncommitted.get(key) === offset) this.uncommitted.delete(key);
    } catch (e) {
      if (!retryCommitLater(e)) throw e;
      this.logger.debug({ error: (e as Error).message }, 'commit refused during a rebalance; retried later');
    }
  }

  /** Commits what was delivered and leaves the group; `quick` bounds both while the broker may be away. */
  private async stop(quick = false): Promise<void> {
    const bounded = <T>(p: Promise<T>) => (quick ? withTimeout(p, LEAVE_TIMEOUT_MS) : p);
    try {
      await bounded(this.commitPending());
    } catch (e) {
      this.logger.warn(
        { error: (e as Error).message },
        'final commit failed; the group re-delivers from its last commit',
      );
    }
    if (this.uncommitted.size > 0 && !quick) {
      this.logger.warn(
        { partitions: [...this.uncommitted.keys()] },
        'stopping with uncommitted positions; the group re-delivers from its last commit',
      );
    }
    await bounded(this.consumer.disconnect()).catch((e: unknown) => {
      this.logger.warn({ error: (e as Error).message }, 'leaving the consumer group failed');
    });
    await bounded(this.cluster.disconnect()).catch(() => undefined);
  }

  /** Resolves after `ms`, or earlier on a join, a rebalance, a crash, an abort or close. */
  private sleep(ms: number): Promise<void> {
    if (this.stopping()) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.wakers = this.wakers.filter((w) => w !== done);
        resolve();
      }, ms);
      this.wakers.push(done);
    });
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new RacingError('broker_unreachable', `no answer within ${ms} ms`, { retriable: true })),
      ms,
    );
  });
  p.catch(() => undefined);
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** Wraps an error thrown by the caller's handler or callback so that it is rethrown as it was. */
class CallerError {
  constructor(readonly error: unknown) {}
}

/** Timestamp order across partitions, ties by topic order then partition (as the embedded log). */
function before(a: PartitionState, b: PartitionState): boolean {
  const ra = a.buffer[a.head]!;
  const rb = b.buffer[b.head]!;
  if (ra.timestamp !== rb.timestamp) return ra.timestamp < rb.timestamp;
  if (a.topicIndex !== b.topicIndex) return a.topicIndex < b.topicIndex;
  return a.partition < b.partition;
}

/** Whether kafkajs would restart a consumer after this crash (its own rule, consumer/index.js). */
function kafkaWouldRestart(e: unknown): boolean {
  let cause = e as { cause?: unknown; retriable?: boolean } | undefined;
  while (cause?.cause !== undefined && cause.cause !== cause) cause = cause.cause as typeof cause;
  return (e as { name?: string } | null)?.name === 'KafkaJSNumberOfRetriesExceeded' || cause?.retriable === true;
}

function retriable(error: RacingError): RacingError {
  return new RacingError(error.code, error.message, { cause: error, retriable: true });
}

/** The failure is an error the broker answered with (it is up), not a lost connection. */
function brokerAnswered(e: unknown): boolean {
  for (let cur = e as { name?: string; cause?: unknown } | undefined, i = 0; cur && i < 10; i++) {
    if (cur.name === 'KafkaJSProtocolError') return true;
    cur = cur.cause as typeof cur;
  }
  return false;
}

function retryCommitLater(e: unknown): boolean {
  for (let cur = e as { type?: string; name?: string; message?: string; cause?: unknown } | undefined; cur;) {
    if (COMMIT_RETRY_LATER.has(cur.type ?? '')) return true;
    if (TRANSIENT_ERRORS.has(cur.name ?? '')) return true;
    if (cur.message?.includes('Consumer group was not initialized')) return true;
    cur = cur.cause as typeof cur;
  }
  return false;
}
