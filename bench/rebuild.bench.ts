/**
 * Rebuild benchmark: generates the given range into a fresh data dir (all events, as a complete
 * history), then times `racing rebuild` in a child process and prints races, rows, wall time, rows/s
 * and the child's peak RSS.
 *   npm run bench:rebuild -- --from 2023-11-22 --to 2026-11-24 [--keep DIR]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    from: { type: 'string' },
    to: { type: 'string' },
    seed: { type: 'string', default: '1' },
    keep: { type: 'string' },
  },
});
if (!values.from || !values.to) throw new Error('usage: bench:rebuild -- --from YYYY-MM-DD --to YYYY-MM-DD');
const root = join(import.meta.dirname, '..');
const dataDir = values.keep ?? mkdtempSync(join(tmpdir(), 'racing-bench-'));
const env = { ...process.env, RACING_DATA_DIR: dataDir, LOG_LEVEL: 'warn' };
const cli = [join(root, 'dist', 'cli', 'racing.js')];
const node = [process.execPath, '--max-semi-space-size=64'];

const g0 = performance.now();
await run(
  node[0]!,
  [
    ...node.slice(1),
    ...cli,
    'generate',
    '--from',
    values.from,
    '--to',
    values.to,
    '--seed',
    values.seed!,
    '--until',
    'all',
  ],
  { env, maxBuffer: 1 << 26 },
);
const generateSeconds = (performance.now() - g0) / 1000;

// /usr/bin/time -v reports the child's peak RSS; fall back to none when it is missing.
const t0 = performance.now();
const { stdout, stderr } = await run('/usr/bin/time', ['-v', ...node, ...cli, 'rebuild'], {
  env,
  maxBuffer: 1 << 26,
}).catch(async () => run(node[0]!, [...node.slice(1), ...cli, 'rebuild'], { env, maxBuffer: 1 << 26 }));
const wall = (performance.now() - t0) / 1000;
const m = /rebuild: (\d+) records, (\d+) rows in ([\d.]+)s/.exec(stdout);
const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
const races = /"races":(\d+)/.exec(stdout);
console.log(
  JSON.stringify({
    from: values.from,
    to: values.to,
    generateSeconds: +generateSeconds.toFixed(1),
    records: m ? Number(m[1]) : null,
    races: races ? Number(races[1]) : null,
    rows: m ? Number(m[2]) : null,
    processSeconds: m ? Number(m[3]) : null,
    wallSeconds: +wall.toFixed(1),
    rowsPerSecond: m ? Math.round(Number(m[2]) / Number(m[3])) : null,
    rowsPerSecondWall: m ? Math.round(Number(m[2]) / wall) : null,
    peakRssMb: rss ? Math.round(Number(rss[1]) / 1024) : null,
  }),
);
if (!values.keep) rmSync(dataDir, { recursive: true, force: true });
