/**
 * Debian's chromium for the browser tests (Playwright drives it; `npx playwright install` cannot download
 * browsers here). When /usr/bin/chromium is missing and we are root, it is installed with apt-get (once,
 * under a lock, for concurrent vitest workers). Without it: the tests skip with a message, except with
 * CI=true, where that is an error: CI must not skip the browser tests silently.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM = '/usr/bin/chromium';

/**
 * Flags for a headless run on a machine without outside network: no sandbox (root in a container), no
 * GPU, and none of the background fetches (updates, sync, QUIC probes) that would only fail.
 */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let reason: string | undefined;

/** Why ensureChromium() resolved to undefined. */
export function chromiumUnavailableReason(): string | undefined {
  return reason;
}

function sh(cmd: string, args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    let out = '';
    const keep = (b: Buffer) => {
      out = (out + b.toString()).slice(-10_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${cmd} ${args.join(' ')} failed (${code}):\n${out}`));
    });
  });
}

function unavailable(why: string): undefined {
  if (process.env['CI'] === 'true') throw new Error(`[chromium] ${why}. CI must run the browser tests.`);
  reason = `${why} (Debian: apt-get install chromium)`;
  process.stderr.write(`[chromium] ${reason}; browser tests are SKIPPED\n`);
  return undefined;
}

/** The chromium executable, installing Debian's package when it is missing and we may. */
export async function ensureChromium(): Promise<string | undefined> {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  if (process.getuid?.() !== 0) return unavailable(`${CHROMIUM} is missing and installing it needs root`);
  const lock = join(tmpdir(), 'racing-chromium-install.lock');
  const deadline = Date.now() + 15 * 60_000;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch {
      // Another worker is installing: poll for the browser (or the lock to go) until the deadline.
      if (Date.now() > deadline) return unavailable(`timed out waiting for another install (lock ${lock})`);
      await new Promise((r) => setTimeout(r, 1000));
      if (existsSync(CHROMIUM)) return CHROMIUM;
    }
  }
  try {
    if (existsSync(CHROMIUM)) return CHROMIUM;
    process.stderr.write('[chromium] installing Debian chromium (apt-get update && apt-get install -y chromium)...\n');
    await sh('apt-get', ['update', '-qq'], 300_000);
    await sh('apt-get', ['install', '-y', '-qq', 'chromium'], 600_000);
  } catch (e) {
    return unavailable(`could not install chromium: ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
  return existsSync(CHROMIUM) ? CHROMIUM : unavailable('apt-get finished but /usr/bin/chromium is still missing');
}
