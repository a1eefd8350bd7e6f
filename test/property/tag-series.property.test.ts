/**
 * TagSeries (state/aggregates/tag-series.ts) against its definition: a tag's totals over the months held
 * that start in [start, lastStart], added from zero in month order. Random runs of appends, changes,
 * trims and resets over tags of both forms (minted identifiers' small doubles and hashed tags above
 * 2^50), with many tags per month so that the tag table grows, and trims and drops so that it is made
 * again without the tags whose months are gone.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TAG_TOTAL_HEAD } from '../../state/aggregates/event-index.js';
import { TagSeries } from '../../state/aggregates/tag-series.js';

const SUMS = 2;
const MONTH = 1000;
/** tags of both forms, some sharing their first or their second double */
const TAGS: [number, number][] = [];
for (let i = 0; i < 60; i++) {
  TAGS.push(i % 2 === 0 ? [i * 2 ** 35 + 7, 3 * i] : [2 ** 50 + i * 977, 2 ** 47 + (i % 5)]);
}
// many sharing one double: a table that told tags apart by one of them would mix their totals
for (let i = 0; i < 12; i++) TAGS.push([5 * 2 ** 35, i], [i * 2 ** 35 + 1, 9]);

interface Month {
  start: number;
  /** tag index -> [count, latest, sums...] */
  totals: Map<number, number[]>;
}

const monthArb = fc.uniqueArray(
  fc.record({
    tag: fc.integer({ min: 0, max: TAGS.length - 1 }),
    n: fc.integer({ min: 1, max: 5 }),
    latest: fc.integer({ min: 0, max: 10_000 }),
    sums: fc.array(fc.double({ min: -10, max: 10, noNaN: true }), { minLength: SUMS, maxLength: SUMS }),
  }),
  { selector: (t) => t.tag, maxLength: 40, size: 'max' },
);

const opArb = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('append' as const), tags: monthArb }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('sum' as const),
      tag: fc.integer({ min: 0, max: TAGS.length - 1 }),
      from: fc.integer({ min: 0, max: 40 }),
      len: fc.integer({ min: 0, max: 40 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('change' as const), back: fc.integer({ min: 0, max: 10 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('trim' as const), ahead: fc.integer({ min: 0, max: 10 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reset' as const), at: fc.integer({ min: 0, max: 30 }) }) },
);

function encode(m: Month): number[] {
  const out: number[] = [];
  for (const [t, v] of m.totals) out.push(TAGS[t]![0], TAGS[t]![1], ...v);
  return out;
}

describe('TagSeries', () => {
  it('answers every tag as the months held define it, through appends, changes, trims and resets', () => {
    // encode writes each tag as [a, b, n, latest, sums...]: the head of EventIndex.tagTotals
    expect(TAG_TOTAL_HEAD).toBe(4);
    let checked = 0;
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 1, maxLength: 120, size: 'max' }), (ops) => {
        const series = new TagSeries(SUMS);
        /** the months the model holds, in order; the next month appended starts at `next` */
        let held: Month[] = [];
        let next = 0;
        series.reset(0);
        for (const op of ops) {
          if (op.kind === 'append') {
            const m: Month = {
              start: next,
              totals: new Map(op.tags.map((t) => [t.tag, [t.n, t.latest, ...t.sums]])),
            };
            series.append(m.start, m.start + MONTH, encode(m));
            held.push(m);
            next += MONTH;
          } else if (op.kind === 'sum') {
            if (held.length === 0) continue;
            const i = op.from % held.length;
            const j = i + (op.len % (held.length - i));
            const start = held[i]!.start;
            const lastStart = held[j]!.start;
            expect(series.holds(start, lastStart)).toBe(true);
            const [a, b] = TAGS[op.tag]!;
            const got = series.sum(a, b, start, lastStart, new Array<number>(2 + SUMS).fill(7));
            const want = [0, Number.NEGATIVE_INFINITY, ...new Array<number>(SUMS).fill(0)];
            for (const m of held) {
              const v = m.totals.get(op.tag);
              if (m.start < start || m.start > lastStart || !v) continue;
              want[0]! += v[0]!;
              if (v[1]! > want[1]!) want[1] = v[1]!;
              for (let d = 0; d < SUMS; d++) want[2 + d]! += v[2 + d]!;
            }
            expect(got).toEqual(want);
            checked++;
          } else if (op.kind === 'change') {
            // a held month changed: it and every later one are dropped, to be appended again
            if (held.length === 0) continue;
            const k = Math.max(0, held.length - 1 - op.back);
            const start = held[k]!.start;
            series.changed(start);
            series.dropStale();
            held = held.slice(0, k);
            next = start;
          } else if (op.kind === 'trim') {
            const start = Math.min(next, (held.length > 0 ? held[0]!.start : next) + op.ahead * MONTH);
            series.trimBefore(start);
            held = held.filter((m) => m.start >= start);
          } else {
            series.reset(op.at * MONTH);
            held = [];
            next = op.at * MONTH;
          }
          expect(series.upTo).toBe(next);
        }
      }),
      { numRuns: 300 },
    );
    // most runs compare sums (a run of appends only compares none)
    expect(checked).toBeGreaterThan(3_000);
  });

  it('answers a tag it never held with zero totals, and one whose months were all dropped the same way', () => {
    const series = new TagSeries(1);
    series.reset(0);
    const [a, b] = TAGS[1]!;
    series.append(0, MONTH, [a, b, 2, 50, 1.5]);
    expect(series.sum(a, b, 0, 0, [9, 9, 9])).toEqual([2, 50, 1.5]);
    expect(series.sum(TAGS[2]![0], TAGS[2]![1], 0, 0, [9, 9, 9])).toEqual([0, Number.NEGATIVE_INFINITY, 0]);
    series.append(MONTH, 2 * MONTH, [TAGS[2]![0], TAGS[2]![1], 1, 60, 1]);
    series.trimBefore(MONTH);
    expect(series.sum(a, b, MONTH, MONTH, [9, 9, 9])).toEqual([0, Number.NEGATIVE_INFINITY, 0]);
    // the dropped tag comes back when a later month holds it
    series.append(2 * MONTH, 3 * MONTH, [a, b, 4, 70, 2]);
    expect(series.sum(a, b, MONTH, 2 * MONTH, [9, 9, 9])).toEqual([4, 70, 2]);
  });
});
