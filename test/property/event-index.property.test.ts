/**
 * EventIndex against two oracles, over random sequences of upserts (keys from a small set, so many are
 * replacements; offs in or out of order; dead-heat fractions in the vectors), removals and queries:
 *
 * 1. a naive reference (an array filtered per query). n, latestVisible and keysOffAfter must be equal;
 *    the sums to 1e-9, because EventIndex takes differences of cumulative sums while the reference adds
 *    the window's vectors directly, and with fractions like 1/3 the two orders round differently.
 * 2. the previous implementation (OldEventIndex, kept in bench/event-index.bench.ts): everything must be
 *    identical bit for bit (Object.is), sums included, since both keep Float64 cumulative sums built in
 *    the same order; this one also covers fromOff > T and toJSON/fromJSON.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OldEventIndex } from '../../bench/event-index.bench.js';
import { EventIndex, type WindowCounts } from '../../state/aggregates/event-index.js';

interface Ev {
  key: string;
  off: number;
  vis: number;
  vec: number[];
}

/** The naive model: a list, filtered per query. */
class Reference {
  readonly events: Ev[] = [];
  constructor(readonly width: number) {}

  upsert(e: Ev): void {
    this.remove(e.key);
    this.events.push(e);
  }

  remove(key: string): boolean {
    const i = this.events.findIndex((e) => e.key === key);
    if (i < 0) return false;
    this.events.splice(i, 1);
    return true;
  }

  window(from: number, t: number): WindowCounts {
    const inWin = this.events.filter((e) => e.off >= from && e.off < t && e.vis < t);
    const sums = new Array<number>(this.width).fill(0);
    for (const e of inWin) for (let d = 0; d < this.width; d++) sums[d]! += e.vec[d] ?? 0;
    const vis = this.events.map((e) => e.vis).filter((v) => v < t);
    return { n: inWin.length, sums, latestVisible: vis.length > 0 ? Math.max(...vis) : 0 };
  }

  keysOffAfter(t: number): string[] {
    return this.events
      .filter((e) => e.off > t)
      .sort((a, b) => a.off - b.off || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((e) => e.key);
  }
}

const WIDTH = 3;
const KEYS = Array.from({ length: 12 }, (_, i) => `r${i}:h${i % 3}`);
/** 0/1 results, dead-heat shares and runner counts */
const valueArb = fc.constantFrom(0, 1, 1 / 2, 1 / 3, 2 / 3, 1 / 4, 1 / 7, 5, 12);

/** Times in minutes: mostly published after the off, sometimes long after, rarely before (a raw caller). */
const eventArb = (times: fc.Arbitrary<number>) =>
  fc
    .record({
      key: fc.constantFrom(...KEYS),
      off: times,
      lag: fc.oneof(
        { weight: 6, arbitrary: fc.integer({ min: 0, max: 30 }) },
        { weight: 2, arbitrary: fc.integer({ min: 0, max: 2000 }) },
        { weight: 1, arbitrary: fc.integer({ min: -50, max: -1 }) },
      ),
      vec: fc.array(valueArb, { minLength: WIDTH, maxLength: WIDTH }),
    })
    .map(({ key, off, lag, vec }): Ev => ({ key, off, vis: off + lag + 0, vec }));

const opArb = (times: fc.Arbitrary<number>) =>
  fc.oneof(
    { weight: 5, arbitrary: eventArb(times).map((e) => ({ kind: 'upsert' as const, e })) },
    { weight: 2, arbitrary: fc.constantFrom(...KEYS).map((key) => ({ kind: 'remove' as const, key })) },
    {
      weight: 3,
      arbitrary: fc
        .record({ t: times, span: fc.oneof(fc.constant(Number.POSITIVE_INFINITY), fc.integer({ min: 0, max: 600 })) })
        .map(({ t, span }) => ({ kind: 'window' as const, from: t - span, t })),
    },
    { weight: 1, arbitrary: times.map((t) => ({ kind: 'after' as const, t })) },
  );

const minutes = fc.integer({ min: 0, max: 1000 });
/** a few distinct offs, so equal offs (ordered by key) are common */
const coarse = fc.integer({ min: 0, max: 8 }).map((x) => x * 100);

function exactlyEqual(a: WindowCounts, b: WindowCounts): boolean {
  return (
    Object.is(a.n, b.n) &&
    Object.is(a.latestVisible, b.latestVisible) &&
    a.sums.length === b.sums.length &&
    a.sums.every((s, d) => Object.is(s, b.sums[d]))
  );
}

describe('EventIndex (model-based)', () => {
  for (const [name, times] of [
    ['spread offs', minutes],
    ['clustered offs', coarse],
  ] as const) {
    it(`matches a naive reference: ${name}`, () => {
      fc.assert(
        fc.property(fc.array(opArb(times), { maxLength: 80 }), (ops) => {
          const idx = new EventIndex(WIDTH);
          const ref = new Reference(WIDTH);
          for (const op of ops) {
            if (op.kind === 'upsert') {
              idx.upsert(op.e.key, op.e.off, op.e.vis, op.e.vec);
              ref.upsert(op.e);
            } else if (op.kind === 'remove') {
              expect(idx.remove(op.key)).toBe(ref.remove(op.key));
            } else if (op.kind === 'window') {
              const got = idx.window(op.from, op.t);
              const want = ref.window(op.from, op.t);
              expect(got.n).toBe(want.n);
              expect(got.latestVisible).toBe(want.latestVisible);
              got.sums.forEach((s, d) => expect(Math.abs(s - want.sums[d]!)).toBeLessThanOrEqual(1e-9));
            } else {
              expect(idx.keysOffAfter(op.t)).toEqual(ref.keysOffAfter(op.t));
            }
            expect(idx.size).toBe(ref.events.length);
            for (const k of KEYS) expect(idx.has(k)).toBe(ref.events.some((e) => e.key === k));
          }
        }),
        { numRuns: 400 },
      );
    });

    it(`is identical to the previous implementation: ${name}`, () => {
      const anyWindow = fc
        .record({ from: times, t: times })
        .map(({ from, t }) => ({ kind: 'window' as const, from, t }));
      fc.assert(
        fc.property(
          fc.array(fc.oneof({ weight: 4, arbitrary: opArb(times) }, { weight: 1, arbitrary: anyWindow }), {
            maxLength: 80,
          }),
          (ops) => {
            const idx = new EventIndex(WIDTH);
            const old = new OldEventIndex(WIDTH);
            for (const op of ops) {
              if (op.kind === 'upsert') {
                idx.upsert(op.e.key, op.e.off, op.e.vis, op.e.vec);
                old.upsert(op.e.key, op.e.off, op.e.vis, op.e.vec);
              } else if (op.kind === 'remove') {
                expect(idx.remove(op.key)).toBe(old.remove(op.key));
              } else if (op.kind === 'window') {
                const got = idx.window(op.from, op.t);
                const want = old.window(op.from, op.t);
                if (!exactlyEqual(got, want)) expect(got).toEqual(want);
              } else {
                expect(idx.keysOffAfter(op.t)).toEqual(old.keysOffAfter(op.t));
              }
            }
            // Same JSON, and the same index back from it (cloned: the old toJSON shares its arrays).
            const json = structuredClone(old.toJSON());
            expect(idx.toJSON()).toEqual(json);
            const back = EventIndex.fromJSON(json);
            expect(back.toJSON()).toEqual(json);
            for (const t of [0, 50, 333, 800, 5000]) expect(back.window(t - 100, t)).toEqual(idx.window(t - 100, t));
            // The stored form (raw records, engine-state-codec.ts) gives the same index back.
            const { keys, rec } = idx.records();
            const bytes = new Uint8Array(rec.buffer.slice(rec.byteOffset, rec.byteOffset + rec.byteLength));
            const fromRec = EventIndex.fromRecords(idx.width, keys, bytes);
            expect(fromRec.toJSON()).toEqual(json);
            for (const t of [0, 50, 333, 800, 5000]) {
              expect(fromRec.window(t - 100, t)).toEqual(idx.window(t - 100, t));
              expect(fromRec.keysOffAfter(t)).toEqual(idx.keysOffAfter(t));
            }
            // ... and it takes further changes like the original (its key table is whole)
            for (const k of keys.slice(0, 3)) expect(fromRec.remove(k)).toBe(idx.remove(k));
            fromRec.upsert('late', 10, 4000, new Array<number>(idx.width).fill(1));
            idx.upsert('late', 10, 4000, new Array<number>(idx.width).fill(1));
            expect(fromRec.toJSON()).toEqual(idx.toJSON());
            expect(fromRec.window(0, 5000)).toEqual(idx.window(0, 5000));
          },
        ),
        { numRuns: 400 },
      );
    });
  }

  it('keeps latestVisible exact with fractional and huge times (rounding of visibleAt - off)', () => {
    const timeArb = fc.oneof(
      fc.double({ min: -1e6, max: 1e6, noNaN: true }),
      fc.double({ min: 2 ** 52, max: 2 ** 54, noNaN: true }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.record({ key: fc.constantFrom(...KEYS), off: timeArb, vis: timeArb }), { maxLength: 30 }),
        fc.array(timeArb, { minLength: 1, maxLength: 10 }),
        (evs, ts) => {
          const idx = new EventIndex(1);
          const old = new OldEventIndex(1);
          for (const e of evs) {
            idx.upsert(e.key, e.off + 0, e.vis + 0, [1]);
            old.upsert(e.key, e.off + 0, e.vis + 0, [1]);
          }
          for (const t of ts)
            expect(idx.window(Number.NEGATIVE_INFINITY, t)).toEqual(old.window(Number.NEGATIVE_INFINITY, t));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('stays consistent through growth, compact() and many out-of-order inserts and removals', () => {
    const idx = new EventIndex(2);
    const old = new OldEventIndex(2);
    let s = 12345;
    const rand = () => (s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32;
    for (let step = 0; step < 20_000; step++) {
      const key = `k${Math.floor(rand() * 3000)}`;
      const r = rand();
      if (r < 0.6) {
        const off = Math.floor(step / 2 + (rand() < 0.2 ? -rand() * 2000 : 0));
        const vec = [rand() < 0.3 ? 1 : 0, rand() < 0.1 ? 1 / 3 : 0];
        const vis = off + Math.floor(rand() * 40);
        idx.upsert(key, off, vis, vec);
        old.upsert(key, off, vis, vec);
      } else if (r < 0.8) {
        expect(idx.remove(key)).toBe(old.remove(key));
      } else if (r < 0.81) {
        idx.compact();
      }
      if (step % 500 === 0) {
        const t = step / 2;
        expect(idx.size).toBe(old.size);
        expect(idx.keysOffAfter(t - 300)).toEqual(old.keysOffAfter(t - 300));
        expect(idx.window(t - 500, t)).toEqual(old.window(t - 500, t));
        expect(idx.window(Number.NEGATIVE_INFINITY, t + 1000)).toEqual(old.window(Number.NEGATIVE_INFINITY, t + 1000));
      }
    }
  });
});
