/**
 * The tag of a second key (tags.ts) and the tagged windows that answer the composite keys from their
 * parent's index: exact for the identifiers the service mints, disjoint from the hashed tags of any
 * other string, and the point-in-time edges of a tagged window (an event visible exactly at T is not
 * counted; one off exactly at the window's start is).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tagOf } from '../../domain/features/tags.js';
import { makeId } from '../../domain/ids.js';
import { ChunkedIndex } from '../../state/aggregates/chunked-index.js';
import { EventIndex } from '../../state/aggregates/event-index.js';

const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz'.split('');
const minted = fc
  .tuple(
    fc.constantFrom('jky', 'trn', 'crs', 'own', 'sir', 'dam', 'abc'),
    fc.array(fc.constantFrom(...BASE32), { minLength: 16, maxLength: 16 }),
  )
  .map(([kind, chars]) => `${kind}_${chars.join('')}`);

describe('tags', () => {
  it('two minted identifiers share a tag exactly when they are equal', () => {
    fc.assert(
      fc.property(minted, minted, fc.nat(15), fc.constantFrom(...BASE32), (a, b, at, ch) => {
        const [a0, a1] = tagOf(a);
        expect(a0).toBeLessThan(2 ** 50);
        expect(Number.isSafeInteger(a0) && Number.isSafeInteger(a1)).toBe(true);
        expect(tagOf(b)[0] === a0 && tagOf(b)[1] === a1).toBe(a === b);
        // one character changed anywhere: another tag, unless it is the same character
        const c = a.slice(0, 4 + at) + ch + a.slice(5 + at);
        expect(tagOf(c)[0] === a0 && tagOf(c)[1] === a1).toBe(c === a);
      }),
      { numRuns: 2000 },
    );
  });

  it('every pair of characters at every two positions, and every kind, gives its own tag', () => {
    const base = 'jky_0000000000000000';
    const seen = new Set<string>();
    let n = 0;
    for (let p = 4; p < 20; p++) {
      for (let q = p + 1; q < 20; q++) {
        for (const x of BASE32) {
          for (const y of BASE32) {
            const id = base.slice(0, p) + x + base.slice(p + 1, q) + y + base.slice(q + 1);
            const tag = tagOf(id).join(',');
            if (!seen.has(tag)) n++;
            seen.add(tag);
          }
        }
      }
    }
    // the ids with both characters '0' (and those with one) are the same id under several (p, q)
    const distinctIds = 1 + 16 * 31 + ((16 * 15) / 2) * 31 * 31;
    expect(n).toBe(distinctIds);
    const suffix = '0123456789abcdef';
    const kinds = ['jky', 'trn', 'crs', 'own', 'zzz', 'aaa'].map((k) => tagOf(`${k}_${suffix}`).join(','));
    expect(new Set(kinds).size).toBe(kinds.length);
  });

  it("the service's own identifiers are minted ones; any other string is hashed above them", () => {
    for (const kind of ['jockey', 'trainer', 'course'] as const) {
      const ids = Array.from({ length: 500 }, (_, i) => makeId(kind, `k${i}`));
      const tags = new Set(ids.map((id) => tagOf(id).join(',')));
      expect(tags.size).toBe(500);
      for (const id of ids) expect(tagOf(id)[0]).toBeLessThan(2 ** 50);
    }
    for (const s of [
      'jky_short',
      'JKY_0123456789abcdef',
      'jky_0123456789abcdefg',
      'jky-0123456789abcdef',
      '',
      'crs_ü',
    ]) {
      const [a, b] = tagOf(s);
      expect(a).toBeGreaterThanOrEqual(2 ** 50);
      expect(Number.isSafeInteger(a) && Number.isSafeInteger(b)).toBe(true);
      expect(tagOf(s)).toEqual([a, b]); // the same string, the same tag
    }
    expect(tagOf('jky_short')).not.toEqual(tagOf('jky_shorT'));
  });

  it('a tagged window counts events off in [from, T) with the tag and visible before T', () => {
    const DAY = 86_400_000;
    const T = Date.parse('2024-06-01T14:00:00Z');
    const [a, b] = tagOf('crs_0123456789abcdef');
    const [c, d] = tagOf('crs_0123456789abcdeg');
    const events: [string, number, number, number[]][] = [
      ['at-from', T - 30 * DAY, T - 30 * DAY + 1, [a, b, 1]], // off exactly at the start: counted
      ['before', T - 30 * DAY - 1, T - 29 * DAY, [a, b, 1]], // off before the start: not
      ['vis-at-T', T - DAY, T, [a, b, 1]], // visible exactly at T: not
      ['vis-before', T - DAY, T - 1, [a, b, 0]], // visible just before T: counted
      ['other-tag', T - 2 * DAY, T - DAY, [c, d, 1]], // another second key: not
      ['off-at-T', T, T, [a, b, 1]], // off at T: not
    ];
    const flat = new EventIndex(3);
    const chunked = new ChunkedIndex(3, async () => undefined);
    for (const [k, off, vis, v] of events) {
      flat.upsert(k, off, vis, v);
      chunked.upsert(k, off, vis, v);
    }
    for (const src of [flat, chunked]) {
      const w = src.windowTagged(T - 30 * DAY, T, a, b);
      expect([w.n, w.sums[0], w.latestVisible]).toEqual([2, 1, T - 1]);
      expect(src.windowTagged(T - 30 * DAY, T, c, d).n).toBe(1);
    }
    // a month of the window not in memory: named by missingAll, and the query throws rather than answer
    chunked.takeDirty();
    chunked.evictChunksBefore(T);
    expect(chunked.missingAll(T - 30 * DAY, T).length).toBeGreaterThan(0);
    expect(() => chunked.windowTagged(T - 30 * DAY, T, a, b)).toThrow(/not loaded/);
  });
});
