/**
 * The Kafka adapter and the registry's schema store through a broker outage longer than kafkajs's
 * retry budget (~25 s), on a broker of this test's own restarted on its data and address: a tailing
 * consume neither fails nor loses or repeats a record, and the `_schemas` tail rejoins (a registration,
 * which reads the topic to its end first, succeeds afterwards; reads fail fast meanwhile).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../domain/logger.js';
import { createKafkaLog } from '../../streams/adapters/kafka-log.js';
import { createLogSchemaStore } from '../../streams/registry-server/index.js';
import { Fixture, OwnBroker, waitFor } from './fault-support.js';

const fx = new Fixture();
let broker: OwnBroker | undefined;
afterAll(async () => {
  await broker?.stop();
  await fx.cleanup();
});

/** Version `n` of one record schema: each adds a field with a default (BACKWARD compatible). */
const SCHEMA = (n: number) =>
  JSON.stringify({
    type: 'record',
    name: 'Probe',
    fields: [
      { name: 'a', type: 'int' },
      ...Array.from({ length: n - 1 }, (_, i) => ({ name: `f${i}`, type: 'int', default: 0 })),
    ],
  });

describe('a broker outage longer than the client retry budget', () => {
  it('a tailing consumer and the schema store recover by themselves', async () => {
    broker = await OwnBroker.start(fx.dir('consumer-broker'));
    const logger = silentLogger();
    const log = await createKafkaLog({ brokers: [broker.brokers], logger });
    const received: string[] = [];
    const stop = new AbortController();
    let consumeError: unknown;
    try {
      await log.ensureTopics([{ name: 'outage.t', partitions: 2, compacted: false }]);
      const store = await createLogSchemaStore(log, 'outage._schemas', { logger, syncTimeoutMs: 3_000 });
      await store.register('s-value', SCHEMA(1));
      const consuming = log
        .consume({ group: 'outage.g', topics: ['outage.t'], signal: stop.signal }, async (b) => {
          for (const r of b.records) received.push(r.key);
        })
        .catch((e: unknown) => (consumeError = e));
      await log.produce('outage.t', [
        { key: 'a', value: Buffer.from('1') },
        { key: 'b', value: Buffer.from('2') },
      ]);
      await waitFor('the first records', () => (received.length === 2 ? true : undefined), 60_000);

      await broker.stop();
      // Reads that need the topic's end fail fast with a clear error during the outage.
      await expect(store.register('s-value', SCHEMA(2))).rejects.toMatchObject({
        code: expect.stringMatching(/unreachable/),
      });
      await new Promise((r) => setTimeout(r, 35_000)); // the outage itself: longer than kafkajs's retries
      await broker.restart();

      await waitFor(
        'a produce after the restart',
        async () => {
          await log.produce('outage.t', [{ key: 'c', value: Buffer.from('3') }]);
          return true;
        },
        60_000,
        1_000,
      );
      await waitFor(
        'the record produced after the restart',
        () => (received.includes('c') ? true : undefined),
        120_000,
      );
      expect(consumeError).toBeUndefined();
      expect(received.sort()).toEqual(['a', 'b', 'c']);
      const after = await waitFor(
        'a registration after the restart',
        () => store.register('s-value', SCHEMA(2)),
        120_000,
        2_000,
      );
      expect(after.created).toBe(true);
      expect(store.versions('s-value')).toEqual([1, 2]);
      stop.abort();
      await consuming;
      await store.close();
    } finally {
      stop.abort();
      await log.close();
    }
  }, 300_000);
});
