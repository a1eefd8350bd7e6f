/**
 * Throughput of the Kafka log against a real broker: produce 1 KB values in calls of 5,000 records,
 * then consume everything back with untilCaughtUp (one group member). Uses the broker in KAFKA_BROKERS,
 * else starts a local one with scripts/kafka/kafka.mjs (java needed; see docs/kafka-local.md).
 * Run: node --import tsx bench/kafka-log.bench.ts [records, default 100,000] [partitions, default 6].
 * Not part of the test run; prints records/s.
 */
import { randomBytes } from 'node:crypto';
import { createLogger } from '../domain/logger.js';
import { createKafkaLog } from '../streams/adapters/kafka-log.js';
import type { OutRecord } from '../streams/log-port.js';

const total = Number(process.argv[2] ?? 100_000);
const partitions = Number(process.argv[3] ?? 6);
const batchSize = 5_000;
const valueSize = 1_024;

interface KafkaScript {
  startKafka(opts?: { log?: (msg: string) => void }): Promise<{ brokers: string; stop(): Promise<void> }>;
}

async function main(): Promise<void> {
  let stopBroker: (() => Promise<void>) | undefined;
  let brokers = process.env.KAFKA_BROKERS?.trim() ?? '';
  if (brokers === '') {
    // Loaded by URL: the script is plain JS without a declaration file.
    const script = (await import(new URL('../scripts/kafka/kafka.mjs', import.meta.url).href)) as KafkaScript;
    const broker = await script.startKafka({ log: (msg) => process.stderr.write(`${msg}\n`) });
    brokers = broker.brokers;
    stopBroker = () => broker.stop();
  }
  const log = await createKafkaLog({ brokers: brokers.split(','), logger: createLogger({ level: 'warn' }) });
  try {
    const topic = `bench.kafka-log.${Date.now().toString(36)}`;
    await log.ensureTopics([{ name: topic, partitions, compacted: false }]);
    // Random bytes so that nothing along the way can shrink the payload and flatter the figures.
    const pool = randomBytes(valueSize * 64);
    const batches: OutRecord[][] = [];
    for (let b = 0; b < total / batchSize; b++) {
      const batch: OutRecord[] = [];
      for (let i = 0; i < batchSize; i++) {
        const n = b * batchSize + i;
        const at = (n % 64) * valueSize;
        batch.push({ key: `race-${n % 50_000}:horse-${n}`, value: pool.subarray(at, at + valueSize), timestamp: n });
      }
      batches.push(batch);
    }

    const startedAll = performance.now();
    let started = startedAll;
    for (const batch of batches) await log.produce(topic, batch);
    const produced = batches.length * batchSize;
    report('produce', produced, (performance.now() - started) / 1000);

    started = performance.now();
    let consumed = 0;
    let batchesSeen = 0;
    await log.consume({ group: `${topic}.group`, topics: [topic], untilCaughtUp: true }, async ({ records }) => {
      consumed += records.length;
      batchesSeen += 1;
    });
    report(`consume (${batchesSeen} batches, incl. group join)`, consumed, (performance.now() - started) / 1000);
    report('produce + consume', produced, (performance.now() - startedAll) / 1000);
    if (consumed !== produced) throw new Error(`consumed ${consumed} of ${produced} records`);
  } finally {
    await log.close();
    await stopBroker?.();
  }
}

function report(phase: string, records: number, seconds: number): void {
  const rate = Math.round(records / seconds);
  const mb = ((records * valueSize) / seconds / 1_048_576).toFixed(1);
  console.log(
    `${phase}: ${records} records of ${valueSize} B in ${seconds.toFixed(2)} s = ${rate} records/s (${mb} MiB/s)`,
  );
}

await main();
