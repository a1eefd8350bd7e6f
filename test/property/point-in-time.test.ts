import { EngineState } from '../../streams/processors/engine-state.js';
import { memoryStore } from '../support/memory-store.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AnalyticsRow } from '../../domain/avro-types.generated.js';
import { card, result } from '../support/builders.js';
import { courseVersion, topologyBlock } from '../support/course-builders.js';
import { type Ev, ev, feedOrder, runEngine } from '../support/engine-harness.js';

const BASE = Date.parse('2024-05-01T00:00:00Z');
const MIN = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** Random racing in a small world so histories overlap (same horses, jockeys, trainers, owners, sires, dams, courses). */
const raceArb = fc.record({
  // a few blocks of ten days spread over five months, so histories overlap within a block and span
  // month ends (snapshots in force), long absences (reappearance) and the windows' edges across blocks
  offMin: fc
    .tuple(fc.constantFrom(0, 28, 61, 150), fc.integer({ min: 0, max: 10 * 24 * 60 }))
    .map(([block, min]) => block * 24 * 60 + min),
  course: fc.constantFrom('C1', 'C2'),
  dist: fc.constantFrom(1100, 1760, 2420, 3300),
  cls: fc.integer({ min: 0, max: 7 }),
  horses: fc.uniqueArray(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 7 }),
  jockeys: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 7, maxLength: 7 }),
  trainers: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 7, maxLength: 7 }),
  sires: fc.array(fc.integer({ min: -1, max: 2 }), { minLength: 7, maxLength: 7 }),
  ors: fc.array(fc.integer({ min: 0, max: 120 }), { minLength: 7, maxLength: 7 }),
  cardLeadMin: fc.integer({ min: 1, max: 48 * 60 }),
  updateNr: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
  resultLagMin: fc.integer({ min: 0, max: 180 }),
  hasResult: fc.boolean(),
  // a declared runner the result leaves out (withdrawn at the start: no run, no final row, but still a
  // runner of the card used, so still in the ranks of the race's other rows)
  absent: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
  order: fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 7, maxLength: 7 }),
  // a corrected result published later (up to 20 days, so often after other races' offs and cuts): the
  // first version's starters ranked again, perhaps with one of them left out
  correction: fc.option(
    fc.record({
      lagMin: fc.integer({ min: 1, max: 20 * 24 * 60 }),
      order: fc.array(fc.integer({ min: 0, max: 30 }), { minLength: 7, maxLength: 7 }),
      drop: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
    }),
    { nil: undefined },
  ),
  // catalogue inputs: every entity kind and condition of the entity table gets exercised
  owners: fc.array(fc.integer({ min: -1, max: 2 }), { minLength: 7, maxLength: 7 }),
  dams: fc.array(fc.integer({ min: -1, max: 2 }), { minLength: 7, maxLength: 7 }),
  damSires: fc.array(fc.integer({ min: -1, max: 2 }), { minLength: 7, maxLength: 7 }),
  headgear: fc.array(fc.constantFrom('', '', 'b', 'p', 'ht', 'e/s'), { minLength: 7, maxLength: 7 }),
  sps: fc.array(fc.option(fc.constantFrom(1.5, 2, 3.25, 5, 11, 34), { nil: undefined }), {
    minLength: 7,
    maxLength: 7,
  }),
  going: fc.constantFrom('Good', 'Soft', 'Good To Firm', 'Standard', 'Heavy', 'Unknown Going'),
  discipline: fc.constantFrom('flat', 'flat', 'hurdle', 'chase'),
  surface: fc.constantFrom('turf', 'turf', 'aw'),
  hcap: fc.boolean(),
  deadHeat: fc.boolean(),
  pattern: fc.constantFrom('', 'none', 'listed', 'group1'),
  sexes: fc.array(fc.constantFrom('', 'c', 'f', 'g', 'm'), { minLength: 7, maxLength: 7 }),
  claims: fc.array(fc.constantFrom(0, 0, 3, 7), { minLength: 7, maxLength: 7 }),
  ages: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 7, maxLength: 7 }),
});

type RaceSpec = typeof raceArb extends fc.Arbitrary<infer T> ? T : never;

/** Versions of the two courses' records (direction, measured topology or none), published across the world's span. */
const courseArb = fc.record({
  course: fc.constantFrom('C1', 'C2'),
  pubMin: fc.integer({ min: -10 * 24 * 60, max: 160 * 24 * 60 }),
  direction: fc.constantFrom('left', 'right', 'straight', 'figure-of-eight', 'unknown'),
  climb: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
  // or published in the two days before one race's off (between its card and its off, where a version
  // is an input of the race's provisional rows), which a uniform time over five months seldom hits
  nearOff: fc.option(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 48 * 60 })), { nil: undefined }),
});

type CourseSpec = typeof courseArb extends fc.Arbitrary<infer T> ? T : never;

/** A world: its races and the course versions published in it. */
const worldArb = (minRaces: number) =>
  fc.record({
    races: fc.array(raceArb, { minLength: minRaces, maxLength: 14 }),
    courses: fc.array(courseArb, { maxLength: 4 }),
  });

function toEvents(races: RaceSpec[], courses: CourseSpec[] = []): Ev[] {
  const out: Ev[] = courses.map((c) =>
    ev.course(
      courseVersion({
        c: c.course,
        pub: iso(
          BASE +
            (c.nearOff === undefined || races.length === 0
              ? c.pubMin
              : races[c.nearOff[0] % races.length]!.offMin - c.nearOff[1]) *
              MIN,
        ),
        topology:
          c.climb === undefined
            ? null
            : { ...topologyBlock('generated', c.climb), undulationIndex: c.climb / 4, elevationRangeM: c.climb / 2 },
        extra: { direction: c.direction },
      }),
    ),
  );
  races.forEach((r, i) => {
    const off = BASE + r.offMin * MIN;
    const runners = r.horses.map((h, k) => ({
      h: `H${h}`,
      j: `J${r.jockeys[k]}`,
      t: `T${r.trainers[k]}`,
      s: r.sires[k]! < 0 ? null : `S${r.sires[k]}`,
      or: r.ors[k]! < 30 ? 0 : r.ors[k]!,
      draw: r.dist < 2000 ? k + 1 : 0,
      w: 120 + Math.floor(r.ors[k]! / 4),
      ...(r.owners[k]! >= 0 ? { o: `O${r.owners[k]}` } : {}),
      ...(r.dams[k]! >= 0 ? { d: `D${r.dams[k]}` } : {}),
      ...(r.damSires[k]! >= 0 ? { ds: `DS${r.damSires[k]}` } : {}),
      hg: r.headgear[k]!,
      sex: r.sexes[k]!,
      claim: r.claims[k]!,
      age: r.ages[k]!,
    }));
    const spec = {
      r: `R${i}`,
      off: iso(off),
      c: r.course,
      dist: r.dist,
      cls: r.cls,
      going: r.going,
      discipline: r.discipline,
      surface: r.surface,
      hcap: r.hcap,
      pattern: r.pattern,
      runners,
    };
    const pub1 = off - r.cardLeadMin * MIN;
    out.push(ev.card(card({ ...spec, pub: iso(pub1) })));
    let final = runners;
    if (r.updateNr !== undefined && r.updateNr < runners.length && runners.length > 1) {
      final = runners.map((x, k) => (k === r.updateNr ? { ...x, nr: true } : x));
      out.push(ev.card(card({ ...spec, runners: final, v: 2, pub: iso(pub1 + Math.floor((off - pub1) / 2)) })));
    }
    if (r.hasResult) {
      const declared = final.filter((x) => !('nr' in x));
      const starters =
        r.absent !== undefined && r.absent < declared.length && declared.length > 1
          ? declared.filter((_, k) => k !== r.absent)
          : declared;
      const version = (pub: number, order: readonly number[], from: typeof starters) => {
        const ranked = from
          .map((x, k) => ({ x, score: order[k]! }))
          .sort((a, b) => a.score - b.score || (a.x.h < b.x.h ? -1 : 1));
        return ev.result(
          result({
            r: `R${i}`,
            pub: iso(pub),
            runners: ranked.map((e, k) => {
              // with deadHeat, the first two finishers share first place
              const p = e.score > 25 ? 0 : r.deadHeat && k === 1 ? 1 : k + 1;
              const sp = r.sps[runners.findIndex((x) => x.h === e.x.h)];
              return {
                h: e.x.h,
                pos: p,
                bl: p <= 1 ? 0 : k * 1.5,
                fav: k === 0,
                ...(sp !== undefined ? { sp } : {}),
              };
            }),
          }),
        );
      };
      const pub = off + r.resultLagMin * MIN;
      out.push(version(pub, r.order, starters));
      const c = r.correction;
      if (c) {
        const kept =
          c.drop !== undefined && c.drop < starters.length && starters.length > 1
            ? starters.filter((_, k) => k !== c.drop)
            : starters;
        out.push(version(pub + c.lagMin * MIN, c.order, kept));
      }
    }
  });
  return out;
}

/** Same horse can't run twice at the same minute: keep races with distinct (horse, off) pairs. */
function plausible(races: RaceSpec[]): boolean {
  const seen = new Set<string>();
  for (const r of races) {
    for (const h of r.horses) {
      const k = `${h}@${r.offMin}`;
      if (seen.has(k)) return false;
      seen.add(k);
    }
  }
  return true;
}

function features(row: AnalyticsRow): Omit<AnalyticsRow, 'position' | 'computedAtUtc' | 'status'> {
  const { position: _p, computedAtUtc: _c, status: _s, ...rest } = row;
  return rest;
}

describe('point-in-time rule (property)', () => {
  it('the random worlds exercise every field of the row (so the comparisons below compare something)', async () => {
    const values = new Map<string, Set<string>>();
    const samples = fc.sample(worldArb(6), { numRuns: 200, seed: 42 });
    for (const { races, courses } of samples) {
      if (!plausible(races)) continue;
      for (const row of (await runEngine(feedOrder(toEvents(races, courses)))).rows.values()) {
        for (const [k, v] of Object.entries(row)) {
          let set = values.get(k);
          if (!set) values.set(k, (set = new Set()));
          if (set.size < 2) set.add(JSON.stringify(v));
        }
      }
    }
    const constant = [...values].filter(([, v]) => v.size < 2).map(([k]) => k);
    expect(values.size).toBeGreaterThan(200);
    expect(constant).toEqual([]);
  });

  it('rows of races off at or before T are the same with and without every event published at or after T, position aside', async () => {
    await fc.assert(
      fc.asyncProperty(
        worldArb(1),
        fc.integer({ min: 0, max: 160 * 24 * 60 }),
        // or a cut just at or after one race's off, before or after its result: the window a result
        // published at or after the off falls in, which a uniform cut over five months seldom hits
        fc.option(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 180 })), { nil: undefined }),
        async ({ races, courses }, cutMin, nearOff) => {
          fc.pre(plausible(races));
          const events = toEvents(races, courses);
          const t =
            nearOff === undefined
              ? BASE + cutMin * MIN
              : BASE + (races[nearOff[0] % races.length]!.offMin + nearOff[1]) * MIN;
          const all = (await runEngine(feedOrder(events))).rows;
          const before = (await runEngine(feedOrder(events.filter((e) => e.value.publishedAt < t)))).rows;
          for (const [key, row] of all) {
            if (Date.parse(row.offTime) > t) continue;
            const other = before.get(key);
            expect(other, key).toBeDefined();
            expect(features(other!)).toEqual(features(row));
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('arrival order and batching change no row', async () => {
    const rolled = { rollUps: 0, expansions: 0 };
    await fc.assert(
      fc.asyncProperty(
        worldArb(1),
        fc.integer({ min: 0, max: 2 ** 31 - 1 }),
        fc.integer({ min: 1, max: 10 }),
        async ({ races, courses }, seed, flushEvery) => {
          fc.pre(plausible(races));
          const events = feedOrder(toEvents(races, courses));
          const shuffled = shuffle(events, seed);
          const a = (await runEngine(events)).rows;
          const b = (await runEngine(shuffled, flushEvery)).rows;
          expect([...b.entries()].sort()).toEqual([...a.entries()].sort());
          // and with every piece of state written to a store and evicted after each flush, then
          // reloaded on demand (what the processor does with cold state)
          const c = (await runEngine(shuffled, flushEvery, new EngineState(memoryStore()), true)).rows;
          expect([...c.entries()].sort()).toEqual([...a.entries()].sort());
          // and with the events between two flushes applied as one batch (applyEvents: each race
          // changed is linked once, after the batch's last event), with and without cold state
          const d = (await runEngine(shuffled, flushEvery, new EngineState(), false, true)).rows;
          expect([...d.entries()].sort()).toEqual([...a.entries()].sort());
          const e = (await runEngine(shuffled, flushEvery, new EngineState(memoryStore()), true, true)).rows;
          expect([...e.entries()].sort()).toEqual([...a.entries()].sort());
          // and with every index's months rolled up into its head at each checkpoint (everything before
          // the next year: each query but the whole-history ones reads them back apart)
          const rolling = new EngineState(memoryStore(), -1);
          const f = (await runEngine(shuffled, flushEvery, rolling, true, true)).rows;
          expect([...f.entries()].sort()).toEqual([...a.entries()].sort());
          rolled.rollUps += rolling.rollUps;
          rolled.expansions += rolling.expansions;
        },
      ),
      { numRuns: 300 },
    );
    expect(rolled.rollUps).toBeGreaterThan(300);
    expect(rolled.expansions).toBeGreaterThan(300);
  });
});

function shuffle<T>(xs: readonly T[], seed: number): T[] {
  const out = [...xs];
  let s = seed >>> 0 || 1;
  for (let i = out.length - 1; i > 0; i--) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    const j = (s >>> 0) % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}
