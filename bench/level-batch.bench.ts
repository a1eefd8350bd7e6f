/**
 * What adding a record to a checkpoint's store batch costs on the main thread (`StoreBatch.put`: the
 * LevelDB store copies the key and the value into classic-level's native batch), by the value's size and
 * by the slice a checkpoint is written in (`RACING_CHECKPOINT_SLICE_BYTES`, analytics-processor.ts). The
 * values are views of one slab, as the engine's encoded state records are. Only the puts are timed (less
 * the timer's own cost); as in a checkpoint (`AnalyticsProcessor.checkpoint`), a full slice's write is
 * started and the puts go on into the next while it runs, and the round ends when every write is done.
 * Each round measures every slice size, in an order that turns by one each round (the database grows
 * and compacts as the rounds go). Prints the microseconds a put for each size and slice, the median of
 * the rounds.
 *
 *   node --import tsx bench/level-batch.bench.ts [--records 100000] [--rounds 3] [--sizes 100,1300,6000] [--slices-mb 32,8]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type LevelStore, openLevelStore } from '../state/adapters/level-store.js';
import { median } from './median.js';

const { values } = parseArgs({
  options: {
    records: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
    sizes: { type: 'string', default: '100,1300,6000' },
    'slices-mb': { type: 'string', default: '32,8' },
  },
});
const positive = (name: string, text: string): number[] => {
  const xs = text.split(',').map(Number);
  if (xs.some((x) => !Number.isInteger(x) || x <= 0)) {
    console.error(`--${name}: positive integers separated by commas, got '${text}'`);
    process.exit(2);
  }
  return xs;
};
const [records] = positive('records', values.records);
const [rounds] = positive('rounds', values.rounds);
const sizes = positive('sizes', values.sizes);
const slices = positive('slices-mb', values['slices-mb']);

const slab = Buffer.alloc(64 * 1024 * 1024);
for (let i = 0; i < slab.length; i++) slab[i] = (i * 2654435761) >>> 24;

/** What the two clock reads around a put cost, in nanoseconds (the median of many empty pairs). */
function timerCost(): number {
  const xs: number[] = [];
  for (let i = 0; i < 100_000; i++) {
    const t0 = process.hrtime.bigint();
    xs.push(Number(process.hrtime.bigint() - t0));
  }
  return median(xs);
}

/** One round of `records` puts of `size` bytes in slices of `sliceBytes`: microseconds a put. */
async function round(
  store: LevelStore,
  size: number,
  sliceBytes: number,
  keyBase: number,
  timer: number,
): Promise<number> {
  let timed = 0n;
  let batch = store.writeBatch();
  let bytes = 0;
  const writes: Promise<void>[] = [];
  for (let i = 0; i < records!; i++) {
    const at = (i * 7919) % (slab.length - size);
    const key = `engine!c!jockey!jky_${(i * 31) % 100_000}!${keyBase + i}`;
    const value = slab.subarray(at, at + size);
    const t0 = process.hrtime.bigint();
    batch.put(key, value);
    timed += process.hrtime.bigint() - t0;
    bytes += key.length + size;
    if (bytes >= sliceBytes) {
      writes.push(batch.write());
      batch = store.writeBatch();
      bytes = 0;
    }
  }
  writes.push(batch.write());
  await Promise.all(writes);
  return (Number(timed) - timer * records!) / 1e3 / records!;
}

const dir = mkdtempSync(join(tmpdir(), 'level-batch-'));
const store = await openLevelStore(join(dir, 'db'));
try {
  const timer = timerCost();
  console.log(
    `${records!} puts a round, ${rounds!} rounds; microseconds a put (median of the rounds), less ${timer} ns a put for the clock`,
  );
  let keyBase = 1_000_000;
  for (const size of sizes) {
    const perPut = new Map<number, number[]>(slices.map((mb) => [mb, []]));
    for (let r = 0; r < rounds!; r++) {
      for (let q = 0; q < slices.length; q++) {
        const mb = slices[(q + r) % slices.length]!;
        perPut.get(mb)!.push(await round(store, size, mb * 1024 * 1024, keyBase, timer));
        keyBase += records!;
      }
    }
    for (const mb of slices) {
      const xs = perPut.get(mb)!;
      console.log(
        `value ${String(size).padStart(6)} B, slice ${String(mb).padStart(3)} MB: ${median(xs).toFixed(2)} us a put (${xs.map((x) => x.toFixed(2)).join(', ')})`,
      );
    }
  }
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
