// Smoke test of the real Kafka broker provided by test/integration/kafka-global-setup.ts:
// a compacted topic can be created, written and read, and the log cleaner really compacts it.
import { randomUUID } from 'node:crypto';
import { type Admin, Kafka, logLevel, Partitioners, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';

const brokers = inject('kafkaBrokers');
if (!brokers) {
  console.warn('[kafka] kafka-broker.test.ts SKIPPED: no Kafka broker (java/mvn missing; see docs/kafka-local.md)');
}

interface ConsumedRecord {
  key: string;
  value: string;
  offset: string;
}

/** Reads a topic (one partition) from the beginning up to its high watermark with a throwaway group. */
async function readAll(kafka: Kafka, admin: Admin, topic: string): Promise<ConsumedRecord[]> {
  const [partition] = await admin.fetchTopicOffsets(topic);
  const high = BigInt(partition?.high ?? '0');
  if (high === 0n) return [];
  const consumer = kafka.consumer({ groupId: `smoke-read-${randomUUID()}`, maxWaitTimeInMs: 100 });
  const records: ConsumedRecord[] = [];
  try {
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out reading ${topic} up to offset ${high}`)), 30_000);
      consumer
        .run({
          eachMessage: async ({ message }) => {
            records.push({
              key: message.key?.toString() ?? '',
              value: message.value?.toString() ?? '',
              offset: message.offset,
            });
            if (BigInt(message.offset) + 1n >= high) {
              clearTimeout(timer);
              resolve();
            }
          },
        })
        .catch((err: unknown) => {
          clearTimeout(timer);
          reject(err);
        });
    });
  } finally {
    await consumer.disconnect();
  }
  return records;
}

describe.skipIf(!brokers)('real Kafka broker (from the global setup)', () => {
  const kafka = new Kafka({
    clientId: 'kafka-broker-smoke-test',
    brokers: brokers.split(','),
    logLevel: logLevel.ERROR,
    retry: { retries: 5 },
  });
  const admin = kafka.admin();
  const producer: Producer = kafka.producer({ createPartitioner: Partitioners.DefaultPartitioner });
  const topic = `smoke-compacted-${randomUUID()}`;

  beforeAll(async () => {
    await admin.connect();
    await producer.connect();
    const created = await admin.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic,
          numPartitions: 1,
          replicationFactor: 1,
          configEntries: [
            { name: 'cleanup.policy', value: 'compact' },
            // roll segments quickly and clean eagerly, so compaction happens within the test
            { name: 'segment.ms', value: '100' },
            { name: 'min.cleanable.dirty.ratio', value: '0.01' },
            { name: 'min.compaction.lag.ms', value: '0' },
          ],
        },
      ],
    });
    expect(created).toBe(true);
  });

  afterAll(async () => {
    await producer.disconnect();
    await admin.deleteTopics({ topics: [topic] }).catch(() => {});
    await admin.disconnect();
  });

  it('creates the topic with cleanup.policy=compact', async () => {
    const { resources } = await admin.describeConfigs({
      includeSynonyms: false,
      resources: [{ type: 2 /* ConfigResourceTypes.TOPIC */, name: topic, configNames: ['cleanup.policy'] }],
    });
    expect(resources[0]?.configEntries.find((e) => e.configName === 'cleanup.policy')?.configValue).toBe('compact');
  });

  it('produces and consumes a message', async () => {
    await producer.send({ topic, messages: [{ key: 'runner-1', value: 'v1' }] });
    const records = await readAll(kafka, admin, topic);
    expect(records).toEqual([{ key: 'runner-1', value: 'v1', offset: '0' }]);
  });

  it('compacts older values of a key away', async () => {
    await producer.send({ topic, messages: [{ key: 'runner-1', value: 'v2' }] });
    await producer.send({ topic, messages: [{ key: 'runner-1', value: 'v3' }] });
    // segment.ms=100: the next append after 100 ms rolls the segment, so the v1..v3 segment becomes cleanable
    await new Promise((resolve) => setTimeout(resolve, 250));
    await producer.send({ topic, messages: [{ key: 'runner-2', value: 'only' }] });

    const deadline = Date.now() + 45_000;
    let records: ConsumedRecord[] = [];
    while (Date.now() < deadline) {
      records = await readAll(kafka, admin, topic);
      if (records.filter((r) => r.key === 'runner-1').length === 1) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    expect(records.map(({ key, value }) => ({ key, value }))).toEqual([
      { key: 'runner-1', value: 'v3' },
      { key: 'runner-2', value: 'only' },
    ]);
  }, 60_000);
});
