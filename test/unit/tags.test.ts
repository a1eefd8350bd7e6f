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
import { decodeChunk, encodeChunk } from '../../streams/processors/engine-state-codec.js';

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
    const chunked = new ChunkedIndex(3, async () => undefined, undefined, undefined, true);
    for (const [k, off, vis, v] of events) {
      flat.upsert(k, off, vis, v);
      chunked.upsert(k, off, vis, v);
    }
    for (const src of [flat, chunked]) {
      const w = src.windowTagged(T - 30 * DAY, T, a, b);
      expect([w.n, w.sums[0], w.latestVisible]).toEqual([2, 1, T - 1]);
      expect(src.windowTagged(T - 30 * DAY, T, c, d).n).toBe(1);
    }
    // a month of the window not in memory: named by missingTagged, and the query throws rather than answer
    chunked.takeDirty();
    chunked.evictChunksBefore(T);
    expect(chunked.missingTagged(T - 30 * DAY, T).length).toBeGreaterThan(0);
    expect(() => chunked.windowTagged(T - 30 * DAY, T, a, b)).toThrow(/not loaded/);
  });

  it('a five-year tagged window reads its whole months from their totals per tag: only its edge months in detail', async () => {
    const DAY = 86_400_000;
    const T = Date.parse('2024-06-15T14:00:00Z');
    const from = T - 1826 * DAY;
    const tags = ['crs_0123456789abcdef', 'crs_0123456789abcdeg', 'crs_0123456789abcdeh'].map(tagOf);
    const stored = new Map<number, Buffer>();
    const loads: number[] = [];
    const loader = async (start: number) => {
      loads.push(start);
      const c = stored.get(start);
      return c ? decodeChunk(c) : undefined;
    };
    const chunked = new ChunkedIndex(3, loader, undefined, undefined, true);
    const flat = new EventIndex(3);
    // a ride every four days for six years, at one of three courses, some results published late
    for (let i = 0; i < 560; i++) {
      const off = from - 200 * DAY + i * 4 * DAY + (i % 7) * 3_600_000;
      const vis = off + (i % 11 === 0 ? 40 * DAY : 15 * 60_000);
      const [x, y] = tags[i % 3]!;
      const v = [x, y, i % 4 === 0 ? 1 : 0];
      chunked.upsert(`r${i}`, off, vis, v);
      flat.upsert(`r${i}`, off, vis, v);
    }
    const dirty = chunked.takeDirty();
    for (const m of dirty.chunks) stored.set(m.start, encodeChunk(m.chunk));
    const blocks = new Map(dirty.years.map((y) => [y, chunked.yearBlock(y)]));
    const answers = tags.map(([x, y]) => chunked.windowTagged(from, T, x, y));
    // reopened from what a checkpoint stores (head and year blocks), every month absent
    const head = chunked.toHead();
    const reopened = ChunkedIndex.fromHead(
      3,
      head,
      head.years.map((y) => blocks.get(y)!),
      loader,
      undefined,
      true,
    );
    const missing = reopened.missingTagged(from, T);
    // the window's first month and T's own month (and those with a result not yet visible at T)
    expect(missing.length).toBeGreaterThanOrEqual(2);
    expect(missing.length).toBeLessThanOrEqual(4);
    await reopened.load(missing);
    expect(reopened.missingTagged(from, T)).toEqual([]);
    expect(loads.length).toBe(missing.length);
    for (const [i, [x, y]] of tags.entries()) {
      const got = reopened.windowTagged(from, T, x, y);
      expect(got).toEqual(answers[i]); // to the bit, as the resident index answered
      const want = flat.windowTagged(from, T, x, y);
      expect([got.n, got.sums[0], got.latestVisible]).toEqual([want.n, want.sums[0], want.latestVisible]);
      expect(got.n).toBeGreaterThan(100);
    }
    // a block whose tag counts do not match its length is refused, not read past
    const good = blocks.get(head.years[2]!)!;
    const firstTagCount = 1 + good[0]! * (3 + 3);
    const more = Float64Array.from(good);
    more[firstTagCount]! += 1;
    for (const bad of [more, good.subarray(0, good.length - 5)]) {
      const read = head.years.map((y, k) => (k === 2 ? bad : blocks.get(y)!));
      expect(() => ChunkedIndex.fromHead(3, head, read, loader, undefined, true)).toThrow(
        /does not hold .* with their tags/,
      );
    }
    expect(() => ChunkedIndex.fromHead(3, head, [...blocks.values()], loader, undefined, true)).not.toThrow();
  });

  it('two tags with the same second half are told apart in the whole months, and the whole months follow late changes', () => {
    const DAY = 86_400_000;
    const T = Date.parse('2024-06-15T14:00:00Z');
    const from = T - 365 * DAY;
    // (hashed tags share no halves by chance here: two made to share one)
    const [x, y, z] = [
      [7, 99],
      [8, 99],
      [7, 98],
    ] as const;
    const chunked = new ChunkedIndex(3, async () => undefined, undefined, undefined, true);
    const flat = new EventIndex(3);
    const put = (k: string, off: number, vis: number, v: number[]) => {
      chunked.upsert(k, off, vis, v);
      flat.upsert(k, off, vis, v);
    };
    for (let i = 0; i < 120; i++) {
      const off = from + 10 * DAY + i * 3 * DAY;
      const [a, b] = [x, y, z][i % 3]!;
      put(`e${i}`, off, off + 60_000, [a, b, i % 5 === 0 ? 1 : 0]);
    }
    const ask = () =>
      [x, y, z].map(([a, b]) => {
        const got = chunked.windowTagged(from, T, a, b);
        const want = flat.windowTagged(from, T, a, b);
        expect([got.n, got.sums[0], got.latestVisible]).toEqual([want.n, want.sums[0], want.latestVisible]);
        return got.n;
      });
    const before = ask();
    expect(before.every((n) => n >= 30)).toBe(true);
    // a late change to a whole month just read for that tag, and a new month before T: both counted when
    // asked again (the whole months' sum kept from the last query is not reused)
    expect(chunked.windowTagged(from, T, 8, 99).n).toBe(before[1]);
    put('late', from + 40 * DAY, from + 41 * DAY, [8, 99, 1]);
    expect(chunked.windowTagged(from, T, 8, 99).n).toBe(before[1]! + 1);
    put('new', T - 2 * DAY, T - DAY, [7, 99, 1]);
    const after = ask();
    expect(after).toEqual([before[0]! + 1, before[1]! + 1, before[2]]);
  });
});
