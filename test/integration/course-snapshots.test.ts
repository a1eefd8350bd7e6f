/**
 * Course snapshots on racing.course-snapshots.v1 are the rows the analytics rows join: for every
 * analytics row that names a snapshot (snapshotPeriod), the snapshot row with that key on the topic
 * holds the same drawBiasStrength and family-I values; rows that name none have none. Checked on the
 * embedded log and on a real Kafka broker, with monthly periods and daily ones once live.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type ServiceConfig, serviceConfigFromEnv } from '../../cli/config.js';
import { generate, processAll } from '../../cli/commands/pipeline.js';
import { openKafkaLog, openRuntime, type Runtime } from '../../cli/runtime.js';
import type { AnalyticsRow, CourseSnapshot } from '../../domain/avro-types.generated.js';
import { distanceBucket, DISCIPLINES, DISTANCE_BUCKETS, SURFACES } from '../../domain/codes.js';
import { silentLogger } from '../../domain/logger.js';
import { buildRegistryServer, createLogSchemaStore, startRegistryServer } from '../../streams/registry-server/index.js';

const brokers = inject('kafkaBrokers');
const logger = silentLogger();
const dirs: string[] = [];
// Three months of racing; daily periods from 1 March, so both kinds of period are joined.
const RANGE = { from: '2024-01-01', to: '2024-03-20', seed: 5, scale: 0.3 };
const DAILY_FROM = '2024-03-01';

function config(env: Record<string, string>): ServiceConfig {
  const dir = mkdtempSync(join(tmpdir(), 'racing-snapshots-'));
  dirs.push(dir);
  return serviceConfigFromEnv({
    RACING_DATA_DIR: dir,
    LOG_LEVEL: 'silent',
    RACING_CHECKPOINT_MS: '500',
    RACING_DAILY_SNAPSHOTS_FROM: DAILY_FROM,
    ...env,
  });
}

/** The latest value per key of a topic, as a compacted topic presents it (tombstones remove). */
async function compacted<T>(rt: Runtime, topic: string): Promise<Map<string, T>> {
  const out = new Map<string, T>();
  await rt.log.consume(
    { group: `check-${topic}-${Date.now()}-${Math.random()}`, topics: [topic], untilCaughtUp: true },
    async (batch) => {
      for (const r of batch.records) {
        if (r.value === null) out.delete(r.key);
        else out.set(r.key, await rt.codecs.serde.decode<T>(topic, r.value));
      }
    },
  );
  return out;
}

/** Family I of the row and the snapshot field each one copies. */
const FAMILY_I = [
  ['snapshotRaces', 'races'],
  ['snapshotFavouriteWinRate', 'favouriteWinRate'],
  ['snapshotFavouritePlaceRate', 'favouritePlaceRate'],
  ['snapshotDrawLowWinRate', 'drawLowWinRate'],
  ['snapshotDrawMiddleWinRate', 'drawMiddleWinRate'],
  ['snapshotDrawHighWinRate', 'drawHighWinRate'],
  ['drawBias', 'drawBias'],
] as const satisfies readonly (readonly [keyof AnalyticsRow, keyof CourseSnapshot])[];

async function checkJoin(rt: Runtime): Promise<{ joined: number; daily: number; none: number; snapshots: number }> {
  const rows = await compacted<AnalyticsRow>(rt, rt.topics.analytics);
  const snapshots = await compacted<CourseSnapshot>(rt, rt.topics.courseSnapshots);
  let joined = 0;
  let daily = 0;
  let none = 0;
  for (const row of rows.values()) {
    if (row.snapshotPeriod === '') {
      none++;
      expect(row.snapshotRaces, row.raceId).toBe(0);
      expect(row.drawBiasStrength).toBe(0);
      continue;
    }
    const discipline = DISCIPLINES[row.disciplineCode - 1]!;
    const bucket = DISTANCE_BUCKETS[row.distanceBucketCode - 1]!;
    const surface = SURFACES[row.surfaceCode - 1]!;
    expect(bucket).toBe(distanceBucket(row.distanceYards));
    const key = `${row.courseId}:${row.snapshotPeriod}:${discipline}:${bucket}:${surface}`;
    const snap = snapshots.get(key);
    expect(snap, `snapshot ${key} named by ${row.raceId}:${row.horseId}`).toBeDefined();
    expect(row.drawBiasStrength).toBe(row.draw > 0 ? snap!.drawBiasStrength : 0);
    expect(row.drawBiasRaces).toBe(row.draw > 0 ? snap!.drawRaces : 0);
    for (const [f, g] of FAMILY_I) expect(row[f], `${f} of ${key}`).toBe(snap![g]);
    expect(row.snapshotMeanFieldSize).toBeCloseTo(snap!.races > 0 ? snap!.runners / snap!.races : 0, 4);
    // the snapshot is in force at the off: its period ended at or before it
    expect(Date.parse(snap!.periodEndUtc)).toBeLessThanOrEqual(Date.parse(row.offTime));
    joined++;
    if (row.snapshotPeriod.length === 10) daily++;
  }
  return { joined, daily, none, snapshots: snapshots.size };
}

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('course snapshots on their topic', () => {
  it('embedded: every analytics row equals the snapshot it names (monthly and daily periods)', async () => {
    const rt = await openRuntime(config({}), logger);
    try {
      await generate(rt, RANGE);
      await processAll(rt);
      const r = await checkJoin(rt);
      // a check that compares nothing proves nothing
      expect(r.joined).toBeGreaterThan(1000);
      expect(r.daily).toBeGreaterThan(100);
      expect(r.none).toBeGreaterThan(0);
      expect(r.snapshots).toBeGreaterThan(100);
    } finally {
      await rt.close();
    }
  }, 300_000);
});

describe.skipIf(!brokers)('course snapshots on a real Kafka broker', () => {
  let registryUrl: string;
  let closeRegistry: () => Promise<void>;
  const prefix = `s${Date.now().toString(36)}.`;

  beforeAll(async () => {
    const log = await openKafkaLog(config({ KAFKA_BROKERS: brokers }), logger);
    const store = await createLogSchemaStore(log, `${prefix}_schemas`, { logger });
    const app = buildRegistryServer({ store, logger });
    registryUrl = await startRegistryServer(app, { host: '127.0.0.1', port: 0 });
    closeRegistry = async () => {
      await app.close();
      await store.close();
      await log.close();
    };
  }, 60_000);

  afterAll(async () => {
    await closeRegistry?.();
  });

  it('Kafka: every analytics row equals the snapshot it names', async () => {
    const rt = await openRuntime(
      config({
        RACING_MODE: 'kafka',
        KAFKA_BROKERS: brokers,
        SCHEMA_REGISTRY_URL: registryUrl,
        RACING_TOPIC_PREFIX: prefix,
        RACING_INSTANCE_ID: 'snap',
      }),
      logger,
    );
    try {
      await generate(rt, RANGE);
      await processAll(rt);
      const r = await checkJoin(rt);
      expect(r.joined).toBeGreaterThan(1000);
      expect(r.daily).toBeGreaterThan(100);
    } finally {
      await rt.close();
    }
  }, 300_000);
});
