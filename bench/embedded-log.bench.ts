/**
 * Throughput of the embedded log over classic-level: produce 1 KB values in batches of 5,000, then
 * consume everything back with untilCaughtUp. Run: node --import tsx bench/embedded-log.bench.ts
 * [records, default 1,000,000] [partitions, default 6]. Not part of the test run; prints records/s.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLevelStore } from '../state/adapters/level-store.js';
import type { OutRecord } from '../streams/log-port.js';
import { createEmbeddedLog } from '../streams/adapters/embedded-log.js';

const total = Number(process.argv[2] ?? 1_000_000);
const partitions = Number(process.argv[3] ?? 6);
const batchSize = 5_000;
const valueSize = 1_024;

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'embedded-log-bench-'));
  const store = await openLevelStore(dir);
  const log = createEmbeddedLog(store.sub('log!'));
  try {
    const topic = 'bench.records.v1';
    await log.ensureTopics([{ name: topic, partitions, compacted: false }]);
    // Random bytes so Snappy cannot shrink the payload and flatter the figures.
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

    let started = performance.now();
    // Interval figures show whether the rate holds once LevelDB's background compaction kicks in.
    const quarter = Math.max(1, Math.floor(batches.length / 4));
    let intervalStart = started;
    for (const [i, batch] of batches.entries()) {
      await log.produce(topic, batch);
      if ((i + 1) % quarter === 0 && i + 1 < batches.length) {
        const now = performance.now();
        report(`  produce up to ${(i + 1) * batchSize}`, quarter * batchSize, (now - intervalStart) / 1000);
        intervalStart = now;
      }
    }
    let seconds = (performance.now() - started) / 1000;
    const produced = batches.length * batchSize;
    report('produce', produced, seconds);

    started = performance.now();
    let consumed = 0;
    await log.consume({ group: 'bench', topics: [topic], untilCaughtUp: true }, async ({ records }) => {
      consumed += records.length;
    });
    seconds = (performance.now() - started) / 1000;
    report('consume', consumed, seconds);
  } finally {
    await log.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
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
