import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RaceCard } from '../../domain/avro-types.generated.js';
import { compareFeedEvents, generateFeed } from '../../domain/generator/index.js';
import { judgeMargin, toLadder } from '../../domain/generator/result.js';
import { addDays } from '../../domain/time.js';

describe('generateFeed: invariants for any seed, era and scale', () => {
  it('keeps feed order, cards before the off, results after it, starters = final card less non-runners', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 0, max: 14_000 }),
        fc.integer({ min: 0, max: 3 }),
        fc.double({ min: 0.02, max: 1, noNaN: true }),
        (seed, offset, days, scale) => {
          const from = addDays('1988-01-01', offset);
          const events = [...generateFeed({ from, to: addDays(from, days), seed, scale })];
          const latest = new Map<string, RaceCard>();
          for (let i = 0; i < events.length; i++) {
            const e = events[i]!;
            if (i > 0) expect(compareFeedEvents(events[i - 1]!, e)).toBeLessThan(0);
            if (e.kind === 'card') {
              expect(e.publishedAt).toBeLessThan(e.value.offTime);
              expect(new Set(e.value.runners.map((r) => r.jockeyId)).size).toBe(e.value.runners.length);
              expect(e.value.version).toBe((latest.get(e.value.raceId)?.version ?? 0) + 1);
              latest.set(e.value.raceId, e.value);
            } else if (e.kind === 'result') {
              const card = latest.get(e.value.raceId)!;
              expect(e.publishedAt).toBeGreaterThan(card.offTime);
              const starters = card.runners.filter((r) => !r.nonRunner).map((r) => r.horseId);
              expect(new Set(e.value.runners.map((r) => r.horseId))).toEqual(new Set(starters));
              expect(e.value.runners.filter((r) => r.position === 1).length).toBeGreaterThanOrEqual(1);
            }
          }
        },
      ),
      { numRuns: 12 },
    );
  });
});

describe('result helpers', () => {
  it('snaps prices to the fractional-odds ladder', () => {
    expect(toLadder(2)).toBe(2);
    expect(toLadder(3.9)).toBe(4);
    expect(toLadder(11.3)).toBe(11);
    expect(toLadder(1000)).toBe(501);
    fc.assert(fc.property(fc.double({ min: 1.01, max: 900, noNaN: true }), (x) => toLadder(x) >= 1.02));
  });

  it('calls margins on the judge scale', () => {
    expect(judgeMargin(0.01)).toBe(0.05);
    expect(judgeMargin(0.25)).toBe(0.3);
    expect(judgeMargin(1.1)).toBe(1);
    expect(judgeMargin(1.2)).toBe(1.25);
    expect(judgeMargin(23.4)).toBe(23);
    expect(judgeMargin(500)).toBe(99);
  });
});
