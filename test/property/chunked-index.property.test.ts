/**
 * ChunkedIndex (monthly chunks with summaries, evicted and reloaded) against one EventIndex holding the
 * same events, over random upserts and removals spread across many months, with late visibility (an
 * event published weeks or months after its off), window queries of every shape the features use
 * (whole history, 90 and 14 days, a snapshot at a month start), the latest event with a dimension > 0
 * (lastOffWith, with a horizon) and keysOffAfter. Evictions happen at random, some of them sparing the
 * months used since an idle cutoff; the loader reads the chunks back from their serialised form, as the
 * processor does. A reload replaces the index by one built from what a checkpoint stores of it (head and
 * year blocks, `fromHead`), with every chunk absent, and the operations go on against that one (new
 * months then grow it past the size it was built with). A roll-up folds the months before a year into
 * one total (after evicting them); the reload then reads only the years after it, and a query or a
 * change that needs the rolled months apart expands them from the stored year blocks.
 *
 * n, latestVisible and keysOffAfter must be equal; sums to 1e-9 (the chunked sums add month totals,
 * the flat index differences of one cumulative sum: with fractions like 1/3 the roundings differ).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ChunkPeriod, TagSpace } from '../../domain/features/window-source.js';
import { ChunkedIndex, unrolledYears, type YearBlock } from '../../state/aggregates/chunked-index.js';
import { EventIndex } from '../../state/aggregates/event-index.js';
import { decodeChunk, encodeChunk } from '../../streams/processors/engine-state-codec.js';

const DAY = 86_400_000;
/** A window's count, its first `width` sums and latest visibleAt: compared to the bit with toEqual. */
const bits = (w: { n: number; sums: number[]; latestVisible: number }, width = 1) => [
  w.n,
  ...w.sums.slice(0, width),
  w.latestVisible,
];
/**
 * Two tag spaces over the events' three dimensions, as an index carrying two composites does (the
 * trainer's course and jockey): the tag (v0, v1) counting v2, and the tag (v1, v2) counting v2 and v0.
 */
const SPACES: readonly TagSpace[] = [
  { dim: 0, dims: [2] },
  { dim: 1, dims: [2, 0] },
];
const BASE = Date.parse('2020-01-01T00:00:00Z');

const op = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('upsert' as const),
      key: fc.integer({ min: 0, max: 60 }),
      day: fc.integer({ min: 0, max: 400 }),
      minute: fc.integer({ min: 0, max: 1439 }),
      lagMin: fc.oneof(fc.constant(15), fc.integer({ min: 0, max: 200 * 24 * 60 })),
      /** dimensions 0 and 1 double as a tag (two values each, so that tagged windows find events) */
      vec: fc.tuple(fc.constantFrom(0, 1), fc.constantFrom(0, 1), fc.constantFrom(0, 1, 0.5, 1 / 3)),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('remove' as const), key: fc.integer({ min: 0, max: 60 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('query' as const),
      day: fc.integer({ min: -40, max: 600 }),
      minute: fc.integer({ min: 0, max: 1439 }),
      span: fc.constantFrom(Number.NEGATIVE_INFINITY, 90 * DAY, 14 * DAY, 0),
      /** how far back a last-event query needs the exact off (the features' last win: 800 days) */
      horizon: fc.constantFrom(20 * DAY, 100 * DAY, 300 * DAY),
      /** the space of a tagged window (windowTagged) and its tag: (v0, v1) in the first, (v1, v2) in the second */
      space: fc.constantFrom(0, 1),
      tag: fc.tuple(fc.constantFrom(0, 1), fc.constantFrom(0, 1)),
      tagOfSecond: fc.tuple(fc.constantFrom(0, 1), fc.constantFrom(0, 1, 0.5, 1 / 3)),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('evict' as const),
      day: fc.integer({ min: 0, max: 900 }),
      /** spare the months a query or load used at or after this stream time (null: evict regardless) */
      idleDay: fc.option(fc.integer({ min: 0, max: 600 })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reload' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('roll' as const), year: fc.constantFrom(2020, 2021, 2022) }),
  },
);

/**
 * The property over an index chunked by `period`: by month with the two tag spaces (and their tagged
 * windows checked), or by year, untagged as the sparse kinds are, with the days spread three times wider
 * (about four years) so that events fall in several yearly chunks.
 */
async function property(
  period: ChunkPeriod,
): Promise<{ rolls: number; expansions: number; taggedHits: number; queries: number }> {
  const spaces = period === 'month' ? SPACES : [];
  const scale = period === 'month' ? 1 : 3;
  let rolls = 0;
  let expansions = 0;
  let taggedHits = 0;
  let queries = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 120, size: 'medium' }), async (ops) => {
      const stored = new Map<number, Buffer>();
      const storedYears = new Map<number, YearBlock>();
      const flat = new EventIndex(3);
      const loader = async (start: number) => {
        const b = stored.get(start);
        return b ? decodeChunk(b) : undefined;
      };
      const yearLoader = async (years: readonly number[]) => {
        expansions++;
        return years.map((y) => {
          const b = storedYears.get(y);
          if (!b) throw new Error(`no stored block for ${y}`);
          return b;
        });
      };
      let chunked = new ChunkedIndex(3, loader, undefined, yearLoader, spaces, period);
      /** the same events, never evicted, reloaded or rolled up: a tagged window's answer must match it to the bit */
      const resident = new ChunkedIndex(3, undefined, undefined, undefined, spaces, period);
      const reused = { n: 7, sums: [3, 5, 2], latestVisible: 11 };
      const reusedFlat = { n: 7, sums: [3, 5, 2], latestVisible: 11 };
      const offs = new Map<string, number>();
      /** every event as upserted (the tagged windows are checked against a filter over these) */
      const events = new Map<string, { off: number; vis: number; vec: number[] }>();
      const save = () => {
        const { chunks, years } = chunked.takeDirty();
        for (const m of chunks) stored.set(m.start, encodeChunk(m.chunk!));
        for (const y of years) storedYears.set(y, chunked.yearBlock(y));
      };
      for (const o of ops) {
        if (o.kind === 'upsert') {
          const key = `k${o.key}`;
          const off = BASE + o.day * scale * DAY + o.minute * 60_000;
          const vis = off + o.lagMin * 60_000;
          // an upsert moving a key to another month is a remove from the old month, as the engine does
          const old = offs.get(key);
          if (old !== undefined) {
            await chunked.ensureFrom(old);
            chunked.remove(key, old);
          }
          await chunked.ensureFrom(off);
          chunked.upsert(key, off, vis, o.vec);
          if (old !== undefined) resident.remove(key, old);
          resident.upsert(key, off, vis, o.vec);
          flat.upsert(key, off, vis, o.vec);
          offs.set(key, off);
          events.set(key, { off, vis, vec: o.vec });
        } else if (o.kind === 'remove') {
          const key = `k${o.key}`;
          const old = offs.get(key);
          if (old === undefined) continue;
          await chunked.ensureFrom(old);
          expect(chunked.remove(key, old)).toBe(true);
          expect(resident.remove(key, old)).toBe(true);
          expect(flat.remove(key)).toBe(true);
          offs.delete(key);
          events.delete(key);
        } else if (o.kind === 'evict') {
          save();
          const idle = o.idleDay === null ? Number.POSITIVE_INFINITY : BASE + o.idleDay * scale * DAY;
          chunked.evictChunksBefore(BASE + o.day * scale * DAY, idle);
        } else if (o.kind === 'roll') {
          save();
          const end = Date.UTC(o.year, 0, 1);
          chunked.evictChunksBefore(end);
          if (chunked.rollUp(end)) rolls++;
        } else if (o.kind === 'reload') {
          save();
          const head = chunked.toHead();
          const months = chunked.months;
          chunked = ChunkedIndex.fromHead(
            3,
            head,
            unrolledYears(head).map((y) => storedYears.get(y)!),
            loader,
            yearLoader,
            spaces,
            period,
          );
          expect(chunked.months).toBe(months);
        } else {
          const t = BASE + o.day * scale * DAY + o.minute * 60_000;
          const from =
            o.span === 0 ? Number.NEGATIVE_INFINITY : o.span === Number.NEGATIVE_INFINITY ? o.span : t - o.span;
          const at = o.span === 0 ? Date.UTC(new Date(t).getUTCFullYear(), new Date(t).getUTCMonth(), 1) : t;
          chunked.touched = at; // the stream time the months this query reads are marked used at
          await chunked.ensure(from, at);
          const a = chunked.window(from, at);
          const b = flat.window(from, at);
          expect(a.n).toBe(b.n);
          expect(a.latestVisible).toBe(b.latestVisible);
          for (let d = 0; d < 3; d++) expect(Math.abs(a.sums[d]! - b.sums[d]!)).toBeLessThan(1e-9);
          // into a caller's reused counts (what every row's features pass): the same answer, bit for bit,
          // whatever the previous query left in them
          const into = chunked.window(from, at, reused);
          expect(into).toBe(reused);
          expect(into).toEqual(a);
          const flatInto = flat.window(from, at, reusedFlat);
          expect(flatInto).toBe(reusedFlat);
          expect(flatInto).toEqual(b);
          // the same bits as the index that never evicted, reloaded or rolled anything up
          expect(bits(resident.window(from, at), 3)).toEqual(bits(a, 3));
          // a tagged window: the whole months from their totals per tag, the rest in detail (loaded first)
          const space = SPACES[o.space]!;
          const [ta, tb] = o.space === 0 ? o.tag : o.tagOfSecond;
          const dims = space.dims;
          // the window asked, then (when it has a start) the same tag from a month earlier and a month
          // later: windows of one tag whose first whole month differs by one, as the days of a 5-year
          // window move, asked one after the other across the changes in between
          const starts =
            spaces.length === 0 ? [] : Number.isFinite(from) ? [from, from - 31 * DAY, from + 31 * DAY] : [from];
          for (const tf of starts) {
            if (tf >= at) continue;
            queries++;
            for (let miss = chunked.missingTagged(tf, at); miss.length > 0; miss = chunked.missingTagged(tf, at))
              await chunked.load(miss);
            const tagged = chunked.windowTagged(tf, at, space, ta!, tb!, reused);
            expect(tagged).toBe(reused);
            const want = { n: 0, sums: dims.map(() => 0), latest: 0 };
            for (const e of events.values()) {
              if (e.off < tf || e.off >= at || e.vis >= at) continue;
              if (e.vec[space.dim] !== ta || e.vec[space.dim + 1] !== tb) continue;
              want.n++;
              dims.forEach((d, k) => (want.sums[k]! += e.vec[d]!));
              want.latest = Math.max(want.latest, e.vis);
            }
            expect(tagged.n).toBe(want.n);
            expect(tagged.latestVisible).toBe(want.latest);
            for (let k = 0; k < dims.length; k++) expect(Math.abs(tagged.sums[k]! - want.sums[k]!)).toBeLessThan(1e-9);
            const flatTagged = flat.windowTagged(tf, at, space, ta!, tb!);
            expect([flatTagged.n, flatTagged.latestVisible]).toEqual([want.n, want.latest]);
            // asked again (the whole months' part kept from the query before): the same bits
            const twice = chunked.windowTagged(tf, at, space, ta!, tb!);
            expect(bits(twice, dims.length)).toEqual(bits(tagged, dims.length));
            // the same bits as the index that never evicted, reloaded or rolled anything up
            const again = resident.windowTagged(tf, at, space, ta!, tb!);
            expect(bits(again, dims.length)).toEqual(bits(tagged, dims.length));
            // and as an index made now from the same events, asked nothing before: the whole months'
            // sums kept from the query before are the ones summed from zero
            const fresh = new ChunkedIndex(3, undefined, undefined, undefined, spaces, period);
            for (const [key, e] of events) fresh.upsert(key, e.off, e.vis, e.vec);
            const first = fresh.windowTagged(tf, at, space, ta!, tb!);
            expect(bits(first, dims.length)).toEqual(bits(tagged, dims.length));
            if (want.n > 0) taggedHits++;
          }
          // the latest event with a dimension > 0: exact, or -Infinity when it is off before the horizon
          for (let d = 0; d < 3; d++) {
            const horizon = at - o.horizon;
            await chunked.ensureLast(d, at, horizon);
            const c = chunked.lastOffWith(d, at, horizon);
            const f = flat.lastOffWith(d, at);
            if (c === Number.NEGATIVE_INFINITY) {
              expect(f).toBeDefined();
              expect(f!).toBeLessThan(horizon);
            } else {
              expect(c).toBe(f);
            }
          }
          await chunked.ensureFrom(at);
          expect([...chunked.keysOffAfter(at)].sort()).toEqual([...flat.keysOffAfter(at)].sort());
        }
      }
      expect(chunked.size).toBe(flat.size);
    }),
    { numRuns: 400 },
  );
  return { rolls, expansions, taggedHits, queries };
}

describe('ChunkedIndex (property)', () => {
  it('answers every query as one flat EventIndex does, across evictions, reloads and roll-ups', async () => {
    const { rolls, expansions, taggedHits, queries } = await property('month');
    // the runs did roll months up and read them back (the property is not vacuous for them)
    expect(rolls).toBeGreaterThan(50);
    expect(expansions).toBeGreaterThan(20);
    // tagged windows asked with events under their tag: about 2,400 of 8,300 in a run
    expect(taggedHits).toBeGreaterThan(1500);
    expect(queries).toBeGreaterThan(6000);
  });

  it('does the same chunked by year (the sparse kinds: untagged)', async () => {
    const { rolls, expansions } = await property('year');
    expect(rolls).toBeGreaterThan(30);
    expect(expansions).toBeGreaterThan(10);
  });

  it('keeps a tagged index chunked by month', () => {
    expect(() => new ChunkedIndex(3, undefined, undefined, undefined, SPACES, 'year')).toThrow(/by month/);
  });

  it('throws, rather than answering, when a needed month is not in memory', () => {
    const c = new ChunkedIndex(1, async () => undefined);
    c.upsert('a', BASE, BASE + 1, [1]);
    c.takeDirty();
    c.evictChunksBefore(BASE + 400 * DAY);
    expect(() => c.window(Number.NEGATIVE_INFINITY, BASE + 10)).toThrow(/not loaded/);
    // the summary alone answers for a whole earlier month
    expect(c.window(Number.NEGATIVE_INFINITY, BASE + 40 * DAY).n).toBe(1);
  });
});
