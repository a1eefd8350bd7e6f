/**
 * Real processes for the fault tests: a broker the test controls (stopped and restarted on the same
 * data and ports), the `racing registry` and `racing serve` commands as child processes, the CLI, and
 * waiting on conditions with deadlines.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const ROOT = join(import.meta.dirname, '..', '..');
const CLI = ['--import', 'tsx', join(ROOT, 'cli', 'racing.ts')];

interface KafkaHandle {
  brokers: string;
  brokerPort: number;
  controllerPort: number;
  dataDir: string;
  stop(): Promise<void>;
}
interface KafkaScript {
  startKafka(opts?: { dataDir?: string; brokerPort?: number; controllerPort?: number }): Promise<KafkaHandle>;
}
const kafkaScriptUrl = new URL('../../scripts/kafka/kafka.mjs', import.meta.url).href;

/** Temp dirs and child processes of one test file, cleaned up by `cleanup()`. */
export class Fixture {
  private readonly dirs: string[] = [];
  private readonly children: ChildProcess[] = [];

  dir(tag: string): string {
    const d = mkdtempSync(join(tmpdir(), `racing-fault-${tag}-`));
    this.dirs.push(d);
    return d;
  }

  /**
   * Publishes the generated feed of `range` from `since` (the start when undefined) up to `until`
   * ('end' = everything) to the broker in `env`, as an operator's feeder would.
   */
  publish(env: Record<string, string>, range: readonly string[], since: string | undefined, until: string) {
    return this.racing({ ...env, RACING_DATA_DIR: this.dir('feed') }, [
      'generate',
      ...range,
      ...(since ? ['--since', since] : []),
      '--until',
      until === 'end' ? 'all' : until,
    ]);
  }

  /** `racing <args>` to completion. */
  racing(env: Record<string, string>, args: string[], timeoutMs = 180_000) {
    return run(process.execPath, [...CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'warn', ...env },
      maxBuffer: 1 << 28,
      timeout: timeoutMs,
    });
  }

  /** A long-running `racing <args>`; resolves with the URL it prints (`<prefix> http://...`). */
  async start(env: Record<string, string>, args: string[], prefix: RegExp, timeoutMs = 180_000): Promise<Started> {
    const child = spawn(process.execPath, [...CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: process.env.RACING_FAULT_LOG_LEVEL ?? 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.children.push(child);
    // stderr (progress, the URL) and stdout (the service's JSON log) in one buffer, for diagnostics.
    let stderr = '';
    // RACING_FAULT_LOGS=dir keeps every child's whole output there (diagnosing a failed fault test).
    const keep = process.env.RACING_FAULT_LOGS;
    const file = keep ? join(keep, `${args[0]}-${child.pid}.log`) : undefined;
    for (const stream of [child.stderr!, child.stdout!]) {
      stream.setEncoding('utf8');
      stream.on('data', (c: string) => {
        stderr = (stderr + c).slice(-200_000);
        if (file) appendFileSync(file, c);
      });
    }
    const url = await waitFor(
      `${args.join(' ')} to start`,
      () => {
        if (child.exitCode !== null)
          throw new Error(`racing ${args[0]} exited ${child.exitCode}: ${stderr.slice(-3000)}`);
        return new RegExp(`${prefix.source}\\s+(http://\\S+)`).exec(stderr)?.[1];
      },
      timeoutMs,
    );
    return { child, url, stderr: () => stderr };
  }

  async cleanup(): Promise<void> {
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    if (process.env.RACING_FAULT_LOGS) return; // kept with the logs for a look
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }
}

export interface Started {
  child: ChildProcess;
  url: string;
  stderr(): string;
}

/** A broker of the test's own, on its own data dir: stop() and restart() keep the data and the address. */
export class OwnBroker {
  private constructor(
    private handle: KafkaHandle | undefined,
    readonly brokers: string,
    private readonly ports: { brokerPort: number; controllerPort: number },
    private readonly dataDir: string,
  ) {}

  static async start(dataDir: string): Promise<OwnBroker> {
    const kafka = (await import(kafkaScriptUrl)) as KafkaScript;
    const h = await kafka.startKafka({ dataDir });
    return new OwnBroker(h, h.brokers, { brokerPort: h.brokerPort, controllerPort: h.controllerPort }, dataDir);
  }

  async stop(): Promise<void> {
    await this.handle?.stop();
    this.handle = undefined;
  }

  async restart(): Promise<void> {
    const kafka = (await import(kafkaScriptUrl)) as KafkaScript;
    this.handle = await kafka.startKafka({ dataDir: this.dataDir, ...this.ports });
  }
}

/** Polls `probe` until it returns a value (or throws), failing after the deadline. */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined) return v;
    } catch (e) {
      if (e instanceof Error && /exited/.test(e.message)) throw e;
      last = e;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** GET a URL: status and parsed JSON body (null when not JSON), never throwing on HTTP errors. */
export async function getJson(url: string, timeoutMs = 5_000): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const text = await res.text();
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: res.status, body };
}

/** The readiness report of a service. */
export async function readiness(url: string): Promise<{
  status: number;
  body: { ready: boolean; reasons: string[]; lag: Record<string, number>; log: { reachable: boolean } };
}> {
  return (await getJson(`${url}/api/v1/health/ready`)) as never;
}

/** The expected export: the same input through one uninterrupted embedded run (byte-identical across modes). */
export async function uninterruptedExport(fx: Fixture, generateArgs: string[]): Promise<string> {
  const dir = fx.dir('expected');
  const env = { RACING_DATA_DIR: dir };
  await fx.racing(env, ['generate', ...generateArgs]);
  await fx.racing(env, ['process']);
  return (await fx.racing(env, ['export', 'analytics'])).stdout;
}

/** The members (client ids) of every consumer group on a broker: ghosts show up as extra members. */
export async function groupMembers(brokers: string): Promise<Record<string, string[]>> {
  const { Kafka, logLevel } = await import('kafkajs');
  const admin = new Kafka({ brokers: [brokers], logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const ids = (await admin.listGroups()).groups.map((g) => g.groupId).sort();
    const { groups } = await admin.describeGroups(ids);
    return Object.fromEntries(groups.map((g) => [g.groupId, g.members.map((m) => m.clientId)]));
  } finally {
    await admin.disconnect();
  }
}
