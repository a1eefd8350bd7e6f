/**
 * Runs the analytics engine over the log: input topics in, rows to the compacted analytics topic,
 * invalid input to the dead-letter topic. After each batch it writes, in one store batch, the changed
 * state and the input positions, so a crash resumes from the last checkpoint and replays the same rows.
 */
import { defaultPartition } from '../../domain/murmur2.js';
import { snapshotCalendar } from '../../domain/features/snapshot-calendar.js';
import type { AnalyticsRow } from '../../domain/avro-types.generated.js';
import type { Logger } from '../../domain/logger.js';
import type { StorePort } from '../../state/store-port.js';
import type { Codecs } from '../codecs.js';
import { WIRE_HEADER_BYTES } from '../serde.js';
import type { LogBatch, LogPort, OutRecord, StartOffsets } from '../log-port.js';
import {
  AnalyticsEngine,
  type FlushOptions,
  type RowOutput,
  raceIdOf,
  ROWS_GROUP,
  rowBytesFingerprint,
  rowFingerprint,
} from './analytics-engine.js';
import { EngineState, STATE_FORMAT } from './engine-state.js';
import { decodeInputs } from './input-decoder.js';
import type { PartitionOwnership } from './ownership.js';

export const ANALYTICS_GROUP = 'racing-analytics';
/** The race partitions this instance owned at its last checkpoint (Kafka mode). */
const OWNED_KEY = 'owned';
/**
 * Present while the stored state is incomplete: a checkpoint written in slices whose last batch (with
 * the input positions) is not in yet, or a state being dropped for a replay. Every slice carries it and
 * the last batch removes it; a reset writes it first and removes it last. An open that finds it drops
 * the state and replays the inputs from the start.
 */
const INCOMPLETE_KEY = 'state-incomplete';
const INCOMPLETE = Buffer.from('1');

/**
 * A checkpoint is written in slices of about this many bytes (keys and values): a catch-up's checkpoint
 * holds hundreds of MB, and as one batch all of it was copied into LevelDB's native batch at once and
 * then into one memtable (docs/performance-history.md, "A checkpoint written in slices").
 */
export const CHECKPOINT_SLICE_BYTES = 32 * 1024 * 1024;

export interface ProcessorStats {
  records: number;
  deadLetters: number;
  rowsEmitted: number;
  tombstones: number;
  /** course snapshot rows and tombstones produced */
  snapshotsEmitted: number;
  batches: number;
  /** checkpoints written */
  checkpoints: number;
  /** where the processor's time went, in milliseconds since it opened (see PHASES) */
  phaseMs: Record<Phase, number>;
}

/**
 * The steps of a batch and of a checkpoint whose time the processor counts: decoding the input,
 * loading the state the batch needs (prefetch), applying its events, computing rows (the batch's own
 * races, then their dependents, with snapshots), producing, and the checkpoint's encoding of the
 * changed state, its store write and the eviction after it.
 */
export const PHASES = [
  'decode',
  'prefetch',
  'apply',
  'direct',
  'dependents',
  'produce',
  'encode',
  'write',
  'evict',
] as const;
export type Phase = (typeof PHASES)[number];

/**
 * Input records the processor takes in one batch (the most: a catch-up's batches are this size). A
 * catch-up batch holds its decoded cards, links and row work until it ends: 10,000 records took less
 * time and 0.4 GB less peak RSS than 20,000 on the long history, and 5,000 more time
 * (docs/performance-history.md, "The full history measured to the end").
 */
export const CATCH_UP_BATCH_RECORDS = 10_000;

/** Races recomputed per produce when a takeover or an idle flush has many. */
const FLUSH_SLICE = 2_000;

/**
 * The direct rows of a batch are handed to the log in slices of this many (about 3 MB of rows): the
 * Kafka log's produce thread encodes and sends one while the next is computed.
 */
const DIRECT_SLICE_ROWS = process.env.RACING_DIRECT_SLICE === '0' ? Infinity : 2_000;

/** How often the computing of a batch's direct rows yields while a slice of them is produced. */
const PRODUCE_TURN_MS = 5;

export class AnalyticsProcessor {
  readonly stats: ProcessorStats = {
    records: 0,
    deadLetters: 0,
    rowsEmitted: 0,
    tombstones: 0,
    snapshotsEmitted: 0,
    batches: 0,
    checkpoints: 0,
    phaseMs: Object.fromEntries(PHASES.map((p) => [p, 0])) as Record<Phase, number>,
  };
  private phaseFrom = 0;
  /** Adds the time since the previous mark to `phase`. */
  private mark(phase: Phase | undefined): void {
    const now = performance.now();
    if (phase) this.stats.phaseMs[phase] += now - this.phaseFrom;
    this.phaseFrom = now;
  }
  private constructor(
    private readonly log: LogPort,
    private readonly codecs: Codecs,
    private readonly store: StorePort,
    private readonly engine: AnalyticsEngine,
    private readonly positions: Map<string, number>,
    private readonly logger: Logger,
    private readonly group: string,
    /** partitions of the output topic (rows go to their race's partition) */
    private readonly analyticsPartitions: number,
    /** a larger checkpoint is written in slices of about this many bytes */
    private readonly sliceBytes: number,
    /** races recomputed per produce (and checkpoint) when a takeover or an idle flush has many */
    private readonly flushSlice: number,
    /** the longest a batch leaves the event loop to the rest of the process after its direct rows (settle) */
    private readonly settleMaxMs: number,
    /** a batch's direct rows are handed to the log in slices of about this many (see produceDirect) */
    private readonly directSliceRows: number,
  ) {}

  /** Loads the processor's checkpoint (state and input positions) from its store. */
  static async open(deps: {
    log: LogPort;
    codecs: Codecs;
    store: StorePort;
    logger: Logger;
    /** consumer group of this processor instance (default racing-analytics) */
    group?: string;
    /** course snapshots are daily from this instant (a UTC month start); monthly only when absent */
    dailySnapshotsFrom?: number;
    /** a larger checkpoint is written in slices of about this many bytes (default CHECKPOINT_SLICE_BYTES) */
    checkpointSliceBytes?: number;
    /** races recomputed per produce when a takeover or an idle flush has many (default FLUSH_SLICE) */
    flushSliceRaces?: number;
    /** the longest a batch leaves the event loop to the rest of the process after its direct rows, ms (default SETTLE_MAX_MS) */
    settleMaxMs?: number;
    /** a batch's direct rows go to the log in slices of about this many, cut between races (default DIRECT_SLICE_ROWS) */
    directSliceRows?: number;
  }): Promise<AnalyticsProcessor> {
    const engineStore = deps.store.sub('e/');
    const logger = deps.logger.child({ component: 'analytics-processor' });
    const calendar = snapshotCalendar(deps.dailySnapshotsFrom);
    const calendarText = String(calendar.dailyFrom);
    const format = await EngineState.format(engineStore);
    const storedCalendar = (await engineStore.get('calendar'))?.toString('utf8');
    const incomplete = (await deps.store.get(INCOMPLETE_KEY)) !== undefined;
    if (
      incomplete ||
      format !== STATE_FORMAT ||
      (format !== undefined && (storedCalendar ?? 'Infinity') !== calendarText)
    ) {
      // State is a cache of the log: a layout this version cannot read, or an incomplete state (a
      // checkpoint whose slices were not all written, some records newer than the stored input
      // positions; a reset cut short) is dropped and rebuilt by replay.
      const hadState = (await firstKey(engineStore)) !== undefined;
      if (incomplete)
        logger.warn(
          'processor state is incomplete (a checkpoint or a reset cut short): replaying the inputs from the start',
        );
      else if (hadState)
        logger.warn(
          { found: format ?? 'none', expected: STATE_FORMAT },
          'processor state has another layout: replaying the inputs from the start',
        );
      // The range deletes are not atomic: the marker stands until all of it is done, so a reset cut
      // short is taken up again at the next open.
      await deps.store.put(INCOMPLETE_KEY, INCOMPLETE);
      await engineStore.clear();
      await deps.store.sub('o/').clear();
      await deps.store.del(OWNED_KEY);
      const t = deps.codecs.topics;
      await deps.log.resetGroup(deps.group ?? ANALYTICS_GROUP, [t.courses, t.cards, t.results]);
      await deps.store.del(INCOMPLETE_KEY);
    }
    // The snapshot calendar shapes every row: a state built with another one is replayed (above).
    await engineStore.put('calendar', Buffer.from(calendarText));
    const state = await EngineState.open(engineStore);
    const positions = new Map<string, number>();
    for await (const [k, v] of deps.store.sub('o/').entries()) positions.set(k, Number(v.toString()));
    const owned = await deps.store.get(OWNED_KEY);
    const processor = new AnalyticsProcessor(
      deps.log,
      deps.codecs,
      deps.store,
      new AnalyticsEngine(state, { calendar }),
      positions,
      logger,
      deps.group ?? ANALYTICS_GROUP,
      await deps.log.partitions(deps.codecs.topics.analytics),
      deps.checkpointSliceBytes ?? CHECKPOINT_SLICE_BYTES,
      deps.flushSliceRaces ?? FLUSH_SLICE,
      deps.settleMaxMs ?? SETTLE_MAX_MS,
      deps.directSliceRows ?? DIRECT_SLICE_ROWS,
    );
    if (owned) processor.current = new Set(JSON.parse(owned.toString('utf8')) as number[]);
    return processor;
  }

  private ownership: PartitionOwnership | undefined;
  /** during a takeover: the current value of each gained snapshot key on the topic (unchanged ones are not produced again) */
  private snapshotsOnTopic: Map<string, Buffer> | undefined;
  /**
   * Race partitions whose emitted-row fingerprints in this state are this instance's own (checkpointed):
   * regaining one of them after a restart needs no recompute, the replay from the checkpoint covers it.
   */
  private current = new Set<number>();
  /**
   * The partitions each queued or running takeover is to take over: a partition lost before its
   * takeover ends leaves its set, so a takeover never makes its own a partition taken away meanwhile
   * (given back later, it is taken over again by the step that gave it back).
   */
  private readonly takeovers = new Set<Set<number>>();

  /**
   * Emit only the rows of races in partitions this instance owns. A race's rows are produced to the
   * partition of its race id, so the rows of a race partition sit in that partition of the output topic:
   * on gaining a partition the instance reads what is there (the compacted topic is the changelog of
   * what was emitted), adopts it as emitted, and recomputes, so a rebalance publishes only rows that
   * changed. A restart that gets back the partitions it had at its last checkpoint reads and recomputes
   * nothing (its cost follows the new input, not the history).
   */
  useOwnership(ownership: PartitionOwnership): void {
    this.ownership = ownership;
    const onChange = (gained: Set<number>, lost: Set<number>) => {
      // A partition lost is no longer this instance's at once, not only once the queued work below
      // has forgotten its rows: a checkpoint in between must not claim them (see `owned`).
      for (const p of lost) {
        this.current.delete(p);
        for (const t of this.takeovers) t.delete(p);
      }
      const taking = new Set(gained);
      this.takeovers.add(taking);
      const takeOver = async () => {
        const fresh = new Set([...taking].filter((p) => !this.current.has(p)));
        if (lost.size > 0) await this.engine.forgetEmitted((raceId) => lost.has(ownership.partitionOf(raceId)));
        if (fresh.size > 0) {
          const onTopic = await this.rowsOnTopic(fresh);
          await this.engine.adoptEmitted((raceId) => fresh.has(ownership.partitionOf(raceId)), onTopic);
          // snapshot keys likewise: every period of every key again (they are not kept per partition),
          // produced only where it differs from what the topic holds for the keys owned now
          this.snapshotsOnTopic = await this.snapshotRowsOnTopic(ownership.owns);
          await this.engine.markAllSnapshots();
        }
        // The gained partitions become this instance's own only once their recompute is produced: the
        // checkpoints between its slices (produceDirty) must not record them, since what is left to
        // recompute is held in memory only. A restart from such a checkpoint takes them over again from
        // the topic (what was produced is adopted, only what differs is published). Only the ones this
        // step took over and still owns: a partition assigned meanwhile is a later step's to take over.
        await this.produceDirty();
        for (const p of taking) if (ownership.ownsPartition(p)) this.current.add(p);
        this.snapshotsOnTopic = undefined;
      };
      this.exclusive(async () => {
        try {
          await takeOver();
        } finally {
          this.takeovers.delete(taking);
        }
      })
        // The rows it recomputed are marked emitted whether or not they reached the topic: going on
        // (and checkpointing) would lose those that did not. It stops instead; a new processor starts
        // from the checkpoint and takes the partitions over again.
        .catch((err: unknown) => this.fail(err, 'could not emit the rows of newly assigned partitions'));
    };
    ownership.onChange(onChange);
    // what the ownership holds now, relative to this processor's checkpoint (a processor opened while
    // the instance is a member: after a rebuild or a restart of the pipeline); once the instance has
    // joined, the group's assignment, not the checkpoint, says what it owns (it may own nothing while
    // it joins the group again)
    const owned = new Set(ownership.ownedPartitions);
    const gained = new Set([...owned].filter((p) => !this.current.has(p)));
    const lost = new Set(ownership.joinedOnce ? [...this.current].filter((p) => !owned.has(p)) : []);
    if (gained.size > 0 || lost.size > 0) onChange(gained, lost);
  }

  get counters() {
    return this.engine.counters;
  }

  /** The state's roll-ups and expansions of old years so far (shown with the phases in progress lines). */
  get stateCounters(): { rollUps: number; expansions: number } {
    return { rollUps: this.engine.state.rollUps, expansions: this.engine.state.expansions };
  }

  /** What this processor's checkpoints wrote of its state, by kind of record (EngineState.written). */
  get stateWritten(): EngineState['written'] {
    return this.engine.state.written;
  }

  /** Races this processor saw for the first time since it opened (in a rebuild: every race). */
  get newRaceCount(): number {
    return this.engine.state.newRaces;
  }

  /**
   * Consumes until caught up (`untilCaughtUp`) or until the signal aborts. Rows are produced after
   * every batch; the state and input positions are checkpointed every `checkpointIntervalMs` and when
   * consumption ends (a crash replays from the last checkpoint and re-emits identical rows).
   *
   * A failure ends the processor for good, whether of a batch or of emitting the rows of an ownership
   * change while it runs: its state may mark rows as emitted that never reached the topic, so it writes
   * no checkpoint after it, and run rejects; the caller opens a new processor from the checkpoint.
   */
  async run(options: {
    untilCaughtUp: boolean;
    signal?: AbortSignal;
    checkpointIntervalMs?: number;
    onBatch?: (s: ProcessorStats) => void;
  }): Promise<void> {
    const interval = options.checkpointIntervalMs ?? 5_000;
    this.lastCheckpointAt = performance.now();
    const stop = eitherSignal(options.signal, this.failed.signal);
    try {
      await this.log.consume(
        {
          group: this.group,
          topics: [this.codecs.topics.courses, this.codecs.topics.cards, this.codecs.topics.results],
          untilCaughtUp: options.untilCaughtUp,
          maxBatchRecords: CATCH_UP_BATCH_RECORDS,
          signal: stop.signal,
          startOffsets: async (): Promise<StartOffsets> => this.positions,
        },
        (batch) => this.exclusive(() => this.applyBatch(batch, interval, options.onBatch)),
      );
      if (this.failure) throw this.failure.error;
      await this.exclusive(() => this.checkpoint());
    } catch (e) {
      this.failure ??= { error: e };
      throw e;
    } finally {
      stop.dispose();
    }
  }

  private lastCheckpointAt = 0;

  /** One batch of input: apply it, produce what changed, checkpoint when one is due. */
  private async applyBatch(batch: LogBatch, interval: number, onBatch?: (s: ProcessorStats) => void): Promise<void> {
    this.mark(undefined);
    const { events, deadLetters } = await decodeInputs(this.codecs, batch.records);
    this.mark('decode');
    await this.engine.prefetch(events);
    this.mark('prefetch');
    await this.engine.applyEvents(events);
    this.mark('apply');
    // The races whose own card or result is in the batch first, produced at once: a result's final rows
    // do not wait for the provisional rows of the pending races its horses, jockeys, trainers, sires and
    // course key touch. Those follow, recomputed in slices that let the rest of the service (the view,
    // the stream) run in between; the checkpoint below still comes after both are produced.
    // Produced in slices as they are computed (see produceDirect): the log's work on one slice overlaps
    // the computing of the next.
    // A catch-up's batch computes its races' rows in groups of ROWS_GROUP races (FlushOptions.group), a
    // live one race by race. In a group every race's rows are computed before the first is emitted: the
    // slices of a group go to the log one after another once it is computed (their produce overlaps the
    // next group's computing), and the yields below come only between groups, so a catch-up holds the
    // event loop for a group's rows at a time (docs/architecture.md); a live batch yields between races.
    // A catch-up's batch does not wait for its rows to be produced before its checkpoint: the checkpoint
    // encodes the state meanwhile (see checkpoint's `produced`); the batch ends once they are.
    const catchUp = batch.records.length >= CATCH_UP_BATCH_RECORDS;
    const group = catchUp ? ROWS_GROUP : 1;
    const direct = await this.produceDirect(group);
    this.mark('direct');
    if (!catchUp) {
      await direct.produced;
      // Live (a batch that took all there was, not a catch-up's full one): the view and the stream this
      // process serves take the rows before the dependents take the thread.
      if (direct.rows > 0) await settle(this.settleMaxMs);
    }
    this.mark('produce');
    // (the slices' yields count here too: the view and the stream run in them)
    const { rows, snapshots, dropped } = this.owned(
      await this.flushOutputs(undefined, { between: timeSlices(), group }),
    );
    this.mark('dependents');
    // (a slice that failed meanwhile fails the batch here: nothing more goes to the log)
    if (direct.failed()) await direct.produced;
    // handed to the log in this order, which writes them in call order
    const written = [direct.produced];
    if (deadLetters.length > 0) {
      written.push(this.log.produce(this.codecs.topics.deadLetter, deadLetters));
      this.logger.warn(
        { count: deadLetters.length, first: deadLetters[0]?.headers },
        'input records sent to the dead-letter topic',
      );
    }
    if (rows.length > 0) written.push(this.log.produce(this.codecs.topics.analytics, rows));
    if (snapshots.length > 0) written.push(this.log.produce(this.codecs.topics.courseSnapshots, snapshots));
    const all = Promise.all(written).then(() => undefined);
    // awaited below; handled here so that a failure while the checkpoint is encoded is not unhandled
    all.catch(() => undefined);
    if (!catchUp) await all;
    this.mark('produce');
    for (const r of batch.records) this.positions.set(`${r.topic}:${r.partition}`, r.offset + 1);
    // rows dropped by `owned` are marked emitted until the queued ownership change forgets them
    if (performance.now() - this.lastCheckpointAt >= interval && !direct.dropped && !dropped) {
      // (a live batch's rows are in already: nothing to overlap)
      await this.checkpoint(undefined, catchUp ? all : undefined);
      this.lastCheckpointAt = performance.now();
    }
    // The batch ends once its rows are produced (the checkpoint above was encoded meanwhile): a partition
    // this instance gives away after the batch gets none of its rows behind the new owner's back.
    this.mark(undefined);
    await all;
    this.mark('produce');
    this.stats.records += batch.records.length;
    this.stats.deadLetters += deadLetters.length;
    this.stats.batches++;
    onBatch?.(this.stats);
  }

  /** Writes a checkpoint now (after the batches and flushes queued before it). */
  checkpointNow(): Promise<void> {
    return this.exclusive(() => this.checkpoint());
  }

  /** The partitions this instance owned at its last checkpoint (it resumes owning them while it catches up). */
  get checkpointedPartitions(): number[] {
    return [...this.current].sort((a, b) => a - b);
  }

  /**
   * Recomputes what is dirty and produces the changed rows now (after an ownership change while idle),
   * in slices, so a takeover of a long history never holds all its rows at once.
   */
  flushNow(): Promise<void> {
    return this.exclusive(() => this.produceDirty());
  }

  private async produceDirty(): Promise<void> {
    // once a slice's rows were dropped (a partition lost meanwhile), no checkpoint until the queued
    // ownership change has forgotten them (see applyBatch)
    let dropped = false;
    for (;;) {
      const out = this.owned(await this.flushOutputs(this.flushSlice, { group: ROWS_GROUP }));
      const { rows, snapshots } = out;
      dropped ||= out.dropped;
      if (rows.length > 0) await this.log.produce(this.codecs.topics.analytics, rows);
      if (snapshots.length > 0) await this.log.produce(this.codecs.topics.courseSnapshots, snapshots);
      if (!this.engine.hasDirty(this.ownership?.owns)) return;
      // A takeover recomputes races across the whole history while stream time stands at its end, so
      // nothing it loads is ever cold in stream time: between slices the state is checkpointed and
      // everything clean dropped (a Kafka-mode rebuild's takeover of every race ran out of heap).
      if (!dropped) await this.checkpoint(Number.POSITIVE_INFINITY);
    }
  }

  /**
   * The current rows of these partitions of the output topic: raceId -> horseId -> fingerprint (what
   * `emitted` holds). Reads those partitions from their start to their end; tombstones remove.
   */
  private async rowsOnTopic(partitions: ReadonlySet<number>): Promise<Map<string, Record<string, string>>> {
    const topic = this.codecs.topics.analytics;
    const starts = await this.log.startOffsets(topic);
    const ends = await this.log.endOffsets(topic);
    const out = new Map<string, Record<string, string>>();
    if (![...partitions].some((p) => (ends[p] ?? 0) > (starts[p] ?? 0))) return out;
    await this.log.consume(
      {
        group: `${this.group}.restore`,
        topics: [topic],
        untilCaughtUp: true,
        // only the gained partitions, from their start; the others from their end (nothing to read)
        startOffsets: async (tps) =>
          new Map(
            tps.map((tp) => [
              `${tp.topic}:${tp.partition}`,
              partitions.has(tp.partition) ? (starts[tp.partition] ?? 0) : (ends[tp.partition] ?? 0),
            ]),
          ),
      },
      async (batch) => {
        for (const r of batch.records) {
          if (!partitions.has(r.partition)) continue;
          const colon = r.key.indexOf(':');
          const raceId = r.key.slice(0, colon);
          const horseId = r.key.slice(colon + 1);
          let race = out.get(raceId);
          if (!race) out.set(raceId, (race = {}));
          if (r.value === null) delete race[horseId];
          // a row written with this schema is fingerprinted from its binary; one of another version is
          // read into this one's row first (the fingerprint is over this schema's binary)
          else if (this.codecs.row.isOwn(r.value))
            race[horseId] = rowBytesFingerprint(r.value.subarray(WIRE_HEADER_BYTES));
          else race[horseId] = rowFingerprint(await this.codecs.serde.decode<AnalyticsRow>(topic, r.value));
        }
      },
    );
    return out;
  }

  /** The current value of every snapshot key matching `wanted` on the snapshot topic (tombstones remove). */
  private async snapshotRowsOnTopic(wanted: (key: string) => boolean): Promise<Map<string, Buffer>> {
    const topic = this.codecs.topics.courseSnapshots;
    const out = new Map<string, Buffer>();
    await this.log.consume(
      {
        group: `${this.group}.restore-snapshots`,
        topics: [topic],
        untilCaughtUp: true,
        startOffsets: async (tps) => {
          const starts = await this.log.startOffsets(topic);
          return new Map(tps.map((tp) => [`${tp.topic}:${tp.partition}`, starts[tp.partition] ?? 0]));
        },
      },
      async (batch) => {
        for (const r of batch.records) {
          if (!wanted(r.key)) continue;
          if (r.value === null) out.delete(r.key);
          else out.set(r.key, r.value);
        }
      },
    );
    return out;
  }

  /**
   * The outputs of races (and snapshot keys) this instance still owns. The group can move a partition
   * while a batch computes; its rows are then the new owner's to produce: it read the topic when it took
   * the partition over, so rows produced here after that would sit on the topic behind its back.
   */
  /** The rows and snapshots this instance owns; `dropped` when some were left out (see applyBatch). */
  private owned(out: { rows: OutRecord[]; snapshots: OutRecord[] }): {
    rows: OutRecord[];
    snapshots: OutRecord[];
    dropped: boolean;
  } {
    const owns = this.ownership?.owns;
    if (!owns) return { ...out, dropped: false };
    const rows: OutRecord[] = [];
    for (const r of out.rows) {
      if (owns(r.key.slice(0, r.key.indexOf(':')))) rows.push(r);
      // counted by flushOutputs, never produced
      else if (r.value) this.stats.rowsEmitted--;
      else this.stats.tombstones--;
    }
    const snapshots = out.snapshots.filter((s) => owns(s.key));
    this.stats.snapshotsEmitted -= out.snapshots.length - snapshots.length;
    return { rows, snapshots, dropped: rows.length < out.rows.length || snapshots.length < out.snapshots.length };
  }

  /**
   * The direct races' rows (flushOutputs with `directOnly`), each slice of DIRECT_SLICE_ROWS handed to the
   * log as soon as it is computed (in a catch-up, as soon as its group of races is), without waiting
   * for the earlier slices' produces (the log writes them in call order). Resolves when the rows are
   * computed; `produced` resolves when every slice is produced, and rejects with a failure of one. No
   * slice is handed over once one has failed (`failed`); those handed over before may still be written
   * (the Kafka log's produce thread sends none queued behind a failed one, the embedded log may): the
   * batch is not checkpointed, and its retry writes its rows again. A failure of the computing waits
   * for the slices in flight.
   */
  private async produceDirect(
    group: number,
  ): Promise<{ rows: number; dropped: boolean; produced: Promise<void>; failed: () => boolean }> {
    const topic = this.codecs.topics.analytics;
    let produced: Promise<void> = Promise.resolve();
    let inFlight = 0;
    let rows = 0;
    let dropped = false;
    // once a slice failed, no more are handed over (the batch fails with it)
    let failed = false;
    const send = (slice: OutRecord[]): void => {
      if (failed) return;
      const out = this.owned({ rows: slice, snapshots: [] });
      dropped ||= out.dropped;
      if (out.rows.length === 0) return;
      rows += out.rows.length;
      inFlight++;
      // Handed to the log at once (it writes produces in call order): the log's work on the slice
      // (the Kafka log's produce thread's encoding and sending) starts while the next is computed.
      const written = this.log.produce(topic, out.rows).finally(() => {
        inFlight--;
      });
      written.catch(() => {
        failed = true;
      });
      produced = Promise.all([produced, written]).then(() => undefined);
      // awaited by the caller; handled here so that a failure while the rest is computed is not unhandled
      produced.catch(() => undefined);
    };
    // While a slice is being produced, a turn of the event loop every PRODUCE_TURN_MS lets the log's
    // answers in (the embedded log writes one produce's store batch after the other's has finished), so
    // the slices are written while the rest is computed rather than all after it.
    let since = performance.now();
    const between = (): Promise<void> | undefined => {
      if (inFlight === 0 || performance.now() - since < PRODUCE_TURN_MS) return undefined;
      // setImmediate, not a timer: the loop takes what has arrived (the acknowledgement) and comes
      // straight back, with no timer's millisecond of waiting
      return new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        since = performance.now();
      });
    };
    try {
      const last = await this.flushOutputs(
        undefined,
        { directOnly: true, between, group },
        { rows: this.directSliceRows, send },
      );
      send(last.rows);
    } catch (e) {
      await produced.catch(() => undefined);
      throw e;
    }
    return { rows, dropped, produced, failed: () => failed };
  }

  /**
   * The rows of the races flushed (see AnalyticsEngine.flush) and, unless `directOnly`, the snapshot rows.
   * With `slices`, every `slices.rows` rows go to `slices.send` as they are computed (the rest returned).
   */
  private async flushOutputs(
    limit?: number,
    options: FlushOptions = {},
    slices?: { rows: number; send: (rows: OutRecord[]) => void },
  ): Promise<{ rows: OutRecord[]; snapshots: OutRecord[] }> {
    let rows: OutRecord[] = [];
    const owns = this.ownership?.owns;
    // the race of the latest row and its partition: a race's rows come one after another
    let race: string | undefined;
    let partition = 0;
    // each row is encoded as soon as its race is computed: only its bytes (off-heap) wait for the produce
    const emit = (o: RowOutput): void => {
      const raceId = raceIdOf(o.key);
      if (raceId !== race) {
        // a slice ends between two races: a race's rows go to the log together
        if (slices && rows.length >= slices.rows) {
          slices.send(rows);
          rows = [];
        }
        race = raceId;
        // a race's rows live in its race partition (see useOwnership)
        partition = defaultPartition(raceId, this.analyticsPartitions);
      }
      rows.push({
        key: o.key,
        value: o.value ? this.codecs.row.frame(o.value) : null,
        timestamp: o.timestamp,
        partition,
      });
      if (o.row) this.stats.rowsEmitted++;
      else this.stats.tombstones++;
    };
    // (emit frames each row's bytes at once and keeps no row object: the engine may reuse them)
    await this.engine.flush(owns, limit, { ...options, emit, reuseRows: true });
    // Snapshot keys are spread over the partitions like race ids: the same ownership decides who emits.
    const snapshots: OutRecord[] = [];
    if (options.directOnly) return { rows, snapshots };
    const onTopic = this.snapshotsOnTopic;
    for (const o of await this.engine.flushSnapshots(owns)) {
      const value = o.snapshot ? this.codecs.snapshot.encode(o.snapshot) : null;
      if (onTopic) {
        const there = onTopic.get(o.key);
        onTopic.delete(o.key);
        if (value === null ? there === undefined : there !== undefined && there.equals(value)) continue;
      }
      snapshots.push({ key: o.key, value, timestamp: o.timestamp });
      this.stats.snapshotsEmitted++;
    }
    return { rows, snapshots };
  }

  private chain: Promise<unknown> = Promise.resolve();
  /** Why this processor stopped for good (see `run`): every later batch, flush and checkpoint rejects with it. */
  private failure: { error: unknown } | undefined;
  /** aborted on that failure: ends the consumption of a running `run` */
  private readonly failed = new AbortController();

  private fail(error: unknown, what: string): void {
    if (this.failure) return;
    this.failure = { error };
    this.logger.warn({ err: error }, `${what}; the processor starts again from its checkpoint`);
    this.failed.abort();
  }

  /** Batches, idle flushes and checkpoints never interleave, and none runs once the processor failed. */
  private exclusive<T>(f: () => Promise<T>): Promise<T> {
    const step = () => (this.failure ? Promise.reject(this.failure.error) : f());
    const p = this.chain.then(step, step);
    this.chain = p.catch(() => undefined);
    return p;
  }

  /**
   * Writes the changed state and the input positions, then lets go of the state that is now clean and
   * cold (it is reloaded from the store if the stream needs it again). A checkpoint within one slice
   * (`sliceBytes`) is one atomic store batch. A larger one (a catch-up's) goes in slices, each written
   * while the next is encoded; each slice carries the INCOMPLETE_KEY marker and the last batch, with the
   * input positions, removes it, so a checkpoint cut short between slices is known at the next open
   * (the state is dropped and the inputs replayed) and one that completed is as if written at once.
   */
  async checkpoint(evictAsOf?: number, produced?: Promise<void>): Promise<void> {
    this.mark(undefined);
    // `produced`: the produces of the catch-up batch the checkpoint follows, not yet answered. Rows handed
    // over just before (the dependents' rows) reach the log before the encoding below takes the thread:
    // the log's lock and the handing over run in the turns of the microtask queue.
    if (produced !== undefined) await new Promise<void>((resolve) => setImmediate(resolve));
    this.mark('produce');
    // The state is encoded while those rows are produced; nothing of it is written until they are in,
    // so that a produce that fails leaves the previous checkpoint whole (no slice written with the
    // marker, which would make the next open replay from the start).
    produced ??= Promise.resolve();
    // Each record goes into the store's batch as it is encoded: a catch-up's checkpoint has hundreds
    // of thousands, and building them as operation objects first, copied twice more on the way to the
    // store, cost a third of its time and held them all until the write.
    let batch = this.store.writeBatch();
    let bytes = 0;
    const slices: Promise<void>[] = [];
    try {
      this.engine.state.writeDirty((key, value) => {
        batch.put(`e/${key}`, value);
        bytes += key.length + value.length;
        if (bytes >= this.sliceBytes) {
          batch.put(INCOMPLETE_KEY, INCOMPLETE);
          const full = batch;
          const written = produced.then(
            () => full.write(),
            async (e: unknown) => {
              await full.discard().catch(() => undefined);
              throw e;
            },
          );
          // (its failure is the checkpoint's: awaited below, or settled in the catch)
          written.catch(() => undefined);
          slices.push(written);
          batch = this.store.writeBatch();
          bytes = 0;
        }
      });
      for (const [k, v] of this.positions) batch.put(`o/${k}`, Buffer.from(String(v)));
      if (slices.length > 0) batch.del(INCOMPLETE_KEY);
      // the positions only once the rows they claim are produced and every slice is in: until then the
      // marker stands
      this.mark('encode');
      await produced;
      this.mark('produce');
      await Promise.all(slices);
      // the partitions owned as of now, not as of the encoding: one lost while the slices were written
      // is no longer this instance's (see useOwnership)
      if (this.ownership) batch.put(OWNED_KEY, Buffer.from(JSON.stringify([...this.current].sort((a, b) => a - b))));
      await batch.write();
    } catch (e) {
      await Promise.allSettled(slices);
      await batch.discard().catch(() => undefined);
      throw e;
    }
    this.mark('write');
    this.stats.checkpoints++;
    this.engine.state.evict(evictAsOf);
    this.mark('evict');
  }
}

/** Work between two yields to the event loop while the dependents of a batch are recomputed, ms. */
const SLICE_MS = 4;

/** The longest `settle` leaves the event loop to the rest of the process by default, ms. */
const SETTLE_MAX_MS = 20;
/** A yield in which the event loop was active for less than this ran nothing else, ms. */
const QUIET_MS = 0.1;

/** One turn of the event loop that also waits for I/O (a timer: poll runs until it is due, about 1 ms). */
const turn = (): Promise<void> => new Promise<void>((resolve) => setTimeout(resolve, 0));

/**
 * Leaves the event loop to the rest of the process until two turns in a row ran nothing else (or
 * SETTLE_MAX_MS passed): after a batch's direct rows are produced, the view of the same process reads,
 * applies and pushes them in a chain of store reads and writes, each of which resumes only when the
 * thread is free. The dependents' slices alone gave that chain one step per slice: a result's final
 * rows were served about 20 ms later than with this (docs/performance.md, "Live latency").
 */
async function settle(maxMs: number): Promise<void> {
  const until = performance.now() + maxMs;
  let quiet = 0;
  while (quiet < 2 && performance.now() < until) {
    const before = performance.eventLoopUtilization();
    await turn();
    quiet = performance.eventLoopUtilization(before).active < QUIET_MS ? quiet + 1 : 0;
  }
}

/**
 * A `between` for AnalyticsEngine.flush: once a slice of work has run, yields to the event loop for a
 * turn that also takes the I/O completed meanwhile (a timer rather than setImmediate, whose turn does
 * not wait for a read in flight): the view applying the rows just produced and the stream writing them
 * go on between the slices.
 */
function timeSlices(): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < SLICE_MS) return undefined;
    return turn().then(() => {
      since = performance.now();
    });
  };
}

/** A signal aborted when either is, and a way to drop the listeners it added. */
function eitherSignal(a: AbortSignal | undefined, b: AbortSignal): { signal: AbortSignal; dispose(): void } {
  const both = new AbortController();
  const abort = () => both.abort();
  const sources = a ? [a, b] : [b];
  if (sources.some((s) => s.aborted)) both.abort();
  else for (const s of sources) s.addEventListener('abort', abort, { once: true });
  return { signal: both.signal, dispose: () => sources.forEach((s) => s.removeEventListener('abort', abort)) };
}

async function firstKey(store: StorePort): Promise<string | undefined> {
  for await (const [k] of store.entries({ limit: 1 })) return k;
  return undefined;
}
