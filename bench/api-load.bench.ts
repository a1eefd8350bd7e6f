/**
 * API throughput against what Fastify itself can do on the same machine: autocannon loads (a) a bare
 * Fastify route that returns the same bytes and (b) the service, for GET /races/{id}/analytics,
 * GET /races?date and the course endpoints (GET /courses, /courses/{id}?asOf, /courses/{id}/analytics,
 * /open-data/course-topology), and prints requests per second, p99 latency and the ratio service/bare.
 * Target: ratio >= 0.7 and p99 < 10 ms at 32 connections.
 *
 *   npm run bench:api [-- --data-dir DIR] [--duration 10] [--connections 32] [--rounds 2]
 *                        [--encodings identity,br] [--paths analytics,racesOnDate] [--pin auto|off]
 *
 * Each path is loaded once per coding in --encodings: `identity` sends no Accept-Encoding (the whole JSON
 * on the wire), `br` and `gzip` send that Accept-Encoding, as browsers, curl --compressed and most HTTP
 * libraries do; the bare route then answers with the service's own compressed bytes.
 *
 * Without --data-dir it generates and processes a month of racing (scale 0.6) in a temporary data dir.
 * Each server runs in its own child process (bench/api-load-server.ts), autocannon in this one; the
 * service runs compiled from dist/ (the npm script builds it) with the V8 flags of `npm start`. Bare and
 * service are loaded in turn, `rounds` times each (each run `duration` seconds after a 2 s warm-up), and
 * the runs are averaged, so a change in the machine's load mid-run hits both sides. Because wall-clock
 * figures on a shared machine are noisy, it also prints the server's CPU time per request (read from
 * the child's process.cpuUsage around each run): a ratio of work done that other load barely moves.
 *
 * CPU pinning (--pin auto, the default): with taskset (util-linux) and at least two CPUs, the server
 * children run on CPU 0 and this process, autocannon's, on CPU 1 (`taskset -a -p`, all its threads). On
 * a 2-core machine unpinned, the load generator and the server share both cores and the scheduler
 * decides, run by run, how much of the server's core autocannon takes; the ratio then measures that
 * split as much as the server. Pinned, each side has a core of its own, and the figures say what the
 * server does with one core. Each run also prints the server's and autocannon's CPU use (% of one core):
 * a server well under 100% while autocannon is near 100% means the load generator, not the server, set
 * the pace (then the ratio understates the service's headroom, and the bare route's figure is a floor).
 * Other processes on the machine still share the cores: check the load average. --pin off: no pinning.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { parseArgs, promisify } from 'node:util';
import autocannon from 'autocannon';
import { addDays, todayUtc } from '../domain/time.js';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    rounds: { type: 'string', default: '2' },
    encodings: { type: 'string', default: 'identity,br' },
    /** only these paths, by name (analytics, racesOnDate, courses, courseProfile, courseSnapshots, openTopology) */
    paths: { type: 'string' },
    /** auto: servers on CPU 0, autocannon on CPU 1 when taskset and two CPUs are there; off: no pinning */
    pin: { type: 'string', default: 'auto' },
  },
});
if (values.pin !== 'auto' && values.pin !== 'off') throw new Error(`--pin: ${values.pin} is not auto or off`);
const encodings = values.encodings.split(',').map((e) => e.trim());
for (const e of encodings) {
  if (!['identity', 'br', 'gzip'].includes(e)) throw new Error(`--encodings: ${e} is not one of identity, br, gzip`);
}
const duration = Number(values.duration);
const connections = Number(values.connections);
const rounds = Number(values.rounds);
const root = join(import.meta.dirname, '..');
const cli = ['--import', 'tsx', join(root, 'cli', 'racing.ts')];
const run = promisify(execFile);

let dataDir = values['data-dir'];
let temporary: string | undefined;
if (!dataDir) {
  temporary = dataDir = mkdtempSync(join(tmpdir(), 'racing-api-bench-'));
  const env = { ...process.env, RACING_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
  const today = todayUtc();
  process.stderr.write(`generating and processing a month of racing in ${dataDir}...\n`);
  const range = ['--from', addDays(today, -30), '--to', addDays(today, 1), '--scale', '0.6'];
  await run(process.execPath, [...cli, 'generate', ...range], { cwd: root, env });
  await run(process.execPath, [...cli, 'process'], { cwd: root, env, maxBuffer: 1 << 26 });
}

/**
 * The CPU the server children run on, or undefined when nothing is pinned; and what was done, in words.
 * After the data dir is made, so that generating and processing it keep every core.
 */
const cpus = availableParallelism();
const pinning = ((): { serverCpu: string | undefined; description: string } => {
  if (values.pin === 'off') return { serverCpu: undefined, description: 'none (--pin off)' };
  if (cpus < 2) return { serverCpu: undefined, description: 'none (one CPU)' };
  // Pins this process (autocannon runs in it), every thread, to CPU 1; fails when taskset is missing.
  const self = spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { encoding: 'utf8' });
  if (self.error || self.status !== 0) return { serverCpu: undefined, description: 'none (taskset not available)' };
  return { serverCpu: '0', description: 'servers on CPU 0, autocannon on CPU 1 (taskset)' };
})();
process.stderr.write(`CPU pinning: ${pinning.description}; ${cpus} CPUs\n`);

/** A server child: its first stdout line, and its CPU time on request. */
interface Child {
  first: Record<string, unknown>;
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

async function startChild(args: string[]): Promise<Child> {
  // The V8 flags `npm start` runs the service with (package.json), for the bare route too.
  const command = [
    process.execPath,
    '--max-semi-space-size=64',
    '--import',
    'tsx',
    join(import.meta.dirname, 'api-load-server.ts'),
    ...args,
  ];
  const pinned = pinning.serverCpu === undefined ? command : ['taskset', '-c', pinning.serverCpu, ...command];
  const child: ChildProcess = spawn(pinned[0]!, pinned.slice(1), {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines: Interface = createInterface({ input: child.stdout! });
  const next = () =>
    new Promise<string>((resolve, reject) => {
      // One exit listener per pending line, removed once the line comes (six paths exceed the default ten).
      const exited = (code: number | null) => reject(new Error(`bench server exited with ${code}`));
      child.once('exit', exited);
      lines.once('line', (line) => {
        child.off('exit', exited);
        resolve(line);
      });
    });
  const first = JSON.parse(await next()) as Record<string, unknown>;
  return {
    first,
    async cpuMicros() {
      const reply = next();
      child.stdin!.write('cpu\n');
      const { user, system } = JSON.parse(await reply) as { user: number; system: number };
      return user + system;
    },
    async stop() {
      child.stdin!.end();
      await new Promise((r) => child.once('exit', r));
    },
  };
}

const service = await startChild(['service', dataDir]);
const setup = service.first as {
  url: string;
  key: string;
  paths: Record<string, string>;
  bytes: Record<string, number>;
  rows: number;
  date: string;
  races: number;
};
const bare = await startChild(['bare', setup.url, setup.key, JSON.stringify(setup.paths)]);
const bareUrl = bare.first['url'] as string;
/** bytes on the wire per coding and path (the service's own bytes, as the bare route sends them) */
const wireBytes = bare.first['wireBytes'] as Record<string, number>;

interface Figures {
  requestsPerSecond: number;
  p99Ms: number;
  /** server CPU time (user + system) per request, microseconds */
  cpuMicrosPerRequest: number;
  /** CPU used during the run, % of one core: the server's, and this process's (autocannon's) */
  serverCpuPercent: number;
  clientCpuPercent: number;
  non2xx: number;
  errors: number;
}

async function load(server: Child, url: string, encoding: string): Promise<Figures> {
  const headers: Record<string, string> = { 'x-api-key': setup.key };
  if (encoding !== 'identity') headers['accept-encoding'] = encoding;
  const options = { url, connections, headers };
  await autocannon({ ...options, duration: 2 }); // warm-up: JIT, caches, keep-alive connections
  const before = await server.cpuMicros();
  const clientBefore = process.cpuUsage();
  const started = performance.now();
  const r = await autocannon({ ...options, duration });
  const wallMicros = (performance.now() - started) * 1000;
  const client = process.cpuUsage(clientBefore);
  const cpu = (await server.cpuMicros()) - before;
  return {
    requestsPerSecond: r.requests.average,
    p99Ms: r.latency.p99,
    cpuMicrosPerRequest: cpu / Math.max(1, r.requests.total),
    serverCpuPercent: (100 * cpu) / wallMicros,
    clientCpuPercent: (100 * (client.user + client.system)) / wallMicros,
    non2xx: r.non2xx,
    errors: r.errors,
  };
}

function mean(runs: readonly Figures[]): Figures {
  const avg = (f: (x: Figures) => number) => runs.reduce((a, x) => a + f(x), 0) / runs.length;
  return {
    requestsPerSecond: Math.round(avg((x) => x.requestsPerSecond)),
    p99Ms: Math.max(...runs.map((x) => x.p99Ms)),
    cpuMicrosPerRequest: +avg((x) => x.cpuMicrosPerRequest).toFixed(1),
    serverCpuPercent: Math.round(avg((x) => x.serverCpuPercent)),
    clientCpuPercent: Math.round(avg((x) => x.clientCpuPercent)),
    non2xx: runs.reduce((a, x) => a + x.non2xx, 0),
    errors: runs.reduce((a, x) => a + x.errors, 0),
  };
}

function line(f: Figures): string {
  return (
    `${String(f.requestsPerSecond).padStart(6)} req/s  p99 ${String(f.p99Ms).padStart(3)} ms  ` +
    `${f.cpuMicrosPerRequest} µs CPU/req  (CPU: server ${f.serverCpuPercent}%, autocannon ${f.clientCpuPercent}%)`
  );
}

const only = values.paths ? new Set(values.paths.split(',').map((p) => p.trim())) : undefined;
for (const name of only ?? []) {
  if (!(name in setup.paths)) throw new Error(`--paths: ${name} is not one of ${Object.keys(setup.paths).join(', ')}`);
}
const results: Record<string, Record<string, unknown>> = {};
for (const encoding of encodings) {
  results[encoding] = {};
  for (const [name, path] of Object.entries(setup.paths)) {
    if (only && !only.has(name)) continue;
    const bareRuns: Figures[] = [];
    const serviceRuns: Figures[] = [];
    for (let i = 0; i < rounds; i++) {
      bareRuns.push(await load(bare, bareUrl + path, encoding));
      serviceRuns.push(await load(service, setup.url + path, encoding));
    }
    // Throughput and CPU averaged over the rounds; p99 the worst round's.
    const b = mean(bareRuns);
    const s = mean(serviceRuns);
    const ratio = +(s.requestsPerSecond / b.requestsPerSecond).toFixed(2);
    const cpuRatio = +(b.cpuMicrosPerRequest / s.cpuMicrosPerRequest).toFixed(2);
    results[encoding][name] = {
      path,
      bytes: wireBytes[`${encoding} ${path}`],
      bare: b,
      service: s,
      ratio,
      cpuRatio,
      meetsTarget: ratio >= 0.7 && s.p99Ms < 10 && s.non2xx === 0 && s.errors === 0,
    };
    process.stderr.write(
      `GET ${path} (${wireBytes[`${encoding} ${path}`]} bytes, Accept-Encoding: ${encoding === 'identity' ? 'none' : encoding})\n` +
        `  bare    ${line(b)}\n` +
        `  service ${line(s)}\n` +
        `  ratio   ${ratio} (req/s service/bare), ${cpuRatio} (CPU per request bare/service)\n`,
    );
  }
}

await bare.stop();
await service.stop();
if (temporary) rmSync(temporary, { recursive: true, force: true });
console.log(
  JSON.stringify({
    connections,
    pinning: pinning.description,
    durationSeconds: duration,
    rounds,
    date: setup.date,
    racesThatDay: setup.races,
    rowsInRace: setup.rows,
    results,
  }),
);
