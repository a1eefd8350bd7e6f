/**
 * The service as a user runs it, for tests that drive it from outside (a browser, an API fuzzer): a
 * temporary data dir with a week of generated racing up to tomorrow (so /demo has a fully resulted day),
 * then `racing serve` as a child process on a free loopback port. `racing(...)` runs the CLI against the
 * same data dir, as a second terminal would (keys and accounts go through the admin listener).
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { addDays, todayUtc } from '../../domain/time.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const CLI = ['--import', 'tsx', join(ROOT, 'cli', 'racing.ts')];

export interface Served {
  /** e.g. http://127.0.0.1:41234 */
  url: string;
  dataDir: string;
  racing(args: string[], env?: Record<string, string>): Promise<{ stdout: string; stderr: string }>;
  /** SIGTERM, then waits for the process to exit; removes the data dir. */
  stop(): Promise<void>;
}

export async function startServed(options: { env?: Record<string, string>; days?: number } = {}): Promise<Served> {
  const dataDir = mkdtempSync(join(tmpdir(), 'racing-served-'));
  const env = { ...process.env, RACING_DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...options.env };
  const racing = (args: string[], extra: Record<string, string> = {}) =>
    run(process.execPath, [...CLI, ...args], { cwd: ROOT, env: { ...env, ...extra }, maxBuffer: 1 << 26 });
  const today = todayUtc();
  const from = addDays(today, -(options.days ?? 6));
  await racing(['generate', '--from', from, '--to', addDays(today, 1), '--seed', '5', '--scale', '0.3']);

  const child: ChildProcess = spawn(process.execPath, [...CLI, 'serve'], {
    cwd: ROOT,
    env: { ...env, PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let err = '';
    const timer = setTimeout(() => reject(new Error(`racing serve did not start within 240 s: ${err}`)), 240_000);
    child.stderr!.on('data', (b: Buffer) => {
      err += b.toString();
      const m = /serving on (http:\/\/\S+)/.exec(err);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`racing serve exited with ${code}: ${err}`));
    });
  });
  return {
    url,
    dataDir,
    racing,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
