/**
 * firstFromEnd, the search the entity indexes' window queries start from their end with, against a
 * linear scan: rising values with repeats, -Infinity and Infinity among them, x equal to a value, between
 * values, outside them and NaN, in rows of several fields (the value one field of each).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstFromEnd } from '../../state/aggregates/event-index.js';

/** The first i < len whose value is not below x (`above`: not at or below x), by looking at each. */
function linear(values: readonly number[], x: number, above: boolean): number {
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!(above ? v <= x : v < x)) return i;
  }
  return values.length;
}

/** The values as field f of rows of S fields (the other fields noise). */
function rows(values: readonly number[], S: number, f: number): number[] {
  const a: number[] = [];
  for (const v of values) for (let k = 0; k < S; k++) a.push(k === f ? v : -7);
  return a;
}

describe('firstFromEnd', () => {
  it('agrees with a linear scan', () => {
    const value = fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 0, max: 40 }) },
      { weight: 1, arbitrary: fc.constantFrom(Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY) },
    );
    fc.assert(
      fc.property(
        fc.array(value, { maxLength: 80 }),
        fc.oneof(
          fc.integer({ min: -2, max: 42 }),
          fc.double({ min: -2, max: 42, noNaN: true }),
          fc.constant(Number.NaN),
        ),
        fc.integer({ min: 1, max: 5 }),
        fc.boolean(),
        fc.nat(),
        (raw, x, S, above, pick) => {
          const values = raw.sort((a, b) => a - b);
          const f = pick % S;
          // x one of the values half the time: the boundaries are where an off-by-one would show
          const at = values.length > 0 && pick % 2 === 0 ? values[pick % values.length]! : x;
          expect(firstFromEnd(rows(values, S, f), S, f, values.length, at, above)).toBe(linear(values, at, above));
        },
      ),
      { numRuns: 5_000 },
    );
  });

  it('hand-picked: empty, all below, all above, repeats at the boundary', () => {
    expect(firstFromEnd([], 1, 0, 0, 5, false)).toBe(0);
    expect(firstFromEnd([1, 2, 3], 1, 0, 3, 9, false)).toBe(3);
    expect(firstFromEnd([1, 2, 3], 1, 0, 3, 0, false)).toBe(0);
    expect(firstFromEnd([1, 2, 2, 2, 3], 1, 0, 5, 2, false)).toBe(1);
    expect(firstFromEnd([1, 2, 2, 2, 3], 1, 0, 5, 2, true)).toBe(4);
    // len below the array's rows: the rows past it are not read
    expect(firstFromEnd([1, 2, 3, 0, 0], 1, 0, 3, 2, false)).toBe(1);
  });
});
