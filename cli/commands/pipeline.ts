/** generate / process / rebuild: moving events through the pipeline, with progress and figures. */
import { dailySnapshotsFrom } from '../settings.js';
import { formatGenerationSummary, generateFeed, generationSummary } from '../../domain/generator/index.js';
import { addDays, parseDate, todayUtc } from '../../domain/time.js';
import { RacingError } from '../../domain/errors.js';
import { PerformanceObserver } from 'node:perf_hooks';
import {
  AnalyticsProcessor,
  CATCH_UP_BATCH_RECORDS,
  PHASES,
  type ProcessorStats,
} from '../../streams/processors/analytics-processor.js';
import { PartitionOwnership } from '../../streams/processors/ownership.js';
import { runViewMaterializer, viewTopics } from '../../streams/processors/view-materializer.js';
import { instrumentLog } from '../../streams/metrics.js';
import { publishEvents } from '../../streams/publisher.js';
import { progress } from '../progress.js';
import type { Logger } from '../../domain/logger.js';
import { createCodecs } from '../../streams/codecs.js';
import { DEFAULT_TOPIC_SETTINGS, topicNames, topicSpecs } from '../../streams/topics.js';
import type { ServiceConfig } from '../config.js';
import { openKafkaLog, type Runtime } from '../runtime.js';

export interface GenerateArgs {
  from: string;
  to: string;
  seed: number;
  /** fraction of the full fixture volume (default 1) */
  scale?: number;
  /**
   * Publish only events published at or before this instant (epoch ms): the feed as it stands then.
   * Cards for tomorrow exist, results of races not yet run do not. Undefined publishes everything.
   */
  until?: number;
  /** Publish only events published after this instant (epoch ms): the next slice of a feed already published up to it. */
  since?: number;
}

export function checkDateArg(name: string, v: string | undefined): string {
  if (v === undefined || parseDate(v) === undefined) {
    throw new RacingError(
      'validation_failed',
      `--${name} must be a date YYYY-MM-DD (got ${v === undefined ? 'nothing' : `'${v}'`})`,
    );
  }
  return v;
}

/** The demo history `racing start` generates on an empty data dir: N years up to the day after tomorrow. */
export function demoRange(years: number, now = Date.now()): { from: string; to: string } {
  const today = todayUtc(now);
  return { from: `${Number(today.slice(0, 4)) - years}${today.slice(4)}`, to: addDays(today, 2) };
}

export async function generate(
  rt: Pick<Runtime, 'log' | 'codecs'>,
  args: GenerateArgs,
): Promise<{ cards: number; results: number; courses: number }> {
  if (args.to < args.from) throw new RacingError('validation_failed', '--to must not be before --from');
  const fromMs = parseDate(args.from)!;
  const span = parseDate(args.to)! + 86_400_000 - fromMs;
  const bar = progress('generate', 100, '%');
  const stats = await publishEvents(rt.log, rt.codecs, feedOf(args), {
    onProgress: (s, last) =>
      bar.update(Math.max(0, Math.min(100, ((last - fromMs) / span) * 100)), `${s.cards + s.results} events`),
  });
  bar.finish(`${stats.cards} card versions, ${stats.results} results, ${stats.courses} courses`);
  return stats;
}

/**
 * Kafka mode: what `generate` needs (the log, the registry and the codecs) without the data dir's
 * store, so that publishing live input works while a service holds that store.
 */
export async function withPublisher<T>(
  config: ServiceConfig,
  logger: Logger,
  f: (p: Pick<Runtime, 'log' | 'codecs'>) => Promise<T>,
): Promise<T> {
  const log = await openKafkaLog(config, logger);
  try {
    const topics = topicNames(config.topicPrefix);
    await log.ensureTopics(topicSpecs(topics, { ...DEFAULT_TOPIC_SETTINGS, partitions: config.partitions }));
    const { createConfluentRegistry } = await import('../../streams/adapters/confluent-registry.js');
    const registry = await createConfluentRegistry({ url: config.schemaRegistryUrl!, logger });
    return await f({ log, codecs: await createCodecs(registry, topics) });
  } finally {
    await log.close();
  }
}

/** The generated events published in (since, until]: the feed between two instants. */
function* feedOf(args: GenerateArgs) {
  const until = args.until ?? Number.POSITIVE_INFINITY;
  const since = args.since ?? Number.NEGATIVE_INFINITY;
  for (const e of generateFeed({ from: args.from, to: args.to, seed: args.seed, scale: args.scale ?? 1 })) {
    if (e.publishedAt > until) return;
    if (e.publishedAt > since) yield e;
  }
}

/** What `generate` with these arguments produces (regenerated: the generator is deterministic). */
export function generatedSummary(args: GenerateArgs): string {
  return formatGenerationSummary(generationSummary(feedOf(args)));
}

export interface ProcessFigures {
  /** races seen for the first time in this run (a rebuild: every race; one more day: that day's new races) */
  races: number;
  /** seconds to open the processor's state (its courses and input positions; the rest loads on demand) */
  loadSeconds: number;
  records: number;
  rows: number;
  tombstones: number;
  deadLetters: number;
  /** seconds of the processor's catch-up (the view following it, at most a batch of input ahead) */
  seconds: number;
  /** seconds the view took after it to catch up with the rest (the read model the API serves) */
  viewSeconds: number;
  rowsPerSecond: number;
  /**
   * Kafka mode: rows emitted after the catch-up, when the instance joined the shared group and took
   * over the race partitions it was assigned but had not emitted (a new instance: all of its rows; a
   * restart or a rebuild: none). Included in `rows`; 0 in the embedded default.
   */
  takeoverRows: number;
  /**
   * Where the processor's seconds went (ProcessorStats.phaseMs, see PHASES) and, beside them, the
   * seconds of the process's garbage-collection pauses meanwhile: `gcMinor` (scavenges), `gcMajor`
   * (mark-compact pauses) and `gcOther` (incremental marking steps, weak callbacks).
   */
  phaseSeconds: Record<string, number>;
  /**
   * The processor's checkpoints: how many, and what they wrote of its state by kind of record (races,
   * horses, index month chunks, year blocks and heads, courses): records and megabytes of values.
   */
  checkpoints: { count: number; written: Record<string, { records: number; mb: number }> };
}

/** The processor's checkpoints and what they wrote (ProcessFigures.checkpoints). */
function checkpointFigures(processor: AnalyticsProcessor): ProcessFigures['checkpoints'] {
  const written: Record<string, { records: number; mb: number }> = {};
  for (const [kind, w] of Object.entries(processor.stateWritten)) {
    written[kind] = { records: w.records, mb: Math.round(w.bytes / 1e5) / 10 };
  }
  return { count: processor.stats.checkpoints, written };
}

/** Seconds of garbage-collection pauses by kind while it observes (see ProcessFigures.phaseSeconds). */
class GcTime {
  readonly ms = { gcMinor: 0, gcMajor: 0, gcOther: 0 };
  private readonly observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as { detail?: { kind?: number } }).detail?.kind;
      // perf_hooks.constants: NODE_PERFORMANCE_GC_MINOR = 1, _MAJOR = 4 (_INCREMENTAL = 8, _WEAKCB = 16)
      if (kind === 1) this.ms.gcMinor += e.duration;
      else if (kind === 4) this.ms.gcMajor += e.duration;
      else this.ms.gcOther += e.duration;
    }
  });
  constructor() {
    this.observer.observe({ entryTypes: ['gc'] });
  }
  stop(): void {
    this.observer.disconnect();
  }
}

/** The phases' seconds (and the collector's), rounded to tenths. */
function phaseSeconds(stats: ProcessorStats, gc: GcTime): Record<string, number> {
  const out: Record<string, number> = {};
  for (const p of PHASES) out[p] = Math.round(stats.phaseMs[p] / 100) / 10;
  for (const [k, v] of Object.entries(gc.ms)) out[k] = Math.round(v / 100) / 10;
  return out;
}

/**
 * `RACING_PROGRESS_PHASES=1`: each progress line of `process` and `rebuild` also shows the phases' seconds so far
 * and the state's roll-ups and expansions of old years.
 */
function phasesInProgress(): boolean {
  return process.env['RACING_PROGRESS_PHASES'] === '1';
}

/**
 * Opens the analytics processor from its checkpoint (state and input positions) and, in Kafka mode,
 * makes it emit only the race partitions the shared group assigns to this instance. `serve` opens it
 * again after a failed run: what the failed one held in memory beyond its checkpoint is dropped and
 * replayed, so nothing it computed but could not produce is taken as emitted.
 */
export async function openProcessor(
  rt: Runtime,
  options: { ownAllUntilJoined?: boolean } = {},
): Promise<AnalyticsProcessor> {
  const daily = dailySnapshotsFrom(rt.config);
  const processor = await AnalyticsProcessor.open({
    log: instrumentLog(rt.log, rt.topics),
    codecs: rt.codecs,
    store: rt.processorStore,
    logger: rt.logger,
    group: rt.groups.analytics,
    ...(daily !== undefined ? { dailySnapshotsFrom: daily } : {}),
    checkpointSliceBytes: rt.config.checkpointSliceBytes,
  });
  if (rt.groups.owners) {
    // Until the instance has joined the shared group (after its first catch-up, see processAll), it
    // keeps emitting the partitions it owned at its checkpoint (none when new); once a member, it owns
    // the group's assignment. A partition gained is taken over from what is on the output topic, so
    // only rows that differ are published (AnalyticsProcessor.useOwnership). A rebuild's instance is
    // the only one (the operator stops the others, and the output topics were just emptied): it owns
    // every partition from the start and emits every row as it replays, as the embedded default does,
    // instead of replaying without rows and then recomputing the whole history in its takeover.
    rt.ownership ??= new PartitionOwnership(await rt.log.partitions(rt.topics.cards), rt.logger);
    processor.useOwnership(rt.ownership);
    if (rt.ownership.joinedOnce) rt.ownership.applyAssigned();
    else if (options.ownAllUntilJoined) rt.ownership.applyAll();
    else rt.ownership.apply(processor.checkpointedPartitions);
  }
  return processor;
}

/**
 * Holds the view's input near the processor's: the view left free read the whole input history in the
 * first minutes of a rebuild, writing a record per card and result into the same LevelDB while the
 * processor's first batches waited on it (the first 60,000 of 1.6 M records took about 300 s longer
 * than on a two-year history). Released when the processor is caught up.
 */
export class ViewLead {
  #processed = 0;
  #released = false;
  #waiting: { upTo: number; resolve: () => void } | undefined;

  constructor(private readonly lead: number) {}

  /** undefined when the view may go on with `inputRecords` consumed; else a promise for when it may. */
  wait(inputRecords: number): Promise<void> | undefined {
    if (this.#released || inputRecords <= this.#processed + this.lead) return undefined;
    return new Promise((resolve) => {
      this.#waiting = { upTo: inputRecords, resolve };
    });
  }

  processed(records: number): void {
    this.#processed = records;
    const w = this.#waiting;
    if (w && w.upTo <= records + this.lead) {
      this.#waiting = undefined;
      w.resolve();
    }
  }

  release(): void {
    this.#released = true;
    this.#waiting?.resolve();
    this.#waiting = undefined;
  }
}

/**
 * Runs the analytics processor until caught up, with the API's view following it concurrently (so the
 * view's store writes overlap the processor's work) but no more than a batch of input ahead of it
 * (ViewLead), then lets the view catch up. Returns the figures and the processor, which `serve` keeps
 * running. The view left to catch up after the processor instead cost less on three years but more on the
 * full history, where its writes, all at the end, stalled LevelDB (docs/performance-history.md, "The view after
 * the processor, tried").
 */
export async function processAll(
  rt: Runtime,
  options: { ownAllUntilJoined?: boolean } = {},
): Promise<ProcessFigures & { processor: AnalyticsProcessor }> {
  const opened = performance.now();
  const processor = await openProcessor(rt, options);
  const loadSeconds = (performance.now() - opened) / 1000;
  // after the open: a state it dropped (another layout, a checkpoint cut short) replays from the start
  const ends = await Promise.all(
    [rt.topics.cards, rt.topics.results, rt.topics.courses].map((t) => rt.log.endOffsets(t)),
  );
  const committed = await Promise.all(
    [rt.topics.cards, rt.topics.results, rt.topics.courses].map((t) => rt.log.committed(rt.groups.analytics, t)),
  );
  const total = ends.flat().reduce((a, b) => a + b, 0) - committed.flat().reduce((a, b) => a + b, 0);
  const started = performance.now();
  const bar = progress('process', Math.max(total, 0), 'records');
  const gc = new GcTime();
  const showPhases = phasesInProgress();
  const following = new AbortController();
  // the view may read one batch of the processor's input ahead of it
  const lead = new ViewLead(CATCH_UP_BATCH_RECORDS);
  const view = (
    untilCaughtUp: boolean,
    signal?: AbortSignal,
    gate?: (inputRecords: number) => Promise<void> | undefined,
  ) =>
    runViewMaterializer({
      log: rt.log,
      codecs: rt.codecs,
      view: rt.view,
      logger: rt.logger,
      group: rt.groups.view,
      untilCaughtUp,
      ...(signal ? { signal } : {}),
      ...(gate ? { gate } : {}),
    });
  const follower = view(false, following.signal, (n) => lead.wait(n));
  let caughtUpRows: number | undefined;
  try {
    await processor.run({
      untilCaughtUp: true,
      checkpointIntervalMs: rt.config.catchUpCheckpointMs,
      onBatch: (s) => {
        lead.processed(s.records);
        bar.update(
          s.records,
          showPhases
            ? `${s.rowsEmitted} rows ${JSON.stringify({ ...phaseSeconds(s, gc), ...processor.stateCounters })}`
            : `${s.rowsEmitted} rows`,
        );
      },
    });
    if (rt.ownership && rt.groups.owners && !rt.ownership.joinedOnce) {
      // caught up: join the group, take over what it assigns, and publish what differs
      await rt.ownership.join(rt.log, rt.groups.owners, rt.topics.cards, rt.lifetime.signal);
      caughtUpRows = processor.stats.rowsEmitted;
      await processor.flushNow();
      await processor.checkpointNow(); // what it owns and emitted, so a restart takes over nothing
    }
  } finally {
    gc.stop();
    lead.release();
    following.abort();
    await follower;
  }
  const seconds = (performance.now() - started) / 1000;
  bar.finish(
    `${processor.stats.rowsEmitted} rows, ${processor.stats.tombstones} tombstones, ${processor.stats.deadLetters} dead letters`,
  );
  const viewBar = progress('materialise view', undefined, 'batches');
  const viewStarted = performance.now();
  await view(true);
  const viewSeconds = (performance.now() - viewStarted) / 1000;
  viewBar.finish();
  return {
    races: processor.newRaceCount,
    loadSeconds,
    records: processor.stats.records,
    rows: processor.stats.rowsEmitted,
    tombstones: processor.stats.tombstones,
    deadLetters: processor.stats.deadLetters,
    seconds,
    viewSeconds,
    rowsPerSecond: seconds > 0 ? processor.stats.rowsEmitted / seconds : 0,
    takeoverRows: caughtUpRows === undefined ? 0 : processor.stats.rowsEmitted - caughtUpRows,
    phaseSeconds: phaseSeconds(processor.stats, gc),
    checkpoints: checkpointFigures(processor),
    processor,
  };
}

/** Drops derived state and outputs (processor state, view, analytics/snapshot/dead-letter topics) and replays. */
export async function rebuild(
  rt: Runtime,
): Promise<ProcessFigures & { processor: AnalyticsProcessor; resumed: boolean }> {
  // A rebuild that was interrupted (kill -9, power loss) resumes from the processor's last checkpoint
  // instead of starting from zero: the marker is written after the reset and removed at the end.
  const MARKER = 'rebuild-in-progress';
  const resumed = (await rt.store.get(MARKER)) !== undefined;
  if (!resumed) {
    // (the store compacts what it drops: docs/operations.md, "Replays and rebuilds")
    const reset = progress('drop derived state', undefined, 'steps');
    await rt.processorStore.clear();
    await rt.view.clear();
    for (const t of [rt.topics.analytics, rt.topics.courseSnapshots, rt.topics.deadLetter]) await rt.log.truncate(t);
    await rt.log.resetGroup(rt.groups.analytics, [rt.topics.cards, rt.topics.results, rt.topics.courses]);
    await rt.log.resetGroup(rt.groups.view, viewTopics(rt.topics));
    await rt.store.put(MARKER, Buffer.from(new Date().toISOString()));
    reset.finish('(processor state and read model dropped and compacted, derived topics truncated)');
  } else {
    process.stderr.write('resuming an interrupted rebuild from its last checkpoint\n');
  }
  const figures = await processAll(rt, { ownAllUntilJoined: true });
  await rt.store.del(MARKER);
  return { ...figures, resumed };
}

/** True when nothing was ever published to the input topics. */
export async function inputIsEmpty(rt: Runtime): Promise<boolean> {
  const ends = await rt.log.endOffsets(rt.topics.cards);
  return ends.every((e) => e === 0);
}
