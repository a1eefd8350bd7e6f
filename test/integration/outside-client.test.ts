/**
 * The analytics topic as a downstream team reads it: from Python, with Confluent's client
 * (confluent-kafka's Consumer, SchemaRegistryClient and AvroDeserializer) via scripts/consume-analytics.py,
 * against a real Kafka broker (the vitest global setup's) and the project's own schema registry server.
 *
 * Rows are encoded by the project's serde (Confluent wire format, schema registered under
 * `<topic>-value` through the Confluent registry adapter) and produced with kafkajs, with a tombstone for
 * a withdrawn runner. What Python decodes must equal what was written, value for value, and null for the
 * tombstone: proof that the product's bytes are readable by an ordinary outside client.
 *
 * Needs python3 (>= 3.10, venv, pip) and PyPI on the first run: test/support/python-env.ts builds a venv
 * from scripts/python-requirements.txt once (~5-60 s) under ~/.cache/racing-python/. Skipped without a
 * broker or without Python, except with CI=true (then those are errors).
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { type Admin, Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AnalyticsRow } from '../../domain/avro-types.generated.js';
import { silentLogger } from '../../domain/logger.js';
import type { LogPort } from '../../streams/log-port.js';
import { createConfluentRegistry } from '../../streams/adapters/confluent-registry.js';
import { createEmbeddedLog } from '../../streams/adapters/embedded-log.js';
import {
  buildRegistryServer,
  createLogSchemaStore,
  type SchemaStore,
  startRegistryServer,
} from '../../streams/registry-server/index.js';
import { AvroSerde, loadSchemaText } from '../../streams/serde.js';
import { makeRow } from '../support/fake-read-model.js';
import { memoryStore } from '../support/memory-store.js';
import { pythonEnv, pythonEnvUnavailableReason } from '../support/python-env.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');
const SCRIPT = join(ROOT, 'scripts', 'consume-analytics.py');

const brokers = inject('kafkaBrokers');
if (!brokers) {
  console.warn('[kafka] outside-client.test.ts SKIPPED: no Kafka broker (java/mvn missing; see docs/kafka-local.md)');
}

interface Line {
  key: string | null;
  value: AnalyticsRow | null;
}

/** The rows a withdrawn runner, a provisional-then-final update and a few plain rows give. */
function fixture(): { key: string; value: AnalyticsRow | null }[] {
  const rows = [
    makeRow({ raceId: 'rac_ascot_1', horseId: 'hrs_a' }),
    makeRow({ raceId: 'rac_ascot_1', horseId: 'hrs_b', sireId: null, draw: 0, improvingVpr: false }),
    makeRow({
      raceId: 'rac_ascot_1',
      horseId: 'hrs_c',
      courseTotalClimbM: null,
      courseUndulationIndex: null,
      courseElevationRangeM: null,
      vpr: 0.1 + 0.2, // a double that needs all 17 significant digits
      stableForm: '0-0-0',
    }),
    makeRow({ raceId: 'rac_cork_2', horseId: 'hrs_d', courseId: 'crs_cork', jockeyId: 'jky_ó_briain' }),
    // the same runner again, final after the off: a compacted topic keeps this one
    makeRow({
      raceId: 'rac_cork_2',
      horseId: 'hrs_d',
      courseId: 'crs_cork',
      jockeyId: 'jky_ó_briain',
      position: 1,
      status: 'final',
    }),
  ];
  return [
    ...rows.map((value) => ({ key: `${value.raceId}:${value.horseId}`, value })),
    // hrs_b withdrawn: its row is deleted with a tombstone
    { key: 'rac_ascot_1:hrs_b', value: null },
  ];
}

/** Per key, the values in the order they were written (the order a consumer sees within a partition). */
function byKey(lines: readonly Line[]): Map<string | null, (AnalyticsRow | null)[]> {
  const out = new Map<string | null, (AnalyticsRow | null)[]>();
  for (const l of lines) out.set(l.key, [...(out.get(l.key) ?? []), l.value]);
  return new Map([...out].sort(([a], [b]) => String(a).localeCompare(String(b))));
}

function parseLines(stdout: string): Line[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Line);
}

describe.skipIf(!brokers)('an outside Python consumer reads racing.analytics.v1', () => {
  const kafka = new Kafka({
    clientId: 'outside-client-test',
    brokers: brokers.split(','),
    logLevel: logLevel.ERROR,
    retry: { retries: 5 },
  });
  const topic = `it-outside-${randomUUID().slice(0, 8)}.racing.analytics.v1`;
  const badTopic = `it-outside-${randomUUID().slice(0, 8)}.not-avro`;
  const written = fixture();
  let admin: Admin | undefined;
  let producer: Producer | undefined;
  let log: LogPort | undefined;
  let schemas: SchemaStore | undefined;
  let server: FastifyInstance | undefined;
  let registryUrl = '';
  let python: string | undefined;

  beforeAll(async () => {
    python = await pythonEnv();
    if (!python) return;

    // the project's registry server, its _schemas topic on an in-memory embedded log
    log = createEmbeddedLog(memoryStore());
    schemas = await createLogSchemaStore(log, '_schemas');
    server = buildRegistryServer({ store: schemas, logger: silentLogger() });
    registryUrl = await startRegistryServer(server, { host: '127.0.0.1', port: 0 });

    // the product's encoding: AnalyticsRow registered under <topic>-value, Confluent wire format
    const serde = new AvroSerde(await createConfluentRegistry({ url: registryUrl }));
    const codec = await serde.codec<AnalyticsRow>(topic, loadSchemaText('AnalyticsRow'));

    admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic,
          numPartitions: 2,
          replicationFactor: 1,
          configEntries: [{ name: 'cleanup.policy', value: 'compact' }],
        },
        { topic: badTopic, numPartitions: 1, replicationFactor: 1 },
      ],
    });
    producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
    await producer.connect();
    await producer.send({
      topic,
      messages: written.map(({ key, value }) => ({ key, value: value === null ? null : codec.encode(value) })),
    });
    await producer.send({ topic: badTopic, messages: [{ key: 'rac_x:hrs_x', value: Buffer.from('{"not":"avro"}') }] });
  });

  afterAll(async () => {
    await producer?.disconnect();
    if (admin) {
      await admin.deleteTopics({ topics: [topic, badTopic] }).catch(() => undefined);
      await admin.disconnect();
    }
    await server?.close();
    await schemas?.close();
    await log?.close();
  });

  async function consume(args: string[]): Promise<{ lines: Line[]; stderr: string; code: number }> {
    if (!python) throw new Error('no python');
    try {
      const { stdout, stderr } = await run(
        python,
        [SCRIPT, '--brokers', brokers, '--registry', registryUrl, '--from-beginning', ...args],
        { cwd: ROOT, timeout: 50_000, maxBuffer: 1 << 24 },
      );
      return { lines: parseLines(stdout), stderr, code: 0 };
    } catch (e) {
      const err = e as { code?: number; stdout?: string; stderr?: string };
      if (typeof err.code !== 'number') throw e;
      return { lines: parseLines(err.stdout ?? ''), stderr: err.stderr ?? '', code: err.code };
    }
  }

  it('decodes every row as written and the tombstone as null (--max N)', async (ctx) => {
    if (!python) return ctx.skip(pythonEnvUnavailableReason());
    const { lines, stderr, code } = await consume([
      '--topic',
      topic,
      '--max',
      String(written.length),
      '--timeout',
      '40',
    ]);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(new RegExp(`${written.length} record\\(s\\) from .* \\(--max ${written.length}\\)`));
    expect(lines).toHaveLength(written.length);
    expect(byKey(lines)).toEqual(byKey(written));
    expect(byKey(lines).get('rac_ascot_1:hrs_b')).toEqual([written[1]?.value, null]);
  });

  it('stops at the end of every partition with --until-end (a replay of the whole topic)', async (ctx) => {
    if (!python) return ctx.skip(pythonEnvUnavailableReason());
    const { lines, stderr, code } = await consume(['--topic', topic, '--until-end', '--timeout', '40']);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('(end of every partition)');
    expect(byKey(lines)).toEqual(byKey(written));
  });

  it('fails loudly (exit 1, the offset named) on a value that is not Confluent-framed Avro', async (ctx) => {
    if (!python) return ctx.skip(pythonEnvUnavailableReason());
    const { lines, stderr, code } = await consume(['--topic', badTopic, '--max', '1', '--timeout', '40']);
    expect(code).toBe(1);
    expect(lines).toEqual([]);
    expect(stderr).toMatch(/cannot decode .*\[0\]@0 \(key 'rac_x:hrs_x'\)/);
  });
});
