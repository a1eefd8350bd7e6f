/**
 * Rebalances publish only what changed: on a real broker, a second instance joining (partitions move to
 * it) and leaving (they move back) add no record to racing.analytics.v1 when the input did not change,
 * because an instance that gains a race partition takes over what is on the compacted topic for it; the
 * same holds for the course snapshot keys on racing.course-snapshots.v1.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { analyticsNdjson } from '../../api/admin.js';
import { type ServiceConfig, serviceConfigFromEnv } from '../../cli/config.js';
import { generate, processAll } from '../../cli/commands/pipeline.js';
import { openKafkaLog, openRuntime, type Runtime } from '../../cli/runtime.js';
import { silentLogger } from '../../domain/logger.js';
import { runViewMaterializer } from '../../streams/processors/view-materializer.js';
import { buildRegistryServer, createLogSchemaStore, startRegistryServer } from '../../streams/registry-server/index.js';

const brokers = inject('kafkaBrokers');
const logger = silentLogger();
const dirs: string[] = [];
const RANGE = { from: '2024-05-01', to: '2024-05-08', seed: 21 };

function config(env: Record<string, string>): ServiceConfig {
  const dir = mkdtempSync(join(tmpdir(), 'racing-rebalance-'));
  dirs.push(dir);
  return serviceConfigFromEnv({ RACING_DATA_DIR: dir, LOG_LEVEL: 'silent', RACING_CHECKPOINT_MS: '200', ...env });
}

const recordsOn = async (rt: Runtime, topic: string) => (await rt.log.endOffsets(topic)).reduce((a, b) => a + b, 0);

async function until(what: string, ok: () => boolean | Promise<boolean>, ms = 90_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe.skipIf(!brokers)('rebalances on a real broker', () => {
  let registryUrl: string;
  let closeRegistry: () => Promise<void>;
  const prefix = `r${Date.now().toString(36)}.`;
  const env = () => ({
    RACING_MODE: 'kafka',
    KAFKA_BROKERS: brokers,
    SCHEMA_REGISTRY_URL: registryUrl,
    RACING_TOPIC_PREFIX: prefix,
  });

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
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('an instance joining and leaving adds no record to the analytics or course-snapshot topic', async () => {
    const publisher = await openRuntime(config({ ...env(), RACING_INSTANCE_ID: 'pub' }), logger);
    await generate(publisher, RANGE);
    await publisher.close();

    const a = await openRuntime(config({ ...env(), RACING_INSTANCE_ID: 'a' }), logger);
    let b: Runtime | undefined;
    try {
      const fa = await processAll(a);
      expect(fa.rows).toBeGreaterThan(1000);
      const partitions = await a.log.partitions(a.topics.cards);
      expect(a.ownership!.ownedPartitions).toHaveLength(partitions);
      const before = await recordsOn(a, a.topics.analytics);
      const snapshotsBefore = await recordsOn(a, a.topics.courseSnapshots);
      expect(snapshotsBefore).toBeGreaterThan(10);

      // b joins: some race partitions move to it
      b = await openRuntime(config({ ...env(), RACING_INSTANCE_ID: 'b' }), logger);
      const fb = await processAll(b);
      await until('the partitions to be shared', () => {
        const oa = a.ownership!.ownedPartitions;
        const ob = b!.ownership!.ownedPartitions;
        return oa.length > 0 && ob.length > 0 && oa.length + ob.length === partitions;
      });
      await fa.processor.flushNow();
      await fb.processor.flushNow();
      expect(await recordsOn(a, a.topics.analytics)).toBe(before);
      expect(await recordsOn(a, a.topics.courseSnapshots)).toBe(snapshotsBefore);

      // b leaves: its partitions move back to a
      await b.close();
      b = undefined;
      await until('a to own every partition again', () => a.ownership!.ownedPartitions.length === partitions);
      await fa.processor.flushNow();
      expect(await recordsOn(a, a.topics.analytics)).toBe(before);
      expect(await recordsOn(a, a.topics.courseSnapshots)).toBe(snapshotsBefore);

      // and the topic still holds every row: a replica materialising it serves the same export
      const replica = await openRuntime(config({ ...env(), RACING_INSTANCE_ID: 'replica' }), logger);
      try {
        await runViewMaterializer({
          log: replica.log,
          codecs: replica.codecs,
          view: replica.view,
          logger,
          group: replica.groups.view,
          untilCaughtUp: true,
        });
        expect(await text(analyticsNdjson(replica.view))).toBe(await text(analyticsNdjson(a.view)));
      } finally {
        await replica.close();
      }
    } finally {
      await b?.close();
      await a.close();
    }
  }, 400_000);
});
