/**
 * Live latency: from publishing a result to its race's final rows being pushed on the change stream
 * (GET /api/v1/stream/analytics, read by the `eventsource` client) and served by
 * GET /api/v1/races/{raceId}/analytics, in one run for the embedded default and then Kafka mode (a local
 * broker started for the run, scripts/kafka/kafka.mjs, and the project's registry in-process).
 *
 * Each mode: a generated history (every card of the range, every result but the last N) is processed;
 * the service runs as `racing serve` composes it (processor and view tailing the log, the API on a
 * socket); then the last N results are published one at a time, each to a race whose card was processed
 * long before. For each: t0 publish, and the time the client has received a final row for every runner
 * of the race on the stream (push), then the GET that follows returns them all final (served). The first
 * --warmup results are left out of the figures.
 *
 * Where the time goes, from instrumentation hooks (no log parsing): a LogPort decorator around the
 * runtime's log timestamps the produce acknowledgement, the processor's batch holding the result, the
 * processor's produce of the rows and its acknowledgement, and the view's batch holding them; the change
 * log's subscription gives the moment the view applied them (durable and readable), and the stream's
 * onWritten hook the moment they were written to the client's socket.
 *
 * The service code runs compiled, from dist/ (the npm script builds it), as `npm start` runs it;
 * `--source` runs the TypeScript sources through tsx instead.
 *
 * The next result is published once the previous is served, the processor has finished the batch that
 * held it (the pending races the result touches are recomputed after its own rows are produced) and the
 * view has applied every row that batch produced, then --gap ms: each result meets an idle service, as
 * live results do (minutes apart).
 * --back-to-back publishes it once the previous is served, while the processor may still be busy.
 *
 *   npm run bench:latency -- [--modes embedded,kafka] [--results 250] [--warmup 10] [--from 2024-03-01]
 *                            [--to 2024-04-30] [--scale 1] [--seed 3] [--partitions 4] [--back-to-back]
 *                            [--worst N]
 *
 * --worst N prints the N slowest pushes of each mode, each with its stages and the garbage collector's
 * pauses (this process: the service and the client) between its publish and its push.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { PerformanceObserver } from 'node:perf_hooks';
import { Session } from 'node:inspector/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EventSource } from 'eventsource';
import type * as AppModule from '../api/app.js';
import type * as ConfigModule from '../cli/config.js';
import type * as BackgroundModule from '../cli/commands/background.js';
import type * as PipelineModule from '../cli/commands/pipeline.js';
import type * as RuntimeModule from '../cli/runtime.js';
import type * as GeneratorModule from '../domain/generator/index.js';
import type * as LoggerModule from '../domain/logger.js';
import type * as PublisherModule from '../streams/publisher.js';
import type * as RegistryModule from '../streams/registry-server/index.js';
import type { Runtime } from '../cli/runtime.js';
import type { PublishableEvent } from '../domain/events.js';
import type { ConsumeOptions, LogBatch, LogPort, OutRecord } from '../streams/log-port.js';
import { serviceModules } from './service-modules.js';

const { values } = parseArgs({
  options: {
    modes: { type: 'string', default: 'embedded,kafka' },
    results: { type: 'string', default: '250' },
    warmup: { type: 'string', default: '10' },
    from: { type: 'string', default: '2024-03-01' },
    to: { type: 'string', default: '2024-04-30' },
    scale: { type: 'string', default: '1' },
    seed: { type: 'string', default: '3' },
    partitions: { type: 'string', default: '4' },
    gap: { type: 'string', default: '20' },
    settle: { type: 'string', default: '15' },
    /** publish the next result once the previous is served, without waiting for the processor's batch to end */
    'back-to-back': { type: 'boolean', default: false },
    /** write a CPU profile of the live phase (after the history) to <profile>-<mode>.cpuprofile */
    profile: { type: 'string' },
    /** run the TypeScript sources through tsx instead of the compiled dist/ (`npm run build`), as served */
    source: { type: 'boolean', default: false },
    /** print the N slowest pushes of each mode with their stages and the collector's pauses */
    worst: { type: 'string', default: '0' },
  },
});

// The service as `npm start` runs it: compiled JavaScript from dist/ (see service-modules.ts).
const load = serviceModules(values.source);
const { buildApp } = await load<typeof AppModule>('api/app.js');
const { serviceConfigFromEnv } = await load<typeof ConfigModule>('cli/config.js');
const { newBackground, startBackground } = await load<typeof BackgroundModule>('cli/commands/background.js');
const { processAll } = await load<typeof PipelineModule>('cli/commands/pipeline.js');
const { openKafkaLog, openRuntime } = await load<typeof RuntimeModule>('cli/runtime.js');
const { generateFeed } = await load<typeof GeneratorModule>('domain/generator/index.js');
const { createLogger } = await load<typeof LoggerModule>('domain/logger.js');
const { publishEvents } = await load<typeof PublisherModule>('streams/publisher.js');
const { buildRegistryServer, createLogSchemaStore, startRegistryServer } = await load<typeof RegistryModule>(
  'streams/registry-server/index.js',
);
const N = Number(values.results);
const WARMUP = Number(values.warmup);
const GAP_MS = Number(values.gap);
/** Seconds between catching up with the history and the first result (LevelDB compacts what was just written). */
const SETTLE_S = Number(values.settle);
const logger = createLogger({ level: 'warn' });
const now = () => performance.now();
const WORST = Number(values.worst);

/** The collector's pauses in this process (start, duration, kind), for --worst. */
const gcPauses: { start: number; ms: number; major: boolean }[] = [];
if (WORST > 0) {
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = (e as unknown as { detail?: { kind?: number } }).detail?.kind ?? 0;
      // NODE_PERFORMANCE_GC_MAJOR = 4 (mark-compact)
      gcPauses.push({ start: e.startTime, ms: e.duration, major: kind === 4 });
    }
  }).observe({ entryTypes: ['gc'] });
}

/** Where a result is on its way, in order. */
type Stage =
  | 'publish'
  | 'produceAck'
  | 'processorBatch'
  | 'processorDone'
  | 'rowsProduce'
  | 'rowsAck'
  | 'viewBatch'
  | 'viewApplied'
  | 'sseWritten'
  | 'pushed'
  | 'served';
/** CPU time this process has used (all its threads: main, libuv, LevelDB), ms. */
const cpu = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** One result's journey: the moment (performance.now() ms) and the process CPU time at each stage reached. */
interface Trace {
  raceId: string;
  runners: Set<string>;
  at: Partial<Record<Stage, number>>;
  cpu: Partial<Record<Stage, number>>;
  /**
   * rows (and tombstones) in the processor's first produce of the race's rows after its batch started:
   * the rows of the races whose own input is in the batch (the pending races it touches follow apart)
   */
  rowsInBatch?: number;
  /** the race's rows (values) in that produce: what the view, the stream and the client wait for */
  produced?: Buffer[];
  /** final rows of the race seen at each step */
  applied: Set<string>;
  written: Set<string>;
  received: Set<string>;
}

/** Whether a row value is one of the race's rows the batch holding its result produced. */
function isProduced(t: Trace, value: Buffer | null): boolean {
  return value !== null && t.produced !== undefined && t.produced.some((v) => v.equals(value));
}

/** Marks a stage the first time it is reached. */
function mark(t: Trace, stage: Stage): void {
  if (t.at[stage] !== undefined) return;
  t.at[stage] = now();
  t.cpu[stage] = cpu();
}

/** The trace of the race being measured (one at a time). */
let current: Trace | undefined;
/** analytics partition -> the offset after the last row the view has applied (for the pacing) */
const viewDone = new Map<number, number>();
const raceOf = (key: string) => key.slice(0, key.indexOf(':'));

/** A LogPort that timestamps what the measured race goes through; everything else is the wrapped log's. */
function traced(log: LogPort, rt: Runtime): LogPort {
  const t = rt.topics;
  return {
    ensureTopics: (s) => log.ensureTopics(s),
    partitions: (topic) => log.partitions(topic),
    async produce(topic: string, records: readonly OutRecord[]) {
      const c = current;
      // only once the batch holding the result has started: the produce of the pending races an earlier
      // result touched (the measured race may be one of them) can still be under way before it
      const mine =
        c !== undefined &&
        c.at.processorBatch !== undefined &&
        topic === t.analytics &&
        records.some((r) => raceOf(r.key) === c.raceId);
      if (mine && c.at.rowsProduce === undefined) {
        mark(c, 'rowsProduce');
        c.rowsInBatch = records.length;
        c.produced = records.flatMap((r) => (raceOf(r.key) === c.raceId && r.value ? [r.value] : []));
      }
      await log.produce(topic, records);
      if (mine) mark(c, 'rowsAck');
    },
    endOffsets: (topic) => log.endOffsets(topic),
    startOffsets: (topic) => log.startOffsets(topic),
    read: (topic, p, offset, max) => log.read(topic, p, offset, max),
    consume(options: ConsumeOptions, handler: (batch: LogBatch) => Promise<void>) {
      const role = options.group === rt.groups.analytics ? 'processor' : options.group === rt.groups.view ? 'view' : '';
      if (role === '') return log.consume(options, handler);
      return log.consume(options, async (batch) => {
        const c = current;
        let holds = false;
        if (c !== undefined) {
          for (const r of batch.records) {
            if (role === 'processor' && r.topic === t.results && r.key === c.raceId) {
              mark(c, 'processorBatch');
              holds = true;
            }
            if (role === 'view' && r.topic === t.analytics && isProduced(c, r.value)) mark(c, 'viewBatch');
          }
        }
        await handler(batch);
        if (holds && c) mark(c, 'processorDone');
        if (role === 'view') {
          for (const r of batch.records) if (r.topic === t.analytics) viewDone.set(r.partition, r.offset + 1);
        }
      });
    },
    committed: (group, topic) => log.committed(group, topic),
    resetGroup: (group, topics) => log.resetGroup(group, topics),
    truncate: (topic) => log.truncate(topic),
    compact: (topic) => log.compact(topic),
    close: () => log.close(),
  };
}

function feedOf(): { history: PublishableEvent[]; live: (PublishableEvent & { kind: 'result' })[] } {
  const feed = [
    ...generateFeed({ from: values.from!, to: values.to!, seed: Number(values.seed), scale: Number(values.scale) }),
  ] as PublishableEvent[];
  const results = feed.filter((e): e is PublishableEvent & { kind: 'result' } => e.kind === 'result');
  if (results.length < N * 2) throw new Error(`only ${results.length} results in the range; widen it`);
  const live = results.slice(-N);
  const held = new Set(live);
  // Every card is published up front (so each live result's race was processed long before), every
  // course and every other result in feed order.
  return { history: feed.filter((e) => !held.has(e as never)), live };
}

async function inProcessRegistry(brokers: string, prefix: string) {
  const config = serviceConfigFromEnv({ KAFKA_BROKERS: brokers, LOG_LEVEL: 'warn', RACING_DATA_DIR: tmpdir() });
  const log = await openKafkaLog(config, logger);
  const store = await createLogSchemaStore(log, `${prefix}_schemas`, { logger });
  const app = buildRegistryServer({ store, logger });
  const url = await startRegistryServer(app, { host: '127.0.0.1', port: 0 });
  return {
    url,
    async close() {
      await app.close();
      await store.close();
      await log.close();
    },
  };
}

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
};
const r1 = (x: number) => Math.round(x * 10) / 10;
const stats = (xs: number[]) => ({
  n: xs.length,
  p50: r1(pct(xs, 50)),
  p90: r1(pct(xs, 90)),
  p99: r1(pct(xs, 99)),
  max: r1(Math.max(...xs)),
  mean: r1(xs.reduce((a, b) => a + b, 0) / xs.length),
});

async function measure(mode: 'embedded' | 'kafka', env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), `racing-latency-${mode}-`));
  const config = serviceConfigFromEnv({
    ...env,
    RACING_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RACING_PARTITIONS: values.partitions!,
    RACING_INSTANCE_ID: 'latency',
  });
  const rt = await openRuntime(config, logger);
  let publisher: LogPort = rt.log;
  const clean: (() => Promise<void>)[] = [];
  try {
    rt.log = traced(rt.log, rt);
    if (mode === 'kafka') {
      // A producer of its own, as a feed would have; the service's producer is the processor's.
      publisher = await openKafkaLog(config, logger);
      clean.push(() => publisher.close());
    }
    const { history, live } = feedOf();
    const g0 = now();
    await publishEvents(rt.log, rt.codecs, history);
    const { processor, races, rows } = await processAll(rt);
    const historySeconds = (now() - g0) / 1000;
    const abort = new AbortController();
    const tasks = startBackground(rt, processor, newBackground(), {
      signal: abort.signal,
      onFatal: (e) => abort.abort(e),
    });
    clean.unshift(async () => {
      abort.abort();
      await Promise.allSettled(tasks);
    });
    const { unsubscribe } = watchView(rt);
    clean.unshift(async () => unsubscribe());
    const app = buildApp({
      readModel: rt.view,
      changes: rt.view.changes,
      keys: rt.keys,
      config: { ...config.api, port: 0, rateLimit: { requestsPerMinute: 1_000_000, perAddressPerMinute: 1_000_000 } },
      logger,
      stream: {
        ...config.stream,
        onWritten: (changes) => {
          const c = current;
          if (!c) return;
          for (const ch of changes) if (ch.raceId === c.raceId && isProduced(c, ch.value)) c.written.add(ch.horseId);
          if ([...c.runners].every((h) => c.written.has(h))) mark(c, 'sseWritten');
        },
      },
    });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    clean.unshift(() => app.close());
    await new Promise((r) => setTimeout(r, SETTLE_S * 1000));
    const { key } = await rt.keys.create('latency bench');
    const headers = { 'X-Api-Key': key };

    let onComplete: (() => void) | undefined;
    const source = new EventSource(`${url}/api/v1/stream/analytics`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, ...headers } }),
    });
    clean.unshift(async () => source.close());
    source.addEventListener('upsert', (e) => {
      const c = current;
      if (!c) return;
      // A row's JSON starts with its raceId (the schema's first field): parse only the measured race's rows,
      // so the client's own work on the other races' rows stays out of the figures as far as it can.
      if (!e.data.startsWith(`{"raceId":"${c.raceId}"`)) return;
      const row = JSON.parse(e.data) as { raceId: string; horseId: string; status: string };
      if (row.raceId !== c.raceId || row.status !== 'final') return;
      c.received.add(row.horseId);
      if (c.at.pushed === undefined && [...c.runners].every((h) => c.received.has(h))) {
        mark(c, 'pushed');
        onComplete?.();
      }
    });
    await new Promise<void>((resolve, reject) => {
      source.addEventListener('ready', () => resolve(), { once: true });
      source.addEventListener(
        'error',
        (e) => reject(new Error(`stream: ${String((e as { message?: string }).message)}`)),
        {
          once: true,
        },
      );
    });

    const traces: Trace[] = [];
    const profiler = values.profile ? await startProfile() : undefined;
    for (const result of live) {
      const raceId = result.value.raceId;
      const before = (await (await fetch(`${url}/api/v1/races/${raceId}/analytics`, { headers })).json()) as {
        horseId: string;
      }[];
      const runners = new Set(before.map((r) => r.horseId));
      if (runners.size === 0) continue;
      const trace: Trace = {
        raceId,
        runners,
        at: {},
        cpu: {},
        applied: new Set(),
        written: new Set(),
        received: new Set(),
      };
      const pushed = new Promise<void>((resolve) => (onComplete = resolve));
      current = trace;
      mark(trace, 'publish');
      await publisher.produce(rt.topics.results, [
        { key: raceId, value: rt.codecs.result.encode(result.value), timestamp: result.publishedAt },
      ]);
      mark(trace, 'produceAck');
      const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 30_000).unref());
      if ((await Promise.race([pushed, timeout])) === 'timeout') throw new Error(`no final rows for ${raceId} in 30 s`);
      // served: the GET that follows the push, again until every row is final (it is at once: the view
      // tells subscribers only after the rows are readable)
      for (;;) {
        const rowsNow = (await (await fetch(`${url}/api/v1/races/${raceId}/analytics`, { headers })).json()) as {
          horseId: string;
          status: string;
        }[];
        if ([...runners].every((h) => rowsNow.some((r) => r.horseId === h && r.status === 'final'))) break;
      }
      mark(trace, 'served');
      if (!values['back-to-back']) {
        // the batch that held the result goes on with the pending races it touches: wait for its end,
        // then for the view to have applied every row it produced (the service is idle again)
        const until = now() + 30_000;
        while (trace.at.processorDone === undefined) {
          if (now() > until) throw new Error(`the processor's batch holding ${raceId} did not end in 30 s`);
          await new Promise((r) => setTimeout(r, 2));
        }
        const ends = await rt.log.endOffsets(rt.topics.analytics);
        while (ends.some((end, p) => end > 0 && (viewDone.get(p) ?? 0) < end)) {
          if (now() > until) throw new Error(`the view did not apply the rows of ${raceId}'s batch in 30 s`);
          await new Promise((r) => setTimeout(r, 2));
        }
      }
      current = undefined;
      onComplete = undefined;
      traces.push(trace);
      await new Promise((r) => setTimeout(r, GAP_MS));
    }

    if (profiler) writeFileSync(`${values.profile}-${mode}.cpuprofile`, JSON.stringify(await profiler.stop()));
    const measured = traces.slice(WARMUP);
    const between = (kind: 'at' | 'cpu', a: Stage, b: Stage) =>
      measured.flatMap((t) => {
        const x = t[kind][a];
        const y = t[kind][b];
        return x !== undefined && y !== undefined ? [y - x] : [];
      });
    /** wall time, and the CPU time the process used meanwhile (what it would take on an idle machine, roughly) */
    const both = (a: Stage, b: Stage) => ({ wall: stats(between('at', a, b)), cpu: stats(between('cpu', a, b)) });
    return {
      mode,
      history: { races, rows, seconds: r1(historySeconds) },
      results: measured.length,
      rowsPerResult: stats(measured.map((t) => t.rowsInBatch ?? 0)),
      pushMs: both('publish', 'pushed'),
      servedMs: both('publish', 'served'),
      /** the processor's whole batch holding the result: its race, then the pending races it touches */
      batchMs: both('processorBatch', 'processorDone'),
      breakdownMs: {
        '1 produce acknowledged': both('publish', 'produceAck'),
        '2 processor batch starts': both('produceAck', 'processorBatch'),
        '3 engine: rows computed': both('processorBatch', 'rowsProduce'),
        '4 rows produce acknowledged': both('rowsProduce', 'rowsAck'),
        '5 view batch starts': both('rowsAck', 'viewBatch'),
        '6 view applied (durable, readable)': both('viewBatch', 'viewApplied'),
        '7 written to the SSE socket': both('viewApplied', 'sseWritten'),
        '8 received by the SSE client': both('sseWritten', 'pushed'),
        '9 GET /races/{id}/analytics answered': both('pushed', 'served'),
      },
      worstPushes: worstPushes(measured, WORST),
    };
  } finally {
    for (const f of clean) await f().catch(() => undefined);
    await rt.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The n slowest pushes: each stage's wall ms and the collector's pauses between publish and push. */
function worstPushes(traces: readonly Trace[], n: number) {
  if (n <= 0) return [];
  const order: Stage[] = [
    'publish',
    'produceAck',
    'processorBatch',
    'rowsProduce',
    'rowsAck',
    'viewBatch',
    'viewApplied',
    'sseWritten',
    'pushed',
  ];
  return traces
    .filter((t) => t.at.publish !== undefined && t.at.pushed !== undefined)
    .sort((a, b) => b.at.pushed! - b.at.publish! - (a.at.pushed! - a.at.publish!))
    .slice(0, n)
    .map((t) => {
      const from = t.at.publish!;
      const to = t.at.pushed!;
      const stages: Record<string, number> = {};
      for (let i = 1; i < order.length; i++) {
        const a = t.at[order[i - 1]!];
        const b = t.at[order[i]!];
        if (a !== undefined && b !== undefined) stages[order[i]!] = r1(b - a);
      }
      const pauses = gcPauses.filter((g) => g.start < to && g.start + g.ms > from);
      return {
        raceId: t.raceId,
        pushMs: r1(to - from),
        rows: t.rowsInBatch ?? 0,
        stages,
        gcMs: r1(pauses.reduce((sum, g) => sum + g.ms, 0)),
        gcMajor: pauses.filter((g) => g.major).length,
      };
    });
}

/** The change log's subscription: when the view applied (and made readable) the race's final rows. */
function watchView(rt: Runtime): { unsubscribe: () => void } {
  const unsubscribe = rt.view.changes.subscribe((changes) => {
    const c = current;
    if (!c) return;
    for (const ch of changes) if (ch.raceId === c.raceId && isProduced(c, ch.value)) c.applied.add(ch.horseId);
    if ([...c.runners].every((h) => c.applied.has(h))) mark(c, 'viewApplied');
  });
  return { unsubscribe };
}

const modes = values.modes!.split(',').map((m) => m.trim());
const out: unknown[] = [];
console.log(`load average at the start: ${loadAverage().join(' ')}`);
let kafka: { stop(): Promise<void>; brokers: string } | undefined;
let registry: { url: string; close(): Promise<void> } | undefined;
try {
  for (const mode of modes) {
    if (mode === 'embedded') {
      out.push(await measure('embedded', {}));
    } else if (mode === 'kafka') {
      const { startKafka } = (await import(join(import.meta.dirname, '..', 'scripts', 'kafka', 'kafka.mjs'))) as {
        startKafka: () => Promise<{ stop(): Promise<void>; brokers: string }>;
      };
      kafka = await startKafka();
      const prefix = `lat${Date.now().toString(36)}.`;
      registry = await inProcessRegistry(kafka.brokers, prefix);
      out.push(
        await measure('kafka', {
          RACING_MODE: 'kafka',
          KAFKA_BROKERS: kafka.brokers,
          SCHEMA_REGISTRY_URL: registry.url,
          RACING_TOPIC_PREFIX: prefix,
        }),
      );
    } else {
      throw new Error(`unknown mode ${mode}`);
    }
    console.log(JSON.stringify(out.at(-1)));
  }
  console.log(summary(out as Awaited<ReturnType<typeof measure>>[]));
} finally {
  await registry?.close();
  await kafka?.stop();
}

/** The figures as a table: push and served p50/p99 per mode, then the stages (p50 / p99). */
function summary(results: Awaited<ReturnType<typeof measure>>[]): string {
  const lines = [
    `load average at the end: ${loadAverage().join(' ')}`,
    `pacing: ${values['back-to-back'] ? 'back to back (once served)' : 'once served, the processor batch ended and the view applied its rows'}, gap ${GAP_MS} ms`,
    '| mode | results | rows per result (p50) | push p50 / p99 ms | served p50 / p99 ms | push CPU p50 / p99 ms | whole batch p50 / p99 ms |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of results)
    lines.push(
      `| ${r.mode} | ${r.results} | ${r.rowsPerResult.p50} | ${r.pushMs.wall.p50} / ${r.pushMs.wall.p99} | ` +
        `${r.servedMs.wall.p50} / ${r.servedMs.wall.p99} | ${r.pushMs.cpu.p50} / ${r.pushMs.cpu.p99} | ` +
        `${r.batchMs.wall.p50} / ${r.batchMs.wall.p99} |`,
    );
  lines.push(
    '',
    `| stage: wall p50 / p99 (CPU p50) ms | ${results.map((r) => r.mode).join(' | ')} |`,
    `|---|${results.map(() => '---|').join('')}`,
  );
  for (const stage of Object.keys(results[0]?.breakdownMs ?? {})) {
    const cells = results.map((r) => {
      const s = r.breakdownMs[stage as keyof typeof r.breakdownMs];
      return `${s.wall.p50} / ${s.wall.p99} (${s.cpu.p50})`;
    });
    lines.push(`| ${stage} | ${cells.join(' | ')} |`);
  }
  for (const r of results) {
    if (r.worstPushes.length === 0) continue;
    lines.push('', `slowest pushes, ${r.mode} (ms; stage: time since the stage before; gc: pauses in the push):`);
    for (const w of r.worstPushes) {
      const stages = Object.entries(w.stages)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
      lines.push(`  ${w.pushMs} (${w.rows} rows): ${stages}; gc ${w.gcMs} (${w.gcMajor} major)`);
    }
  }
  return lines.join('\n');
}

/** The V8 CPU profiler over this process's main thread, from now until stop(). */
async function startProfile(): Promise<{ stop(): Promise<unknown> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 500 });
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      return profile;
    },
  };
}

function loadAverage(): string[] {
  return loadavg().map((x) => x.toFixed(1));
}
