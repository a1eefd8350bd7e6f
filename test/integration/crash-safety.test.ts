/**
 * kill -9 during a rebuild or an import, then the same command again: it continues from its last
 * checkpoint (not from zero) and ends with an export byte-identical to an uninterrupted run.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const CLI = ['--import', 'tsx', join(ROOT, 'cli', 'racing.ts')];
const LSR = join(ROOT, '..', 'shared', 'data', 'lsr-racingdata');
const dirs: string[] = [];
const env = (dir: string) => ({
  ...process.env,
  RACING_DATA_DIR: dir,
  LOG_LEVEL: 'warn',
  RACING_CHECKPOINT_MS: '100',
  RACING_PROGRESS_MS: '20',
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'racing-crash-'));
  dirs.push(d);
  return d;
}

const racing = (dir: string, args: string[]) =>
  run(process.execPath, [...CLI, ...args], { cwd: ROOT, env: env(dir), maxBuffer: 1 << 28 });

async function exportOf(dir: string): Promise<string> {
  const out = join(dir, `export-${Date.now()}.ndjson`);
  await racing(dir, ['export', 'analytics', '--out', out]);
  return readFileSync(out, 'utf8');
}

/** Starts a command and SIGKILLs it once `ready(stderr)` holds; resolves with whether it was killed mid-run. */
function killWhen(dir: string, args: string[], ready: (stderr: string) => boolean): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [...CLI, ...args], {
      cwd: ROOT,
      env: env(dir),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    let killed = false;
    const timer = setTimeout(() => reject(new Error(`condition never met: ${stderr.slice(-500)}`)), 240_000);
    child.stderr!.on('data', (b: Buffer) => {
      stderr += b.toString();
      if (!killed && ready(stderr)) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(killed && signal === 'SIGKILL' && code === null);
    });
  });
}

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('crash safety', () => {
  it('a rebuild killed with SIGKILL resumes from its checkpoint and exports the same bytes', async () => {
    const base = tempDir();
    await racing(base, ['generate', '--from', '2024-01-01', '--to', '2024-08-31', '--seed', '5', '--until', 'all']);
    const { stdout } = await racing(base, ['rebuild']);
    const full = JSON.parse(stdout.trim().split('\n').at(-1)!) as { records: number; rows: number };
    const expected = await exportOf(base);

    const dir = tempDir();
    cpSync(base, dir, { recursive: true });
    // kill once a good part of the input has been processed (several checkpoints have been written)
    const killed = await killWhen(dir, ['rebuild'], (err) => {
      const m = [...err.matchAll(/process .*?([\d,]+)\/([\d,]+) records/g)].at(-1);
      return m !== undefined && Number(m[1]!.replace(/,/g, '')) > Number(m[2]!.replace(/,/g, '')) * 0.4;
    });
    expect(killed).toBe(true);
    const again = await racing(dir, ['rebuild']);
    expect(again.stderr).toContain('resuming an interrupted rebuild');
    const resumed = JSON.parse(again.stdout.trim().split('\n').at(-1)!) as { records: number; resumed: boolean };
    expect(resumed.resumed).toBe(true);
    expect(resumed.records).toBeGreaterThan(0);
    expect(resumed.records).toBeLessThan(full.records);
    expect(await exportOf(dir)).toBe(expected);
  }, 600_000);

  it.skipIf(!process.env['CI'] && !safeExists(LSR))(
    'an import killed with SIGKILL resumes and ends with the same export',
    async () => {
      const files = [
        'block_2021-11_to_2022-03/Results_202111.csv',
        'block_2021-11_to_2022-03/Results_202112.csv',
        'block_2021-11_to_2022-03/Results_202201.csv',
      ].map((f) => join(LSR, f));
      const base = tempDir();
      await racing(base, ['import', 'results-csv', ...files]);
      await racing(base, ['process']);
      const expected = await exportOf(base);

      const dir = tempDir();
      const killed = await killWhen(dir, ['import', 'results-csv', ...files], (err) =>
        /import: publish .*?[1-9][\d,]*\//.test(err),
      );
      expect(killed).toBe(true);
      const again = await racing(dir, ['import', 'results-csv', ...files]);
      const already = /(\d+) events already published/.exec(again.stdout);
      expect(Number(already?.[1])).toBeGreaterThan(0);
      // importing the same files once more publishes nothing
      const third = await racing(dir, ['import', 'results-csv', ...files]);
      expect(third.stdout).toMatch(/published 0 courses, 0 cards, 0 results/);
      await racing(dir, ['process']);
      expect(await exportOf(dir)).toBe(expected);
    },
    600_000,
  );
});

function safeExists(p: string): boolean {
  try {
    readFileSync(join(p, 'SOURCE.md'));
    return true;
  } catch {
    return false;
  }
}
