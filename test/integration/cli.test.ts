/**
 * The `racing` command end to end, as a user runs it: child processes on a temporary data dir.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsRow } from '../../domain/avro-types.generated.js';
import { openLevelStore } from '../../state/adapters/level-store.js';
import { conventionViolations } from '../support/row-conventions.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const CLI = ['--import', 'tsx', join(ROOT, 'cli', 'racing.ts')];
const dirs: string[] = [];

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'racing-cli-'));
  dirs.push(d);
  return d;
}

async function racing(dataDir: string, args: string[], env: Record<string, string> = {}) {
  return run(process.execPath, [...CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, RACING_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    maxBuffer: 1 << 28,
  });
}

const RANGE = ['--from', '2024-03-01', '--to', '2024-04-20', '--seed', '7'];

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('racing generate / process / export / rebuild', () => {
  let dir: string;
  let first: string;

  beforeAll(async () => {
    dir = tempDir();
    await racing(dir, ['generate', ...RANGE]);
    await racing(dir, ['process']);
    await racing(dir, ['export', 'analytics', '--out', join(dir, 'a.ndjson')]);
    first = readFileSync(join(dir, 'a.ndjson'), 'utf8');
  }, 600_000);

  it('exports every row in raceId, horseId order, each satisfying the conventions of features.md', () => {
    const lines = first.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(1000);
    const rows = lines.map((l) => JSON.parse(l) as AnalyticsRow);
    const keys = rows.map((r) => `${r.raceId} ${r.horseId}`);
    expect([...keys].sort()).toEqual(keys);
    expect(new Set(keys).size).toBe(keys.length);
    expect(rows.flatMap(conventionViolations)).toEqual([]);
    // canonical JSON: sorted keys, no whitespace
    const obj = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(Object.keys(obj)).toEqual(Object.keys(obj).sort());
    expect(lines[0]).not.toMatch(/": /);
    // the generated history has final rows with positions and, near its end, provisional rows
    expect(rows.some((r) => r.status === 'final' && r.position === 1)).toBe(true);
    expect(rows.some((r) => r.careerRuns > 3 && r.lastRunDays < 730 && r.vpr !== 0)).toBe(true);
  });

  it('rebuild reproduces the export byte for byte, and so does a second data dir built from empty', async () => {
    const { stdout } = await racing(dir, ['rebuild']);
    expect(stdout).toMatch(/rows\/s/);
    await racing(dir, ['export', 'analytics', '--out', join(dir, 'b.ndjson')]);
    expect(readFileSync(join(dir, 'b.ndjson'), 'utf8')).toBe(first);

    const other = tempDir();
    await racing(other, ['generate', ...RANGE]);
    await racing(other, ['process']);
    await racing(other, ['export', 'analytics', '--out', join(other, 'c.ndjson')]);
    expect(readFileSync(join(other, 'c.ndjson'), 'utf8')).toBe(first);
  }, 600_000);

  it('a data dir whose processor state has another layout is replayed from the start, with a warning', async () => {
    const d = tempDir();
    await racing(d, ['generate', ...RANGE]);
    await racing(d, ['process']);
    // what an older version left: state records without the layout marker
    const store = await openLevelStore(join(d, 'db'));
    await store.del('processor/e/format');
    await store.put('processor/e/r!rac_old', Buffer.from('not a race state'));
    await store.close();
    const { stdout, stderr } = await racing(d, ['process'], { LOG_LEVEL: 'warn' });
    expect(stdout + stderr).toContain('processor state has another layout');
    const figures = JSON.parse(stdout.trim().split('\n').at(-1)!) as { records: number; races: number };
    expect(figures.records).toBeGreaterThan(1000);
    expect(figures.races).toBeGreaterThan(100);
    await racing(d, ['export', 'analytics', '--out', join(d, 'd.ndjson')]);
    expect(readFileSync(join(d, 'd.ndjson'), 'utf8')).toBe(first);
  }, 600_000);

  it('rejects bad arguments with a clear message and a non-zero exit', async () => {
    await expect(racing(dir, ['generate', '--from', '2024-02-30', '--to', '2024-03-01'])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('--from must be a date YYYY-MM-DD'),
    });
    await expect(racing(dir, ['nonsense'])).rejects.toMatchObject({ code: 2 });
  });

  it('`racing <command> --help` prints the usage and runs nothing', async () => {
    const empty = tempDir();
    const { stdout } = await racing(empty, ['rebuild', '--help']);
    expect(stdout).toContain('usage: racing <command> [options]');
    expect(readdirSync(empty)).toEqual([]);
  });
});

describe('racing serve with keys from a second terminal', () => {
  let dir: string;
  let child: ChildProcess;
  let url: string;

  beforeAll(async () => {
    dir = tempDir();
    await racing(dir, ['generate', '--from', '2024-05-01', '--to', '2024-05-10', '--seed', '2']);
    child = spawn(process.execPath, [...CLI, 'serve'], {
      cwd: ROOT,
      env: { ...process.env, RACING_DATA_DIR: dir, LOG_LEVEL: 'warn', PORT: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    url = await new Promise<string>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 120_000);
      child.stderr!.on('data', (b: Buffer) => {
        err += b.toString();
        const m = /serving on (http:\/\/\S+)/.exec(err);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${err}`)));
    });
  }, 180_000);

  afterAll(async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('creates, uses and revokes a key while the service runs', async () => {
    const { stdout } = await racing(dir, ['keys', 'create', '--name', 'test', '--json']);
    const created = JSON.parse(stdout) as { id: string; key: string };
    expect(created.id).toMatch(/^key_/);
    expect(Object.keys(created).sort()).toEqual(['id', 'key']);

    expect((await fetch(`${url}/api/v1/races?date=2024-05-02`)).status).toBe(401);
    const ok = await fetch(`${url}/api/v1/races?date=2024-05-02`, { headers: { 'x-api-key': created.key } });
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { races: { raceId: string }[] };
    expect(body.races.length).toBeGreaterThan(0);
    const analytics = await fetch(`${url}/api/v1/races/${body.races[0]!.raceId}/analytics`, {
      headers: { 'x-api-key': created.key },
    });
    expect(analytics.status).toBe(200);
    expect(((await analytics.json()) as unknown[]).length).toBeGreaterThan(0);

    const list = await racing(dir, ['keys', 'list', '--json']);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({ id: created.id, name: 'test', revokedAt: null }),
    ]);
    await racing(dir, ['export', 'analytics', '--out', join(dir, 'live.ndjson')]);
    expect(readFileSync(join(dir, 'live.ndjson'), 'utf8').length).toBeGreaterThan(100);

    await racing(dir, ['keys', 'revoke', created.id]);
    expect((await fetch(`${url}/api/v1/races?date=2024-05-02`, { headers: { 'x-api-key': created.key } })).status).toBe(
      401,
    );
    expect((await fetch(`${url}/api/v1/demo`)).status).toBe(200);
  }, 120_000);
});
