/**
 * Rebuild benchmark: generates the given range (all events, a complete history) and times
 * `racing rebuild` in a child process: races, rows, the processor's seconds and the view's after it, wall time,
 * rows/s, the child's peak RSS and its phases.
 * `--modes embedded,kafka` measures both in the same run: Kafka mode on a real broker started for the
 * run (scripts/kafka/kafka.mjs) with the project's registry (`racing registry`).
 * `--day-after` then publishes one more day after the history (the day after `--to`: the cards, updates
 * and results published during it) and times `racing process` on the rebuilt state, as `npm run
 * bench:day` does after shorter histories: the history is then generated over a range two days longer,
 * published until the end of `--to`, so that the extra day continues the same feed.
 *   npm run bench:rebuild -- --from 2023-11-22 --to 2026-11-24 [--modes embedded,kafka] [--seed N] [--scale F] [--day-after]
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { commandFigures } from './command-figures.js';

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    from: { type: 'string' },
    to: { type: 'string' },
    seed: { type: 'string', default: '1' },
    scale: { type: 'string', default: '1' },
    modes: { type: 'string', default: 'embedded' },
    partitions: { type: 'string', default: '4' },
    'day-after': { type: 'boolean', default: false },
  },
});
if (!values.from || !values.to) throw new Error('usage: bench:rebuild -- --from YYYY-MM-DD --to YYYY-MM-DD');
const root = join(import.meta.dirname, '..');
const cli = join(root, 'dist', 'cli', 'racing.js');
const node = [process.execPath, '--max-semi-space-size=64'];
const DAY_MS = 86_400_000;
const endOfTo = Date.parse(`${values.to}T23:59:59.999Z`);
const dayAfter = values['day-after']!;
// with --day-after the range reaches two days further, the history published until the end of --to
const generateRange = [
  '--from',
  values.from!,
  '--to',
  dayAfter ? new Date(endOfTo + 2 * DAY_MS).toISOString().slice(0, 10) : values.to!,
  '--seed',
  values.seed!,
  '--scale',
  values.scale!,
];

async function measure(mode: string, extraEnv: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), `racing-bench-${mode}-`));
  const env = {
    ...process.env,
    RACING_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RACING_PARTITIONS: values.partitions!,
    // as the `racing` command and `npm start` run the service (README, "Memory")
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
    ...extraEnv,
  };
  try {
    const g0 = performance.now();
    await racing(env, ['generate', ...generateRange, '--until', dayAfter ? new Date(endOfTo).toISOString() : 'all']);
    const generateSeconds = (performance.now() - g0) / 1000;
    const {
      figures: f,
      wallSeconds: wall,
      peakRssMb,
    } = await timedRacing<{
      races: number;
      records: number;
      rows: number;
      seconds: number;
      viewSeconds: number;
      takeoverRows?: number;
      phaseSeconds?: Record<string, number>;
      checkpoints?: { count: number; written: Record<string, { records: number; mb: number }> };
    }>(env, ['rebuild', ...(mode === 'kafka' ? ['--yes'] : [])]);
    const oneMoreDay = dayAfter ? await measureDayAfter(env) : undefined;
    return {
      mode,
      from: values.from,
      to: values.to,
      generateSeconds: +generateSeconds.toFixed(1),
      races: f.races,
      inputRecords: f.records,
      rows: f.rows,
      processSeconds: +f.seconds.toFixed(1),
      // the view's catch-up after the processor's (the API's read model; cli/commands/pipeline.ts)
      viewSeconds: +f.viewSeconds.toFixed(1),
      processAndViewSeconds: +(f.seconds + f.viewSeconds).toFixed(1),
      wallSeconds: +wall.toFixed(1),
      rowsPerSecond: Math.round(f.rows / f.seconds),
      rowsPerSecondWall: Math.round(f.rows / wall),
      peakRssMb,
      // Kafka mode: rows left to the takeover after the catch-up (0 when the replay emitted them all)
      takeoverRows: f.takeoverRows ?? null,
      // where the processor's seconds went (docs/performance.md, "Commands": the phases)
      phaseSeconds: f.phaseSeconds ?? null,
      // the processor's checkpoints and what they wrote of its state, by kind of record
      checkpoints: f.checkpoints ?? null,
      ...(oneMoreDay ? { oneMoreDay } : {}),
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Publishes the day after --to on the rebuilt state and times `racing process` on it. */
async function measureDayAfter(env: NodeJS.ProcessEnv) {
  const since = new Date(endOfTo).toISOString();
  const until = new Date(endOfTo + DAY_MS).toISOString();
  await racing(env, ['generate', ...generateRange, '--since', since, '--until', until]);
  const {
    figures: d,
    wallSeconds,
    peakRssMb,
  } = await timedRacing<{
    records: number;
    rows: number;
    seconds: number;
    viewSeconds: number;
    loadSeconds: number;
  }>(env, ['process']);
  return {
    day: until.slice(0, 10),
    records: d.records,
    rows: d.rows,
    processSeconds: +d.seconds.toFixed(2),
    viewSeconds: +d.viewSeconds.toFixed(2),
    loadSeconds: +d.loadSeconds.toFixed(2),
    commandWallSeconds: +wallSeconds.toFixed(2),
    peakRssMb,
  };
}

function racing(env: NodeJS.ProcessEnv, args: string[]) {
  return run(node[0]!, [...node.slice(1), cli, ...args], { env, maxBuffer: 1 << 26 });
}

/** `racing ...args` under `/usr/bin/time -v`: its last output line (JSON figures), wall seconds and peak RSS. */
async function timedRacing<F>(
  env: NodeJS.ProcessEnv,
  args: string[],
): Promise<{ figures: F; wallSeconds: number; peakRssMb: number | null }> {
  const t0 = performance.now();
  const { stdout, stderr } = await run('/usr/bin/time', ['-v', ...node, cli, ...args], { env, maxBuffer: 1 << 26 });
  const wallSeconds = (performance.now() - t0) / 1000;
  const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
  return {
    figures: commandFigures<F>(args.join(' '), stdout, stderr),
    wallSeconds,
    peakRssMb: rss ? Math.round(Number(rss[1]) / 1024) : null,
  };
}

const modes = values.modes!.split(',').map((m) => m.trim());
let kafka: { stop(): Promise<void>; brokers: string } | undefined;
let registry: ChildProcess | undefined;
try {
  for (const mode of modes) {
    if (mode === 'embedded') {
      console.log(JSON.stringify(await measure('embedded', {})));
    } else if (mode === 'kafka') {
      const { startKafka } = (await import(join(root, 'scripts', 'kafka', 'kafka.mjs'))) as {
        startKafka: () => Promise<{ stop(): Promise<void>; brokers: string }>;
      };
      kafka = await startKafka();
      const port = String(18000 + Math.floor(Math.random() * 2000));
      registry = spawn(process.execPath, [cli, 'registry'], {
        env: { ...process.env, KAFKA_BROKERS: kafka.brokers, REGISTRY_PORT: port, LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      await new Promise<void>((resolve, reject) => {
        let err = '';
        registry!.stderr!.on('data', (b: Buffer) => {
          err += b.toString();
          if (err.includes('schema registry on')) resolve();
        });
        registry!.once('exit', (code) => reject(new Error(`registry exited ${code}: ${err}`)));
      });
      console.log(
        JSON.stringify(
          await measure('kafka', {
            RACING_MODE: 'kafka',
            KAFKA_BROKERS: kafka.brokers,
            SCHEMA_REGISTRY_URL: `http://127.0.0.1:${port}`,
          }),
        ),
      );
    } else {
      throw new Error(`unknown mode ${mode}`);
    }
  }
} finally {
  registry?.kill('SIGTERM');
  await kafka?.stop();
}
