/**
 * The tag of a second key (tags.ts) and the tagged windows that answer the composite keys from their
 * parent's index: exact for the identifiers the service mints, disjoint from the hashed tags of any
 * other string, and the point-in-time edges of a tagged window (an event visible exactly at T is not
 * counted; one off exactly at the window's start is).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tagOf } from '../../domain/features/tags.js';
import type { TagSpace } from '../../domain/features/window-source.js';
import { makeId } from '../../domain/ids.js';
import { type ChunkLoader, ChunkedIndex } from '../../state/aggregates/chunked-index.js';
import { EventIndex } from '../../state/aggregates/event-index.js';
import { decodeChunk, encodeChunk } from '../../streams/processors/engine-state-codec.js';

const BASE32 = '0123456789abcdefghjkmnpqrstvwxyz'.split('');
/** events [a, b, win]: the tag in dimensions 0 and 1, the win counted */
const SPACE: TagSpace = { dim: 0, dims: [2] };
const minted = fc
  .tuple(
    fc.constantFrom('jky', 'trn', 'crs', 'own', 'sir', 'dam', 'abc'),
    fc.array(fc.constantFrom(...BASE32), { minLength: 16, maxLength: 16 }),
  )
  .map(([kind, chars]) => `${kind}_${chars.join('')}`);

/**
 * What a checkpoint stores of `chunked` (its changed months encoded into `stored`, its head and the
 * year blocks), and the index reopened from it with every month absent.
 */
function checkpointAndReopen(chunked: ChunkedIndex, stored: Map<number, Buffer>, loader: ChunkLoader) {
  const dirty = chunked.takeDirty();
  for (const m of dirty.chunks) stored.set(m.start, encodeChunk(m.chunk));
  const blocks = new Map(dirty.years.map((y) => [y, chunked.yearBlock(y)]));
  const head = chunked.toHead();
  const reopened = ChunkedIndex.fromHead(
    chunked.width,
    head,
    head.years.map((y) => blocks.get(y)!),
    loader,
    undefined,
    chunked.spaces,
  );
  return { head, blocks, reopened };
}

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
    const chunked = new ChunkedIndex(3, async () => undefined, undefined, undefined, [SPACE]);
    for (const [k, off, vis, v] of events) {
      flat.upsert(k, off, vis, v);
      chunked.upsert(k, off, vis, v);
    }
    for (const src of [flat, chunked]) {
      const w = src.windowTagged(T - 30 * DAY, T, SPACE, a, b);
      expect([w.n, w.sums[0], w.latestVisible]).toEqual([2, 1, T - 1]);
      expect(src.windowTagged(T - 30 * DAY, T, SPACE, c, d).n).toBe(1);
    }
    // a month of the window not in memory: named by missingTagged, and the query throws rather than answer
    chunked.takeDirty();
    chunked.evictChunksBefore(T);
    expect(chunked.missingTagged(T - 30 * DAY, T).length).toBeGreaterThan(0);
    expect(() => chunked.windowTagged(T - 30 * DAY, T, SPACE, a, b)).toThrow(/not loaded/);
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
    const chunked = new ChunkedIndex(3, loader, undefined, undefined, [SPACE]);
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
    const answers = tags.map(([x, y]) => chunked.windowTagged(from, T, SPACE, x, y));
    // reopened from what a checkpoint stores (head and year blocks), every month absent
    const { head, blocks, reopened } = checkpointAndReopen(chunked, stored, loader);
    const missing = reopened.missingTagged(from, T);
    // the window's first month and T's own month (and those with a result not yet visible at T)
    expect(missing.length).toBeGreaterThanOrEqual(2);
    expect(missing.length).toBeLessThanOrEqual(4);
    await reopened.load(missing);
    expect(reopened.missingTagged(from, T)).toEqual([]);
    expect(loads.length).toBe(missing.length);
    for (const [i, [x, y]] of tags.entries()) {
      const got = reopened.windowTagged(from, T, SPACE, x, y);
      expect(got).toEqual(answers[i]); // to the bit, as the resident index answered
      const want = flat.windowTagged(from, T, SPACE, x, y);
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
      expect(() => ChunkedIndex.fromHead(3, head, read, loader, undefined, [SPACE])).toThrow(
        /does not hold .* with the tags of 1 space/,
      );
    }
    expect(() => ChunkedIndex.fromHead(3, head, [...blocks.values()], loader, undefined, [SPACE])).not.toThrow();
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
    const chunked = new ChunkedIndex(3, async () => undefined, undefined, undefined, [SPACE]);
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
        const got = chunked.windowTagged(from, T, SPACE, a, b);
        const want = flat.windowTagged(from, T, SPACE, a, b);
        expect([got.n, got.sums[0], got.latestVisible]).toEqual([want.n, want.sums[0], want.latestVisible]);
        return got.n;
      });
    const before = ask();
    expect(before.every((n) => n >= 30)).toBe(true);
    // a late change to a whole month just read for that tag, and a new month before T: both counted when
    // asked again (the whole months' sum kept from the last query is not reused)
    expect(chunked.windowTagged(from, T, SPACE, 8, 99).n).toBe(before[1]);
    put('late', from + 40 * DAY, from + 41 * DAY, [8, 99, 1]);
    expect(chunked.windowTagged(from, T, SPACE, 8, 99).n).toBe(before[1]! + 1);
    put('new', T - 2 * DAY, T - DAY, [7, 99, 1]);
    const after = ask();
    expect(after).toEqual([before[0]! + 1, before[1]! + 1, before[2]]);
  });

  it("an index carrying two tag spaces (the trainer's course and jockey) answers each from its own tags, stored and reopened", async () => {
    const DAY = 86_400_000;
    const T = Date.parse('2024-06-15T14:00:00Z');
    // [win, sp-based sum, course tag (2), jockey tag (2)]: the parent's own dimensions first
    const COURSE: TagSpace = { dim: 2, dims: [0] };
    const JOCKEY: TagSpace = { dim: 4, dims: [0, 1] };
    const courses = ['crs_0123456789abcdef', 'crs_0123456789abcdeg'].map(tagOf);
    const jockeys = ['jky_0123456789abcdef', 'jky_0123456789abcdeg', 'jky_0123456789abcdeh'].map(tagOf);
    const stored = new Map<number, Buffer>();
    const loader = async (start: number) => {
      const c = stored.get(start);
      return c ? decodeChunk(c) : undefined;
    };
    const chunked = new ChunkedIndex(6, loader, undefined, undefined, [COURSE, JOCKEY]);
    const flat = new EventIndex(6);
    for (let i = 0; i < 400; i++) {
      const off = T - 1900 * DAY + i * 4.7 * DAY;
      const [c0, c1] = courses[i % 2]!;
      const [j0, j1] = jockeys[i % 3]!;
      const v = [i % 4 === 0 ? 1 : 0, 1 / (2 + (i % 9)), c0, c1, j0, j1];
      chunked.upsert(`r${i}`, off, off + 60_000, v);
      flat.upsert(`r${i}`, off, off + 60_000, v);
    }
    const { head, blocks, reopened } = checkpointAndReopen(chunked, stored, loader);
    await reopened.load(reopened.missingTagged(T - 1826 * DAY, T));
    await reopened.load(reopened.missingTagged(T - 365 * DAY, T));
    for (const [space, from, tags] of [
      [COURSE, T - 1826 * DAY, courses],
      [JOCKEY, T - 365 * DAY, jockeys],
    ] as const) {
      for (const [a, b] of tags) {
        const want = flat.windowTagged(from, T, space, a, b);
        expect(want.n).toBeGreaterThan(20);
        for (const src of [chunked, reopened]) {
          const got = src.windowTagged(from, T, space, a, b);
          expect(got.sums.length).toBe(space.dims.length);
          expect([got.n, got.sums[0]]).toEqual([want.n, want.sums[0]]);
          // the sp-based sum over whole months' totals, to within rounding of another order of additions
          if (space === JOCKEY) expect(got.sums[1]).toBeCloseTo(want.sums[1]!, 9);
        }
        // the same answer, to the bit, from the index reopened as from the one that wrote it
        expect(reopened.windowTagged(from, T, space, a, b)).toEqual(chunked.windowTagged(from, T, space, a, b));
      }
    }
    // the tags of one space are not those of the other: a course's tag asked in the jockey space counts none
    expect(chunked.windowTagged(T - 365 * DAY, T, JOCKEY, courses[0]![0], courses[0]![1]).n).toBe(0);
    // a space the index does not carry is refused
    expect(() => chunked.windowTagged(T - 365 * DAY, T, { dim: 2, dims: [0] }, 1, 2)).toThrow(/does not carry/);
    // a block read with one space where it was written with two does not fit
    expect(() =>
      ChunkedIndex.fromHead(
        6,
        head,
        head.years.map((y) => blocks.get(y)!),
        loader,
        undefined,
        [COURSE],
      ),
    ).toThrow(/does not hold/);
  });

  it('whole months read from a series per tag give the bits of an index asked nothing before, as windows move forward and back over years', () => {
    const DAY = 86_400_000;
    const start = Date.parse('2012-01-01T00:00:00Z');
    const tags = ['crs_0123456789abcdef', 'crs_0123456789abcdeg', 'crs_0123456789abcdeh'].map(tagOf);
    const events: [string, number, number, number[]][] = [];
    // (a run every 3.3 days over twelve years: every window asked below holds runs to its end)
    for (let i = 0; i < 1300; i++) {
      const off = start + i * 3.3 * DAY;
      const [x, y] = tags[i % 3]!;
      events.push([`r${i}`, off, off + (i % 13 === 0 ? 20 * DAY : 60_000), [x, y, i % 4 === 0 ? 1 : 0.25]]);
    }
    const chunked = new ChunkedIndex(3, async () => undefined, undefined, undefined, [SPACE]);
    for (const [k, off, vis, v] of events) chunked.upsert(k, off, vis, v);
    const fresh = () => {
      const c = new ChunkedIndex(3, async () => undefined, undefined, undefined, [SPACE]);
      for (const [k, off, vis, v] of events) c.upsert(k, off, vis, v);
      return c;
    };
    // forward a month at a time over six years (the series drops the months the windows left), then
    // back to earlier windows (made again), with a late change to a month it holds in between
    const instants: number[] = [];
    for (let m = 0; m < 72; m++) instants.push(start + 1826 * DAY + m * 30.4 * DAY + 14 * 3_600_000);
    // then back ten days at a time for 700 days (first within the months the series keeps, then before them)
    const last = instants[instants.length - 1]!;
    for (let d = 10; d <= 700; d += 10) instants.push(last - d * DAY);
    let asked = 0;
    for (const [n, T] of instants.entries()) {
      if (n === 40) {
        const off = T - 800 * DAY;
        events.push(['late', off, off + DAY, [tags[1]![0], tags[1]![1], 1]]);
        chunked.upsert('late', off, off + DAY, [tags[1]![0], tags[1]![1], 1]);
      }
      const reference = fresh();
      for (const [x, y] of tags) {
        const got = chunked.windowTagged(T - 1826 * DAY, T, SPACE, x, y);
        const want = reference.windowTagged(T - 1826 * DAY, T, SPACE, x, y);
        expect(got.n).toBeGreaterThan(50);
        expect([got.n, got.sums[0], got.latestVisible]).toEqual([want.n, want.sums[0], want.latestVisible]);
        asked++;
      }
    }
    expect(asked).toBe(instants.length * 3);
  });
});
