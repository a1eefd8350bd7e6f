/**
 * Kafka mode on a real Apache Kafka broker (started by the vitest global setup) with the project's
 * Confluent-compatible registry: the same generated input gives a byte-identical export to the
 * embedded default; two processor instances produce the same rows as one; an API replica started later
 * catches up; bad input goes to the dead-letter topic and nothing is lost. After an operator's replay an
 * outside client (Confluent's Python consumer, scripts/consume-analytics.py) reads the rows the
 * processor produced: the newest value of every key is the export's row.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { analyticsNdjson } from '../../api/admin.js';
import { type ServiceConfig, serviceConfigFromEnv } from '../../cli/config.js';
import { generate, processAll, rebuild } from '../../cli/commands/pipeline.js';
import { openKafkaLog, openRuntime, replicateKeys, type Runtime } from '../../cli/runtime.js';
import { silentLogger } from '../../domain/logger.js';
import { runViewMaterializer } from '../../streams/processors/view-materializer.js';
import { buildRegistryServer, createLogSchemaStore, startRegistryServer } from '../../streams/registry-server/index.js';
import type { LogPort } from '../../streams/log-port.js';
import { pythonEnv, pythonEnvUnavailableReason } from '../support/python-env.js';

const brokers = inject('kafkaBrokers');
const logger = silentLogger();
const dirs: string[] = [];
const RANGE = { from: '2024-05-01', to: '2024-05-20', seed: 11 };

function config(env: Record<string, string>): ServiceConfig {
  const dir = mkdtempSync(join(tmpdir(), 'racing-kafka-mode-'));
  dirs.push(dir);
  return serviceConfigFromEnv({ RACING_DATA_DIR: dir, LOG_LEVEL: 'silent', RACING_CHECKPOINT_MS: '200', ...env });
}

const exportOf = async (rt: Runtime) => text(analyticsNdjson(rt.view));

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const CONSUMER = join(ROOT, 'scripts', 'consume-analytics.py');

/** An export's rows by their topic key (`raceId:horseId`). */
function rowsByKey(ndjson: string): Map<string, unknown> {
  const rows = ndjson
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as { raceId: string; horseId: string });
  return new Map(rows.map((r) => [`${r.raceId}:${r.horseId}`, r]));
}

describe.skipIf(!brokers)('Kafka mode', () => {
  let registryUrl: string;
  let closeRegistry: () => Promise<void>;
  let expected: string;
  const prefix = `t${Date.now().toString(36)}.`;
  const kafkaEnv = () => ({
    RACING_MODE: 'kafka',
    KAFKA_BROKERS: brokers,
    SCHEMA_REGISTRY_URL: registryUrl,
    RACING_TOPIC_PREFIX: prefix,
  });

  beforeAll(async () => {
    const regConfig = config({ KAFKA_BROKERS: brokers });
    const log: LogPort = await openKafkaLog(regConfig, logger);
    const store = await createLogSchemaStore(log, `${prefix}_schemas`, { logger });
    const app = buildRegistryServer({ store, logger });
    registryUrl = await startRegistryServer(app, { host: '127.0.0.1', port: 0 });
    closeRegistry = async () => {
      await app.close();
      await store.close();
      await log.close();
    };
    const embedded = await openRuntime(config({}), logger);
    try {
      await generate(embedded, RANGE);
      await processAll(embedded);
      expected = await exportOf(embedded);
    } finally {
      await embedded.close();
    }
    expect(expected.split('\n').length).toBeGreaterThan(1000);
  }, 300_000);

  afterAll(async () => {
    await closeRegistry?.();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('gives a byte-identical export to the embedded default for the same input, and again after a rebuild', async () => {
    const soloConfig = config({ ...kafkaEnv(), RACING_INSTANCE_ID: 'solo' });
    const rt = await openRuntime(soloConfig, logger);
    try {
      await generate(rt, RANGE);
      const first = await processAll(rt);
      // a new instance replays without rows, then takes over every partition once it has joined
      expect(first.rows).toBeGreaterThan(1000);
      expect(first.takeoverRows).toBe(first.rows);
      expect(await exportOf(rt)).toBe(expected);
    } finally {
      await rt.close();
    }
    // a restart gets its partitions back: nothing to recompute, nothing re-emitted
    const again = await openRuntime({ ...soloConfig }, logger);
    try {
      const f = await processAll(again);
      expect(f.processor.counters.racesRecomputed).toBe(0);
      expect(f.rows).toBe(0);
      expect(await exportOf(again)).toBe(expected);
    } finally {
      await again.close();
    }
    const rt2 = await openRuntime({ ...soloConfig }, logger);
    try {
      // an operator's replay from the start (derived topics emptied, groups reset) ends with the same rows
      const replay = await rebuild(rt2);
      expect(replay.resumed).toBe(false);
      expect(replay.records).toBeGreaterThan(0);
      // the rebuild's lone instance emits every row as it replays: its takeover recomputes nothing
      expect(replay.rows).toBeGreaterThan(1000);
      expect(replay.takeoverRows).toBe(0);
      expect(replay.processor.checkpointedPartitions).toEqual([0, 1, 2, 3]);
      expect(await exportOf(rt2)).toBe(expected);
      const analytics = (await rt2.log.startOffsets(rt2.topics.analytics)).reduce((a, b) => a + b, 0);
      expect(analytics).toBeGreaterThan(0); // the first run's rows were deleted from the topic
      // what the processor produced (through its producer thread, the default) as an outside team reads
      // it: the newest value of every key on the topic is the row the export has, and no other
      await expect(outsideConsumerView(rt2.topics.analytics)).resolves.toEqual(rowsByKey(expected));
    } finally {
      await rt2.close();
    }
  }, 300_000);

  /**
   * The newest value of every key on `topic`, read from the start to the end of every partition by
   * Confluent's Python client (scripts/consume-analytics.py), with the keys whose newest value is a
   * tombstone left out: what a compacting downstream consumer ends with.
   */
  async function outsideConsumerView(topic: string): Promise<Map<string, unknown>> {
    const python = await pythonEnv();
    if (!python) throw new Error(`no Python for the outside consumer: ${pythonEnvUnavailableReason()}`);
    const { stdout, stderr } = await run(
      python,
      [
        CONSUMER,
        '--brokers',
        brokers,
        '--registry',
        registryUrl,
        '--topic',
        topic,
        '--from-beginning',
        '--until-end',
        '--timeout',
        '100',
      ],
      { cwd: ROOT, timeout: 120_000, maxBuffer: 1 << 28 },
    );
    expect(stderr).toContain('(end of every partition)');
    const newest = new Map<string, unknown>();
    for (const line of stdout.split('\n')) {
      if (line.trim() === '') continue;
      const { key, value } = JSON.parse(line) as { key: string; value: unknown };
      newest.set(key, value);
    }
    for (const [k, v] of newest) if (v === null) newest.delete(k);
    return newest;
  }

  it('two processor instances produce the rows of one; an API replica started later serves the same rows and keys', async () => {
    const p2 = `${prefix}two.`;
    const env = { ...kafkaEnv(), RACING_TOPIC_PREFIX: p2 };
    const publisher = await openRuntime(config({ ...env, RACING_INSTANCE_ID: 'publisher' }), logger);
    await generate(publisher, RANGE);
    await publisher.close();
    const a = await openRuntime(config({ ...env, RACING_INSTANCE_ID: 'a' }), logger);
    const b = await openRuntime(config({ ...env, RACING_INSTANCE_ID: 'b' }), logger);
    try {
      const [fa, fb] = await Promise.all([processAll(a), processAll(b)]);
      // both instances read every input record; each emitted only its own race partitions
      expect(fa.records).toBe(fb.records);
      // a replica started later materialises the compacted topic into its own store and catches up
      const replica = await openRuntime(config({ ...env, RACING_INSTANCE_ID: 'replica' }), logger);
      try {
        const deadline = Date.now() + 120_000;
        let got = '';
        while (Date.now() < deadline) {
          await runViewMaterializer({
            log: replica.log,
            codecs: replica.codecs,
            view: replica.view,
            logger,
            group: replica.groups.view,
            untilCaughtUp: true,
          });
          got = await exportOf(replica);
          if (got === expected) break;
          await new Promise((r) => setTimeout(r, 500));
        }
        expect(got).toBe(expected);
        // keys: created on one replica, honoured by another; a revocation reaches it too
        const created = await a.keys.create('shared');
        await replicateKeys(replica, { untilCaughtUp: true });
        expect((await replica.keys.verify(created.key))?.id).toBe(created.id);
        await a.keys.revoke(created.id);
        await replicateKeys(replica, { untilCaughtUp: true });
        expect(await replica.keys.verify(created.key)).toBeUndefined();
        // the work is shared: each instance owns some of the race partitions (the one that joined second
        // took its partitions over from the topic, so it may have had nothing to publish)
        expect(fa.processor.stats.rowsEmitted + fb.processor.stats.rowsEmitted).toBeGreaterThan(0);
        expect(a.ownership!.ownedPartitions.length).toBeGreaterThan(0);
        expect(b.ownership!.ownedPartitions.length).toBeGreaterThan(0);
      } finally {
        await replica.close();
      }
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  }, 300_000);

  it('sends undecodable and invalid input to the dead-letter topic with the reason, and loses nothing', async () => {
    const p3 = `${prefix}dlq.`;
    const rt = await openRuntime(config({ ...kafkaEnv(), RACING_TOPIC_PREFIX: p3, RACING_INSTANCE_ID: 'dlq' }), logger);
    try {
      await generate(rt, { from: '2024-05-01', to: '2024-05-02', seed: 3 });
      const good = await rt.log.endOffsets(rt.topics.cards);
      const badCard = { ...(await firstCard(rt)), raceId: 'not-a-race-id' };
      await rt.log.produce(rt.topics.cards, [
        { key: 'x1', value: Buffer.from('{"not":"avro"}') },
        { key: 'x2', value: Buffer.from([0, 0, 0, 0x7f, 0xff, 1, 2, 3]) },
        { key: 'x3', value: rt.codecs.card.encode(badCard) },
      ]);
      const f = await processAll(rt);
      expect(f.deadLetters).toBe(3);
      const dead = await readAll(rt.log, rt.topics.deadLetter);
      expect(dead.map((r) => r.headers['dlq.error.code']).sort()).toEqual([
        'bad_wire_format',
        'schema_not_found',
        'validation_failed',
      ]);
      for (const r of dead) {
        expect(r.headers['dlq.source.topic']).toBe(rt.topics.cards);
        expect(r.headers['dlq.error.reason']?.length).toBeGreaterThan(5);
      }
      // every valid record was applied: inputs read = valid records + dead letters
      const inputs = (
        await Promise.all([rt.topics.cards, rt.topics.results, rt.topics.courses].map((t) => rt.log.endOffsets(t)))
      )
        .flat()
        .reduce((x, y) => x + y, 0);
      expect(f.records).toBe(inputs);
      expect(good.reduce((x, y) => x + y, 0) + 3).toBe(
        (await rt.log.endOffsets(rt.topics.cards)).reduce((x, y) => x + y, 0),
      );
      expect(f.rows).toBeGreaterThan(100);
    } finally {
      await rt.close();
    }
  }, 300_000);
});

describe.skipIf(!brokers)('Kafka mode configuration errors', () => {
  const dataDirs: string[] = [];
  const racing = (env: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'racing-cfg-'));
    dataDirs.push(dir);
    return run(process.execPath, ['--import', 'tsx', join(ROOT, 'cli', 'racing.ts'), 'process'], {
      cwd: ROOT,
      env: { ...process.env, LOG_LEVEL: 'silent', RACING_DATA_DIR: dir, ...env },
    });
  };
  afterAll(() => {
    for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
  });

  it('names an unreachable broker', async () => {
    const started = Date.now();
    await expect(
      racing({ RACING_MODE: 'kafka', KAFKA_BROKERS: '127.0.0.1:1', SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1' }),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/127\.0\.0\.1:1.*broker_unreachable/s) });
    expect(Date.now() - started).toBeLessThan(60_000);
  }, 90_000);

  it('names a wrong registry URL', async () => {
    await expect(
      racing({ RACING_MODE: 'kafka', KAFKA_BROKERS: brokers, SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1/' }),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringMatching(/127\.0\.0\.1:1.*registry_unreachable/s) });
  }, 90_000);

  it('asks for the missing settings', async () => {
    await expect(racing({ RACING_MODE: 'kafka', KAFKA_BROKERS: '', SCHEMA_REGISTRY_URL: '' })).rejects.toMatchObject({
      stderr: expect.stringContaining('KAFKA_BROKERS'),
    });
    await expect(
      racing({ RACING_MODE: 'kafka', KAFKA_BROKERS: 'nonsense', SCHEMA_REGISTRY_URL: '' }),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('KAFKA_BROKERS must be host:port'),
    });
    await expect(
      racing({ RACING_MODE: 'kafka', KAFKA_BROKERS: brokers, SCHEMA_REGISTRY_URL: '' }),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('SCHEMA_REGISTRY_URL'),
    });
  }, 90_000);
});

async function firstCard(rt: Runtime) {
  const [rec] = await rt.log.read(rt.topics.cards, 0, 0, 1);
  return rt.codecs.serde.decode<Parameters<Runtime['codecs']['card']['encode']>[0]>(rt.topics.cards, rec!.value!);
}

async function readAll(log: LogPort, topic: string) {
  const ends = await log.endOffsets(topic);
  const out = [];
  for (const [p, end] of ends.entries()) {
    let offset = 0;
    while (offset < end) {
      const batch = await log.read(topic, p, offset, 1000);
      if (batch.length === 0) break;
      out.push(...batch);
      offset = batch[batch.length - 1]!.offset + 1;
    }
  }
  return out;
}
