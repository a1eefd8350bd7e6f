/**
 * Request latency of the course endpoints against `racing serve`: autocannon loads, one after the other,
 * GET /courses, GET /courses/{id}?asOf, GET /courses/{id}/analytics?from&to (the busiest course, the
 * last 366 days) and GET /open-data/course-topology, and prints req/s and p50/p99 latency for each, with
 * the figures of the data served (courses, snapshot rows of the range walked page by page).
 *
 *   node --import tsx bench/courses.bench.ts [--data-dir DIR] [--duration 10] [--connections 16]
 *
 * Without --data-dir it generates and processes three months of racing (scale 0.6) in a temporary data
 * dir. The service runs as a child process (`racing serve`, rate limits raised), autocannon in this one.
 * Responses come from the service's response cache after the first request of each URL (the cache is
 * rebuilt when the read model changes); figures on a shared machine are noisy.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import autocannon from 'autocannon';
import { addDays, todayUtc } from '../domain/time.js';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '16' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);
const root = join(import.meta.dirname, '..');
const cli = ['--import', 'tsx', join(root, 'cli', 'racing.ts')];
const run = promisify(execFile);

let dataDir = values['data-dir'];
let temporary: string | undefined;
const env = {
  ...process.env,
  LOG_LEVEL: 'warn',
  RATE_LIMIT_PER_MINUTE: '1000000',
  PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
  RACING_LIVE: 'off',
};
if (!dataDir) {
  temporary = dataDir = mkdtempSync(join(tmpdir(), 'racing-courses-bench-'));
  const today = todayUtc();
  process.stderr.write(`generating and processing three months of racing in ${dataDir}...\n`);
  const e = { ...env, RACING_DATA_DIR: dataDir, RACING_DAILY_SNAPSHOTS_FROM: `${today.slice(0, 7)}-01` };
  await run(process.execPath, [...cli, 'generate', '--from', addDays(today, -91), '--to', today, '--scale', '0.6'], {
    cwd: root,
    env: e,
  });
  await run(process.execPath, [...cli, 'process'], { cwd: root, env: e, maxBuffer: 1 << 26 });
}
const serviceEnv = { ...env, RACING_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' };

const child: ChildProcess = spawn(process.execPath, [...cli, 'serve'], {
  cwd: root,
  env: serviceEnv,
  stdio: ['ignore', 'ignore', 'pipe'],
});
const base = await new Promise<string>((resolve, reject) => {
  let err = '';
  child.stderr!.on('data', (b: Buffer) => {
    err += b.toString();
    const m = /serving on (http:\/\/\S+)/.exec(err);
    if (m) resolve(m[1]!);
  });
  child.once('exit', (code) => reject(new Error(`racing serve exited with ${code}: ${err}`)));
});
const exited = new Promise((r) => child.once('exit', r));

try {
  const { stdout } = await run(process.execPath, [...cli, 'keys', 'create', '--name', 'courses-bench', '--json'], {
    cwd: root,
    env: serviceEnv,
  });
  const key = (JSON.parse(stdout) as { key: string }).key;
  const headers = { 'x-api-key': key };
  const getJson = async (path: string) => {
    const res = await fetch(base + path, { headers: { ...headers, 'accept-encoding': 'identity' } });
    if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return { body: (await res.json()) as Record<string, unknown>, bytes: Number(res.headers.get('content-length')) };
  };

  const courses = (await getJson('/api/v1/courses')).body['courses'] as { courseId: string; topology: string | null }[];
  const to = todayUtc();
  const from = addDays(to, -365);
  // The course with the most snapshot rows in the range, counted by walking its pages.
  let busiest = { courseId: courses[0]!.courseId, rows: -1, pages: 0 };
  let totalRows = 0;
  for (const c of courses) {
    let next: string | null = `/api/v1/courses/${c.courseId}/analytics?from=${from}&to=${to}`;
    let rows = 0;
    let pages = 0;
    while (next) {
      const page: Record<string, unknown> = (await getJson(next)).body;
      rows += (page['snapshots'] as unknown[]).length;
      pages++;
      next = page['next'] as string | null;
    }
    totalRows += rows;
    if (rows > busiest.rows) busiest = { courseId: c.courseId, rows, pages };
  }
  const paths: Record<string, { path: string; keyed: boolean }> = {
    courses: { path: '/api/v1/courses', keyed: true },
    profile: { path: `/api/v1/courses/${busiest.courseId}?asOf=${to}`, keyed: true },
    analytics: { path: `/api/v1/courses/${busiest.courseId}/analytics?from=${from}&to=${to}`, keyed: true },
    openData: { path: '/api/v1/open-data/course-topology', keyed: false },
  };
  const results: Record<string, unknown> = {};
  for (const [name, { path, keyed }] of Object.entries(paths)) {
    const bytes = (await getJson(path)).bytes;
    const options = { url: base + path, connections, headers: keyed ? headers : {} };
    await autocannon({ ...options, duration: 2 }); // warm-up
    const r = await autocannon({ ...options, duration });
    const figures = {
      requestsPerSecond: Math.round(r.requests.average),
      p50Ms: r.latency.p50,
      p99Ms: r.latency.p99,
      bytes,
      non2xx: r.non2xx,
      errors: r.errors,
    };
    results[name] = { path, ...figures };
    process.stderr.write(
      `GET ${path.padEnd(70)} ${String(figures.requestsPerSecond).padStart(6)} req/s  p50 ${figures.p50Ms} ms  ` +
        `p99 ${figures.p99Ms} ms  (${bytes} bytes, ${figures.non2xx} non-2xx)\n`,
    );
  }
  console.log(
    JSON.stringify({
      connections,
      durationSeconds: duration,
      courses: courses.length,
      measuredTopology: courses.filter((c) => c.topology === 'measured').length,
      generatedTopology: courses.filter((c) => c.topology === 'generated').length,
      snapshotRange: { from, to, rows: totalRows, busiestCourse: busiest },
      results,
    }),
  );
} finally {
  child.kill('SIGTERM');
  await exited;
  if (temporary) rmSync(temporary, { recursive: true, force: true });
}
