/**
 * The month and year starts computed on day numbers (domain/time.ts) against the Date object's own
 * calendar, over random instants from 1600 to 2400 (leap centuries included) and the edges of every
 * month from 1987 to 2031, with the index's period ends (chunked-index.ts) that build on them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { monthStart, nextMonth, yearStart } from '../../state/aggregates/chunked-index.js';
import { startOfUtcMonth, startOfUtcYear } from '../../domain/time.js';

const byDate = {
  month: (ms: number) => {
    const d = new Date(ms);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  },
  year: (ms: number) => Date.UTC(new Date(ms).getUTCFullYear(), 0, 1),
  nextMonth: (ms: number) => {
    const d = new Date(ms);
    return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  },
};

describe('UTC month and year starts without a Date object', () => {
  it('agree with Date over random instants from 1600 to 2400', () => {
    const lo = Date.UTC(1600, 0, 1);
    const hi = Date.UTC(2400, 0, 1);
    fc.assert(
      fc.property(fc.integer({ min: lo, max: hi }), (ms) => {
        expect(startOfUtcMonth(ms)).toBe(byDate.month(ms));
        expect(startOfUtcYear(ms)).toBe(byDate.year(ms));
        expect(nextMonth(ms)).toBe(byDate.nextMonth(ms));
      }),
      { numRuns: 20_000 },
    );
  });

  it('agree with Date at the first and last millisecond of every month, 1987 to 2031', () => {
    for (let y = 1987; y <= 2031; y++) {
      for (let m = 0; m < 12; m++) {
        const first = Date.UTC(y, m, 1);
        for (const ms of [first, first - 1, first + 1, Date.UTC(y, m, 15, 12)]) {
          expect(monthStart(ms)).toBe(byDate.month(ms));
          expect(yearStart(ms)).toBe(byDate.year(ms));
          expect(nextMonth(ms)).toBe(byDate.nextMonth(ms));
        }
      }
    }
    expect(monthStart(Number.NEGATIVE_INFINITY)).toBe(Number.NEGATIVE_INFINITY);
    expect(yearStart(Number.POSITIVE_INFINITY)).toBe(Number.POSITIVE_INFINITY);
  });
});
