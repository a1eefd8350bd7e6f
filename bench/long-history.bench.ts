/**
 * What one query of an entity index costs as its history grows: a ChunkedIndex of `--years` years of
 * months (a few events a month, width 38 like a sire's vector), the old months evicted as a replay
 * leaves them, queried as a row computation does at the end of that history:
 *
 * - `whole`: a whole-history window (the sire and dam-sire fields), answered from the month summaries;
 * - `5y`: a five-year window (its first month read in detail);
 * - `lastNone`: the latest event with a dimension no event has (an entity that never won), horizon
 *   800 days, as the "days since the last win" fields ask.
 *
 * Prints the median time per query in microseconds for each history length, so a cost that grows with
 * the history shows as a rising column. `node --import tsx bench/long-history.bench.ts [--years 1,5,10,20,39]`
 */
import { parseArgs } from 'node:util';
import { ChunkedIndex } from '../state/aggregates/chunked-index.js';
import { type EventIndex } from '../state/aggregates/event-index.js';
import { median } from './median.js';

const DAY = 86_400_000;
const WIDTH = 38;
const START = Date.UTC(1988, 0, 1);

function build(years: number): { idx: ChunkedIndex; t: number } {
  const stored = new Map<number, EventIndex>();
  const idx = new ChunkedIndex(WIDTH, async (start) => stored.get(start));
  const vec = new Array<number>(WIDTH).fill(0);
  vec[0] = 1;
  let k = 0;
  const end = Date.UTC(1988 + years, 0, 1);
  for (let off = START; off < end; off += 7 * DAY) {
    idx.upsert(`r${k++}`, off, off + 3_600_000, vec);
  }
  for (const m of idx.takeDirty().chunks) stored.set(m.start, m.chunk!);
  const t = end + 10 * DAY;
  idx.evictChunksBefore(t - 100 * DAY);
  return { idx, t };
}

async function timeQuery(q: () => unknown, ensure: () => Promise<void> | undefined): Promise<number> {
  await ensure();
  const rounds: number[] = [];
  const n = 20_000;
  for (let r = 0; r < 9; r++) {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) q();
    rounds.push(((performance.now() - t0) * 1000) / n);
  }
  return median(rounds);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { years: { type: 'string', default: '1,5,10,20,39' } } });
  const years = values.years.split(',').map(Number);
  console.log('years  months  whole(us)  5y(us)  lastNone(us)');
  for (const y of years) {
    const { idx, t } = build(y);
    const five = t - 5 * 365 * DAY;
    const horizon = t - 800 * DAY;
    const whole = await timeQuery(
      () => idx.window(Number.NEGATIVE_INFINITY, t),
      () => idx.ensure(Number.NEGATIVE_INFINITY, t),
    );
    const fiveY = await timeQuery(
      () => idx.window(five, t),
      () => idx.ensure(five, t),
    );
    const lastNone = await timeQuery(
      () => idx.lastOffWith(1, t, horizon),
      () => idx.ensureLast(1, t, horizon),
    );
    console.log(
      `${String(y).padStart(5)}  ${String(idx.months).padStart(6)}  ${whole.toFixed(3).padStart(9)}  ${fiveY.toFixed(3).padStart(6)}  ${lastNone.toFixed(3).padStart(12)}`,
    );
  }
}

await main();
