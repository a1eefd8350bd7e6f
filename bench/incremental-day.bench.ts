/**
 * Cost that grows with the work, not the history: builds a history up to the start of day D (the feed
 * published before D), processes it, then publishes one more day of the same feed (events published
 * during D: that day's cards for D+1, race-day updates and results) and processes only that. Repeats
 * for several history lengths (days before D; `full` = from 1988-01-01) and prints, for each, the
 * records and rows of the extra day, the seconds to process it, the seconds to open the processor's
 * state, and the wall time of the whole `racing process` command.
 * `--same-feed`: every history is a tail of one feed generated from 1988-01-01 (published from
 * `historyDays` before D), so the extra day is the same day, with the same races and rows, whatever
 * the history's length; without it each history is its own feed generated from its first day.
 * `--repeats N`: the extra day processed N times, each on a fresh copy of the state (the median shown).
 *   npm run bench:day -- [--day 2024-06-12] [--histories 90,730,full] [--scale 1] [--same-feed] [--repeats N]
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { commandFigures } from './command-figures.js';
import { median } from './median.js';

const run = promisify(execFile);
const { values } = parseArgs({
  options: {
    day: { type: 'string', default: '2024-06-12' },
    histories: { type: 'string', default: '90,730' },
    scale: { type: 'string', default: '1' },
    'same-feed': { type: 'boolean', default: false },
    repeats: { type: 'string', default: '1' },
  },
});
const sameFeed = values['same-feed']!;
const repeats = Number(values.repeats);
if (!Number.isInteger(repeats) || repeats < 1) throw new Error('--repeats: a whole number from 1');
const root = join(import.meta.dirname, '..');
const cli = [join(root, 'dist', 'cli', 'racing.js')];
const node = [process.execPath, '--max-semi-space-size=64'];
const day = Date.parse(`${values.day}T00:00:00Z`);
const iso = (ms: number) => new Date(ms).toISOString();
const date = (ms: number) => iso(ms).slice(0, 10);

const FULL_FROM = Date.parse('1988-01-01T00:00:00Z');
const histories = values
  .histories!.split(',')
  .map((h) => (h === 'full' ? Math.round((day - FULL_FROM) / 86_400_000) : Number(h)));
for (const historyDays of histories) {
  const dir = mkdtempSync(join(tmpdir(), 'racing-day-'));
  // MALLOC_ARENA_MAX as the `racing` command and `npm start` run the service (README, "Memory")
  const env = {
    ...process.env,
    LOG_LEVEL: 'warn',
    MALLOC_ARENA_MAX: process.env.MALLOC_ARENA_MAX ?? '2',
  };
  const racing = (args: string[], dataDir = dir) =>
    run(node[0]!, [...node.slice(1), ...cli, ...args], {
      env: { ...env, RACING_DATA_DIR: dataDir },
      maxBuffer: 1 << 26,
    });
  const historyFrom = day - historyDays * 86_400_000;
  const copies: string[] = [];
  try {
    const range = [
      '--from',
      sameFeed ? date(FULL_FROM) : date(historyFrom),
      '--to',
      date(day + 2 * 86_400_000),
      '--scale',
      values.scale!,
    ];
    await racing(['generate', ...range, ...(sameFeed ? ['--since', iso(historyFrom)] : []), '--until', iso(day - 1)]);
    const history = commandFigures<{ rows: number; races: number }>('process', (await racing(['process'])).stdout);
    await racing(['generate', ...range, '--since', iso(day - 1), '--until', iso(day + 86_400_000 - 1)]);
    // every repeat on a copy of the state as the history left it (the last one on the original)
    for (let r = 1; r < repeats; r++) {
      const copy = mkdtempSync(join(tmpdir(), 'racing-day-copy-'));
      cpSync(dir, copy, { recursive: true });
      copies.push(copy);
    }
    const runs: { records: number; rows: number; seconds: number; loadSeconds: number; wall: number }[] = [];
    for (const dataDir of [...copies, dir]) {
      const t0 = performance.now();
      const extra = commandFigures<{ records: number; rows: number; seconds: number; loadSeconds: number }>(
        'process',
        (await racing(['process'], dataDir)).stdout,
      );
      runs.push({ ...extra, wall: (performance.now() - t0) / 1000 });
    }
    const seconds = runs.map((x) => x.seconds);
    console.log(
      JSON.stringify({
        historyDays,
        sameFeed,
        historyRaces: history.races,
        historyRows: history.rows,
        dayRecords: runs[0]!.records,
        dayRows: runs[0]!.rows,
        dayProcessSeconds: +median(seconds).toFixed(2),
        ...(repeats > 1 ? { dayProcessSecondsEach: seconds.map((x) => +x.toFixed(2)) } : {}),
        loadSeconds: +median(runs.map((x) => x.loadSeconds)).toFixed(2),
        commandWallSeconds: +median(runs.map((x) => x.wall)).toFixed(2),
      }),
    );
  } finally {
    for (const d of [dir, ...copies]) rmSync(d, { recursive: true, force: true });
  }
}
