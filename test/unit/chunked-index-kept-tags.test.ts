/**
 * A tagged ChunkedIndex keeps, per tag, the whole months' sums of its last window and extends them by
 * the months after when a later window of the same tag starts at the same month position. Positions
 * move when a month opens before others, when old years are rolled up and when they are expanded
 * again: sums kept before such a move must not be offered to a window after it, even where every month
 * the kept range names now is unchanged. Each case asks the window a kept range would wrongly answer
 * and compares with the events summed by hand (month values 1, 2, 4, 8, 16, 32, 64, so any wrong
 * set of months gives a different sum).
 */
import { describe, expect, it } from 'vitest';
import { ChunkedIndex, type YearBlock } from '../../state/aggregates/chunked-index.js';

const TAG = [1, 1];
const at = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d, 14);
const monthStart = (y: number, m: number) => Date.UTC(y, m - 1, 1);

/** One event of tag TAG on the 5th of each month given, value 2^i, published 15 minutes after the off. */
function withMonths(idx: ChunkedIndex, months: [number, number][]): void {
  months.forEach(([y, m], i) => {
    const off = at(y, m, 5);
    idx.upsert(`e${y}-${m}`, off, off + 900_000, [...TAG, 2 ** i]);
  });
}

function sumOf(idx: ChunkedIndex, from: number, t: number): number {
  const w = idx.windowTagged(from, t, TAG[0]!, TAG[1]!);
  return w.sums[0]!;
}

describe('ChunkedIndex tagged windows: whole-month sums kept per tag', () => {
  it('extends the kept sums by the months after them, to the same bits as summed from zero', () => {
    const idx = new ChunkedIndex(3, undefined, undefined, undefined, true);
    withMonths(idx, [
      [2020, 2],
      [2020, 3],
      [2020, 4],
    ]);
    // February and March from their totals, April in detail
    expect(sumOf(idx, monthStart(2020, 2), at(2020, 4, 20))).toBe(1 + 2 + 4);
    const off = at(2020, 5, 5);
    idx.upsert('e2020-5', off, off + 900_000, [...TAG, 1 / 3]);
    // February..April kept and extended by April, then May in detail
    expect(sumOf(idx, monthStart(2020, 2), at(2020, 5, 20))).toBe(1 + 2 + 4 + 1 / 3);
    const fresh = new ChunkedIndex(3, undefined, undefined, undefined, true);
    withMonths(fresh, [
      [2020, 2],
      [2020, 3],
      [2020, 4],
    ]);
    fresh.upsert('e2020-5', off, off + 900_000, [...TAG, 1 / 3]);
    expect(sumOf(fresh, monthStart(2020, 2), at(2020, 5, 20))).toBe(sumOf(idx, monthStart(2020, 2), at(2020, 5, 20)));
  });

  it('drops what it kept when a change reaches a month it kept', () => {
    const idx = new ChunkedIndex(3, undefined, undefined, undefined, true);
    withMonths(idx, [
      [2020, 2],
      [2020, 3],
      [2020, 4],
    ]);
    expect(sumOf(idx, monthStart(2020, 2), at(2020, 5, 20))).toBe(7);
    const off = at(2020, 3, 20);
    idx.upsert('late', off, off + 900_000, [...TAG, 8]); // a March result arriving late
    expect(sumOf(idx, monthStart(2020, 2), at(2020, 5, 20))).toBe(15);
  });

  it('drops what it kept when a month opens before the kept ones', () => {
    const idx = new ChunkedIndex(3, undefined, undefined, undefined, true);
    // February(0) .. June(4)
    withMonths(idx, [
      [2020, 2],
      [2020, 3],
      [2020, 4],
      [2020, 5],
      [2020, 6],
    ]);
    // March..June kept at positions [1, 5)
    expect(sumOf(idx, monthStart(2020, 3), at(2020, 7, 15))).toBe(2 + 4 + 8 + 16);
    // January opens at position 0 (another tag): February is now at position 1
    const jan = at(2020, 1, 5);
    idx.upsert('other', jan, jan + 900_000, [0, 0, 100]);
    expect(sumOf(idx, monthStart(2020, 2), at(2020, 7, 15))).toBe(1 + 2 + 4 + 8 + 16);
  });

  it('drops what it kept when old years are rolled up, and when they are expanded again', async () => {
    const blocks = new Map<number, YearBlock>();
    const yearLoader = async (years: readonly number[]) => years.map((y) => blocks.get(y)!);
    const idx = new ChunkedIndex(3, undefined, undefined, yearLoader, true);
    // November 2019(0), December 2019(1), February(2) .. June 2020(6)
    withMonths(idx, [
      [2019, 11],
      [2019, 12],
      [2020, 2],
      [2020, 3],
      [2020, 4],
      [2020, 5],
      [2020, 6],
    ]);
    // March..May kept at positions [3, 6) (June read in detail)
    expect(sumOf(idx, monthStart(2020, 3), at(2020, 6, 15))).toBe(8 + 16 + 32 + 64);
    for (const y of idx.takeDirty().years) blocks.set(y, idx.yearBlock(y));
    const end = Date.UTC(2020, 0, 1);
    idx.evictChunksBefore(end);
    expect(idx.rollUp(end)).toBe(true);
    // 2019 is one position now: April..June are at [3, 6)
    expect(sumOf(idx, monthStart(2020, 4), at(2020, 7, 15))).toBe(16 + 32 + 64);
    // March..May kept at [2, 5), then 2019 expanded back to two positions: February..April are at [2, 5)
    expect(sumOf(idx, monthStart(2020, 3), at(2020, 6, 15))).toBe(8 + 16 + 32 + 64);
    await idx.expand();
    expect(sumOf(idx, monthStart(2020, 2), at(2020, 6, 15))).toBe(4 + 8 + 16 + 32 + 64);
  });
});
