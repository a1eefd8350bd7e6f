/**
 * `racing publish` and `racing import` while the service runs: against a running embedded service
 * (child processes, as a user in a second terminal: through the admin endpoint), and in Kafka mode
 * straight to the broker's topics. The documented examples (docs/examples/) are what is published.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { processAll } from '../../cli/commands/pipeline.js';
import { publishFiles } from '../../cli/commands/publish.js';
import { type ServiceConfig, serviceConfigFromEnv } from '../../cli/config.js';
import { openKafkaLog, openRuntime, type Runtime } from '../../cli/runtime.js';
import type { AnalyticsRow, RaceCard, RaceResult } from '../../domain/avro-types.generated.js';
import { silentLogger } from '../../domain/logger.js';
import type { LogPort, LogRecord } from '../../streams/log-port.js';
import { buildRegistryServer, createLogSchemaStore, startRegistryServer } from '../../streams/registry-server/index.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const CLI = ['--import', 'tsx', join(ROOT, 'cli', 'racing.ts')];
const EXAMPLES = join(ROOT, 'docs', 'examples');
const CARD = JSON.parse(readFileSync(join(EXAMPLES, 'card.json'), 'utf8')) as RaceCard;
const RESULT = JSON.parse(readFileSync(join(EXAMPLES, 'result.json'), 'utf8')) as RaceResult;
const dirs: string[] = [];
const logger = silentLogger();

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'racing-publish-'));
  dirs.push(d);
  return d;
}

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Bad files: Avro-shaped but invalid, not JSON, and not the schema's shape. */
function badFiles(dir: string): { invalid: string; notJson: string; misshapen: string } {
  const invalid = join(dir, 'invalid-card.json');
  writeFileSync(invalid, JSON.stringify({ ...CARD, raceId: 'not-a-race-id' }));
  const notJson = join(dir, 'not-json.json');
  writeFileSync(notJson, '{"raceId": "rac_0000000000000000", "runners": [');
  const misshapen = join(dir, 'misshapen-card.json');
  const runners = CARD.runners.map((r, i) => (i === 0 ? { ...r, draw: 'five' } : r));
  writeFileSync(misshapen, JSON.stringify([{ ...CARD, runners }]));
  return { invalid, notJson, misshapen };
}

async function readAll(log: LogPort, topic: string): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  const ends = await log.endOffsets(topic);
  for (let p = 0; p < ends.length; p++) {
    for (let offset = 0; offset < ends[p]!;) {
      const records = await log.read(topic, p, offset, 1000);
      if (records.length === 0) break;
      out.push(...records);
      offset = records.at(-1)!.offset + 1;
    }
  }
  return out;
}

async function eventually<T>(what: string, f: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('racing publish and racing import against a running embedded service', () => {
  let dir: string;
  let child: ChildProcess;
  let url: string;
  let key: string;
  const racing = (args: string[]) =>
    run(process.execPath, [...CLI, ...args], {
      cwd: ROOT,
      env: { ...process.env, RACING_DATA_DIR: dir, LOG_LEVEL: 'warn' },
      maxBuffer: 1 << 26,
    });
  const get = async (path: string) => {
    const res = await fetch(`${url}${path}`, { headers: { 'x-api-key': key } });
    return { status: res.status, body: (await res.json()) as unknown };
  };
  const rowsOf = async (raceId: string) => {
    const r = await get(`/api/v1/races/${raceId}/analytics`);
    return r.status === 200 ? (r.body as AnalyticsRow[]) : undefined;
  };

  beforeAll(async () => {
    dir = tempDir();
    await racing(['generate', '--from', '2024-05-01', '--to', '2024-05-06', '--seed', '2', '--scale', '0.3']);
    child = spawn(process.execPath, [...CLI, 'serve'], {
      cwd: ROOT,
      env: { ...process.env, RACING_DATA_DIR: dir, LOG_LEVEL: 'warn', PORT: '0' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    url = await new Promise<string>((resolve, reject) => {
      let err = '';
      const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 180_000);
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
    const { stdout } = await racing(['keys', 'create', '--name', 'publish-test', '--json']);
    key = (JSON.parse(stdout) as { key: string }).key;
  }, 300_000);

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('publishes a card (provisional rows appear), then its result (the rows turn final)', async () => {
    const card = await racing(['publish', 'card', join(EXAMPLES, 'card.json')]);
    expect(card.stdout).toContain('card.json: published 1 cards to racing.cards.v1');
    const provisional = await eventually('provisional rows', async () => {
      const rows = await rowsOf(CARD.raceId);
      return rows && rows.length === CARD.runners.length ? rows : undefined;
    });
    expect(provisional.every((r) => r.status === 'provisional')).toBe(true);

    const result = await racing(['publish', 'result', join(EXAMPLES, 'result.json')]);
    expect(result.stdout).toContain('result.json: published 1 results to racing.results.v1');
    const final = await eventually('final rows', async () => {
      const rows = await rowsOf(CARD.raceId);
      return rows?.every((r) => r.status === 'final') ? rows : undefined;
    });
    const winner = RESULT.runners.find((r) => r.position === 1)!.horseId;
    expect(final.find((r) => r.horseId === winner)!.position).toBe(1);
    const race = (await get(`/api/v1/races/${CARD.raceId}`)).body as { status: string };
    expect(race.status).toBe('result');
  }, 120_000);

  it('rejects bad files with a clear error and exit 1; each goes to the dead-letter topic; the service runs on', async () => {
    const bad = badFiles(dir);
    await expect(racing(['publish', 'card', bad.invalid])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(
        /invalid-card\.json \(not-a-race-id\): validation_failed: raceId "not-a-race-id" is not a race id.*the processor sends it to the dead-letter topic/,
      ),
    });
    await expect(racing(['publish', 'result', bad.notJson])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/not-json\.json: bad_wire_format: not JSON: .*written to the dead-letter topic/),
    });
    await expect(racing(['publish', 'card', bad.misshapen])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining(
        `misshapen-card.json (${CARD.raceId}): schema_incompatible: runners[0].draw: expected an integer (int), got "five"`,
      ),
    });
    // --check validates only
    await expect(racing(['publish', 'card', '--check', bad.invalid])).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('not published (--check)'),
    });
    const checked = await racing(['publish', 'card', '--check', join(EXAMPLES, 'card.json')]);
    expect(checked.stdout).toContain('1 valid, 0 rejected cards (nothing published: --check)');
    // the processor dead-lettered the invalid card
    await eventually('the dead letter counted', async () => {
      const metrics = await (await fetch(`${url}/metrics`)).text();
      return /racing_dead_letters_total\{code="validation_failed"\} 1/.test(metrics) ? true : undefined;
    });
    expect((await fetch(`${url}/api/v1/health/live`)).status).toBe(200);
  }, 120_000);

  it('imports a results file through the service (no store lock), with its ledger', async () => {
    const file = join(ROOT, 'test', 'fixtures', 'lsr', 'Results_basic.csv');
    const first = await racing(['import', 'results-csv', file, '--report', join(dir, 'report.json')]);
    expect(first.stderr).toContain('importing through the running service');
    expect(first.stdout).toMatch(/published \d+ courses, [1-9]\d* cards, [1-9]\d* results/);
    expect((JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { files: number }).files).toBe(1);
    const races = await eventually('the imported races', async () => {
      const r = await get('/api/v1/races?date=2021-11-01');
      const list = (r.body as { races?: { raceId: string }[] }).races ?? [];
      return list.length > 0 ? list : undefined;
    });
    expect(races.length).toBeGreaterThan(0);
    const again = await racing(['import', 'results-csv', file]);
    expect(again.stdout).toMatch(/published 0 courses, 0 cards, 0 results; [1-9]\d* events already published/);
  }, 120_000);

  it('kept every rejected value in the dead-letter topic with its reason', async () => {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    const rt = await openRuntime(serviceConfigFromEnv({ RACING_DATA_DIR: dir, LOG_LEVEL: 'silent' }), logger);
    try {
      const dead = await readAll(rt.log, rt.topics.deadLetter);
      const byCode = new Map(dead.map((r) => [r.headers['dlq.error.code'], r]));
      expect([...byCode.keys()].sort()).toEqual(['bad_wire_format', 'schema_incompatible', 'validation_failed']);
      const invalid = byCode.get('validation_failed')!;
      expect(invalid.headers['dlq.source.topic']).toBe(rt.topics.cards);
      expect(Number(invalid.headers['dlq.source.offset'])).toBeGreaterThanOrEqual(0);
      expect(invalid.headers['dlq.error.reason']).toContain('is not a race id');
      const notJson = byCode.get('bad_wire_format')!;
      expect(notJson.value!.toString()).toBe(readFileSync(join(dir, 'not-json.json'), 'utf8'));
      expect(notJson.headers).toMatchObject({
        'dlq.source.topic': rt.topics.results,
        'dlq.source.partition': '-1',
        'dlq.source.file': 'not-json.json',
      });
      const misshapen = byCode.get('schema_incompatible')!;
      expect(misshapen.key).toBe(CARD.raceId);
      expect(misshapen.headers['dlq.error.reason']).toContain('runners[0].draw');
      expect(JSON.parse(misshapen.value!.toString())).toMatchObject({ raceId: CARD.raceId });
    } finally {
      await rt.close();
    }
  }, 120_000);
});

const brokers = inject('kafkaBrokers');

describe.skipIf(!brokers)('racing publish in Kafka mode: straight to the topics', () => {
  let registryUrl: string;
  let closeRegistry: () => Promise<void>;
  let config: ServiceConfig;
  const prefix = `pub${Date.now().toString(36)}.`;

  beforeAll(async () => {
    const regConfig = serviceConfigFromEnv({ RACING_DATA_DIR: tempDir(), LOG_LEVEL: 'silent', KAFKA_BROKERS: brokers });
    const log = await openKafkaLog(regConfig, logger);
    const store = await createLogSchemaStore(log, `${prefix}_schemas`, { logger });
    const app = buildRegistryServer({ store, logger });
    registryUrl = await startRegistryServer(app, { host: '127.0.0.1', port: 0 });
    closeRegistry = async () => {
      await app.close();
      await store.close();
      await log.close();
    };
    config = serviceConfigFromEnv({
      RACING_DATA_DIR: tempDir(),
      LOG_LEVEL: 'silent',
      RACING_CHECKPOINT_MS: '200',
      RACING_MODE: 'kafka',
      KAFKA_BROKERS: brokers,
      SCHEMA_REGISTRY_URL: registryUrl,
      RACING_TOPIC_PREFIX: prefix,
      RACING_INSTANCE_ID: 'publish-test',
    });
  }, 300_000);

  afterAll(async () => {
    await closeRegistry?.();
  });

  const noDataDir = <T>(): Promise<T> => Promise.reject(new Error('Kafka mode must not open the data dir'));

  it('publishes cards and results without the data dir; the processor makes rows and dead-letters the invalid card', async () => {
    expect(config.live).toBe(false); // Kafka mode: no live feed unless RACING_LIVE=1
    const bad = badFiles(tempDir());
    const cards = await publishFiles(
      config,
      logger,
      'card',
      [join(EXAMPLES, 'card.json'), bad.invalid, bad.misshapen],
      { check: false, withRuntime: noDataDir },
    );
    expect(cards.map((r) => [r.file, r.published, r.rejected])).toEqual([
      ['card.json', 1, 0],
      ['invalid-card.json', 0, 1],
      ['misshapen-card.json', 0, 1],
    ]);
    expect(cards[0]!.topic).toBe(`${prefix}racing.cards.v1`);

    let rt: Runtime = await openRuntime(config, logger);
    try {
      const f = await processAll(rt);
      expect(f.deadLetters).toBe(1);
      const rows = await rt.view.analytics(CARD.raceId);
      expect(rows?.map((r) => r.status)).toEqual(CARD.runners.map(() => 'provisional'));
      const dead = await readAll(rt.log, rt.topics.deadLetter);
      expect(dead.map((r) => r.headers['dlq.error.code']).sort()).toEqual(['schema_incompatible', 'validation_failed']);
    } finally {
      await rt.close();
    }

    const results = await publishFiles(config, logger, 'result', [join(EXAMPLES, 'result.json')], {
      check: false,
      withRuntime: noDataDir,
    });
    expect(results[0]!.published).toBe(1);
    rt = await openRuntime(config, logger);
    try {
      await processAll(rt);
      const rows = await rt.view.analytics(CARD.raceId);
      expect(rows?.every((r) => r.status === 'final')).toBe(true);
      const winner = RESULT.runners.find((r) => r.position === 1)!.horseId;
      expect(rows!.find((r) => r.horseId === winner)!.position).toBe(1);
    } finally {
      await rt.close();
    }
  }, 300_000);
});
