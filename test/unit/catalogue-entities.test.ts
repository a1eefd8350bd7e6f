/**
 * Families I, J, K, L and M of catalogue.md: each entity kind of the entity table on hand-built
 * histories, every field against values worked out by hand (the arithmetic is in the comments). The
 * vectors are made by the table's own `vector` functions, so the run-to-event mapping is tested too.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AnalyticsRow } from '../../domain/avro-types.generated.js';
import { DISCIPLINES, distanceBucket, SURFACES } from '../../domain/codes.js';
import {
  COURSE_SNAPSHOT,
  DAM,
  DAM_SIRE,
  ENTITY_KINDS,
  type EntityKind,
  JOCKEY,
  keyOf,
  OWNER,
  type RaceFacts,
  type RunnerFacts,
  SIRE,
  TRAINER,
} from '../../domain/features/entity-table.js';
import { MONTHLY_ONLY } from '../../domain/features/snapshot-calendar.js';
import { round4 } from '../../domain/rounding.js';
import { ChunkedIndex } from '../../state/aggregates/chunked-index.js';
import { EventIndex } from '../../state/aggregates/event-index.js';

const DAY = 86_400_000;
const OFF = Date.parse('2024-06-01T14:00:00Z');

const race = (over: Partial<RaceFacts> = {}): RaceFacts => ({
  off: OFF,
  courseId: 'crs_a',
  discipline: 'flat',
  surface: 'turf',
  distanceYards: 1760,
  goingGroup: 2,
  raceClass: 4,
  ...over,
});

const runner = (over: Partial<RunnerFacts> = {}): RunnerFacts => ({
  horseId: 'hrs_1',
  jockeyId: 'jky_j',
  trainerId: 'trn_t',
  ownerId: 'own_o',
  sireId: 'sir_s',
  damId: 'dam_d',
  damSireId: 'sir_ds',
  draw: 0,
  officialRating: 70,
  weightLbs: 130,
  headgear: '',
  ...over,
});

interface Run {
  daysBefore: number;
  /** published this many minutes after the off (default 10) */
  lagMin?: number;
  r?: Partial<RunnerFacts>;
  x?: Partial<RaceFacts>;
}

/** The source of one kind for today's runner, built from runs through the kind's key and vector. */
function source(k: EntityKind, runs: Run[], todayRunner: RunnerFacts, today: RaceFacts): EventIndex {
  const idx = new EventIndex(k.width);
  const key = keyOf(k, todayRunner, today);
  runs.forEach((run, i) => {
    const off = OFF - run.daysBefore * DAY;
    const x = race({ ...run.x, off });
    const r = runner({ horseId: `hrs_${i}`, ...run.r });
    if (keyOf(k, r, x) !== key) return; // the run counts for another key of this kind
    const vec = k.per === 'race' ? k.vector([r]) : k.vector(r, x);
    idx.upsert(`rac_${i}:${r.horseId}`, off, off + (run.lagMin ?? 10) * 60_000, vec);
  });
  return idx;
}

function blank(): AnalyticsRow {
  return {} as AnalyticsRow;
}

function features(k: EntityKind, runs: Run[], today: Partial<RunnerFacts> = {}, x: Partial<RaceFacts> = {}) {
  const r = runner(today);
  const t = race(x);
  const row = blank();
  k.features(
    source(k, runs, r, t),
    { off: OFF, race: t, cal: MONTHLY_ONLY, runner: r, draw: r.draw, drawThird: -1 },
    row,
  );
  return row;
}

const win = (sp: number | null, extra: Partial<RunnerFacts> = {}) => ({
  position: 1,
  startingPrice: sp,
  deadHeat: 1,
  ...extra,
});
const pos = (p: number, sp: number | null) => ({ position: p, startingPrice: sp, deadHeat: 1 });

/**
 * A jockey's (and a trainer's) history, off relative to today:
 *   A   5 days: won at SP 3.0
 *   B  20 days: 2nd at SP 5.0
 *   C 100 days: dead heat for first (k = 2) at SP 4.0
 *   D 200 days: non-finisher, no SP
 *   E 400 days: won at SP 2.0 (outside 365 days)
 *   F   3 days: won at SP 6.0 but the result was published after today's off: invisible
 */
const PEOPLE: Run[] = [
  { daysBefore: 5, r: win(3) },
  { daysBefore: 20, r: pos(2, 5) },
  { daysBefore: 100, r: { position: 1, startingPrice: 4, deadHeat: 2 } },
  { daysBefore: 200, r: pos(0, null) },
  { daysBefore: 400, r: win(2) },
  { daysBefore: 3, lagMin: 4 * 24 * 60, r: win(6) },
];

describe('J. jockey', () => {
  it('windows, A/E, level stakes, shrunk rate and days since the last winner', () => {
    const row = features(JOCKEY, PEOPLE);
    expect(row.jockeyRides14Day).toBe(1); // A (F is not visible)
    expect(row.jockeyWinRate14Day).toBe(1);
    expect(row.jockeyRides90Day).toBe(2); // A, B
    expect(row.jockeyWinRate90Day).toBe(0.5);
    expect(row.jockeyRides365Day).toBe(4); // A, B, C, D
    expect(row.jockeyWinRate365Day).toBe(0.5); // A, C
    expect(row.jockeyPlaceRate365Day).toBe(0.75); // A, B, C
    // SP runs A, B, C: 2 wins / (1/3 + 1/5 + 1/4 = 0.78333) = 2.553191 -> 2.5532
    expect(row.jockeyAe365Day).toBe(2.5532);
    // A: 3/1 - 1 = 2; B: -1; C: 4/2 - 1 = 1; D has no SP -> 2.00
    expect(row.jockeyLevelStakes365Day).toBe(2);
    // (2 + 2) / (4 + 20)
    expect(row.jockeyShrunkWinRate365Day).toBe(0.1667);
    expect(row.jockeyDaysSinceLastWinner).toBe(5);
  });

  it('no history: counts 0, rates 0, 730 days', () => {
    const row = blank();
    JOCKEY.features(
      undefined,
      { off: OFF, race: race(), cal: MONTHLY_ONLY, runner: runner(), draw: 0, drawThird: -1 },
      row,
    );
    expect(row.jockeyDaysSinceLastWinner).toBe(730);
    const only = features(JOCKEY, [{ daysBefore: 10, r: pos(4, 7) }]);
    expect(only.jockeyDaysSinceLastWinner).toBe(730); // never won
    expect(only.jockeyAe365Day).toBe(0); // no wins over 1/7
    expect(only.jockeyLevelStakes365Day).toBe(-1);
  });

  it('a winner long ago caps at 729', () => {
    const row = features(JOCKEY, [{ daysBefore: 1500, r: win(3) }]);
    expect(row.jockeyDaysSinceLastWinner).toBe(729);
  });

  it("jockey+course over 5 years (1826 days, the course's tag on the jockey's events) and jockey+discipline over 365 days (dimensions of the jockey vector)", () => {
    const runs: Run[] = [
      { daysBefore: 10, r: win(3) }, // course a, flat
      { daysBefore: 1000, r: pos(3, 4) }, // course a, flat: in 5 years, not in 365 days
      { daysBefore: 1827, r: win(2) }, // course a: just outside 1826 days
      { daysBefore: 30, r: win(2), x: { courseId: 'crs_b' } }, // other course, flat
      { daysBefore: 40, r: pos(2, 9), x: { discipline: 'hurdle' } }, // course a, other discipline
    ];
    const jc = features(JOCKEY, runs);
    expect(jc.jockeyCourseRides5Year).toBe(3); // 10, 1000, 40 days
    expect(jc.jockeyCourseWinRate5Year).toBe(0.3333);
    const jd = features(JOCKEY, runs);
    expect(jd.jockeyDisciplineRides365Day).toBe(2); // 10 and 30 days (flat)
    expect(jd.jockeyDisciplineWinRate365Day).toBe(1);
    const hurdle = features(JOCKEY, runs, {}, { discipline: 'hurdle' });
    expect([hurdle.jockeyDisciplineRides365Day, hurdle.jockeyDisciplineWinRate365Day]).toEqual([1, 0]); // 40 days
  });
});

describe('K. trainer', () => {
  it('14-day stable form, 30 and 365 days, A/E, stakes, shrunk, last winner', () => {
    const row = features(TRAINER, PEOPLE);
    expect(row.trainerRunners14Day).toBe(1);
    expect(row.trainer14DayWinRate).toBe(1);
    expect(row.stableForm).toBe('1-0-1');
    expect(row.trainerRunners30Day).toBe(2); // A, B
    expect(row.trainerWinRate30Day).toBe(0.5);
    expect(row.trainerRunners365Day).toBe(4);
    expect(row.trainerWinRate365Day).toBe(0.5);
    expect(row.trainerPlaceRate365Day).toBe(0.75);
    expect(row.trainerAe365Day).toBe(2.5532);
    expect(row.trainerLevelStakes365Day).toBe(2);
    expect(row.trainerShrunkWinRate365Day).toBe(0.1667);
    expect(row.trainerDaysSinceLastWinner).toBe(5);
  });

  it('stable form counts seconds and thirds in P', () => {
    const row = features(TRAINER, [
      { daysBefore: 1, r: pos(2, 3) },
      { daysBefore: 2, r: pos(3, 3) },
      { daysBefore: 3, r: win(2) },
      { daysBefore: 4, r: pos(4, 3) },
    ]);
    expect(row.stableForm).toBe('1-2-4');
  });

  it("trainer+course (the course's tag on the trainer's events) and trainer+discipline (dimensions of the trainer vector)", () => {
    const runs: Run[] = [
      { daysBefore: 10, r: win(3) },
      { daysBefore: 400, r: pos(2, 3) }, // in 5 years, not 365 days
      { daysBefore: 20, r: win(3), x: { discipline: 'chase' } },
    ];
    const tc = features(TRAINER, runs);
    expect(tc.trainerCourseRunners5Year).toBe(3);
    expect(tc.trainerCourseWinRate5Year).toBe(0.6667);
    const td = features(TRAINER, runs);
    expect(td.trainerDisciplineRunners365Day).toBe(1);
    expect(td.trainerDisciplineWinRate365Day).toBe(1);
  });
});

describe('L. partnerships and owner', () => {
  it("trainer+jockey over 365 days, only runs with both today (the jockey's tag on the trainer's events)", () => {
    const runs: Run[] = [
      { daysBefore: 10, r: win(4) },
      { daysBefore: 50, r: pos(5, 4) },
      { daysBefore: 60, r: win(2, { jockeyId: 'jky_other' }) }, // another jockey: not this pair
      { daysBefore: 500, r: win(2) }, // outside 365 days
    ];
    const row = features(TRAINER, runs);
    expect(row.trainerJockeyRuns365Day).toBe(2);
    expect(row.trainerJockeyWinRate365Day).toBe(0.5);
    // 1 win / (1/4 + 1/4) = 2
    expect(row.trainerJockeyAe365Day).toBe(2);
  });

  it('owner over 365 days; unknown owner counts for none and gets 0', () => {
    const runs: Run[] = [
      { daysBefore: 10, r: win(5) },
      { daysBefore: 20, r: pos(2, 2.5) },
      { daysBefore: 30, r: pos(3, null) }, // no SP: a runner, but out of the A/E sum
    ];
    const row = features(OWNER, runs);
    expect(row.ownerRunners365Day).toBe(3);
    expect(row.ownerWinRate365Day).toBe(0.3333);
    // 1 / (1/5 + 1/2.5 = 0.6) = 1.6667
    expect(row.ownerAe365Day).toBe(1.6667);
    expect(keyOf(OWNER, runner({ ownerId: '' }), race())).toBeNull();
    const unknown = blank();
    OWNER.features(
      undefined,
      { off: OFF, race: race(), cal: MONTHLY_ONLY, runner: runner(), draw: 0, drawThird: -1 },
      unknown,
    );
    expect(unknown.ownerRunners365Day).toBeUndefined(); // left at the row's default (0)
  });
});

describe('M. breeding', () => {
  const progeny: Run[] = [
    { daysBefore: 10, r: win(4) }, // 1760 y, turf, flat, good
    { daysBefore: 800, r: win(2), x: { distanceYards: 2640, surface: 'aw', goingGroup: 5 } },
    { daysBefore: 3000, r: pos(3, 10), x: { discipline: 'hurdle', distanceYards: 3960 } },
    { daysBefore: 5000, r: pos(0, 20), x: { goingGroup: 0 } },
    { daysBefore: 2, lagMin: 3 * 24 * 60, r: win(3) }, // published after today's off
  ];

  it('sire: progeny place rate, A/E, shrunk rate, mean winning distance (all time)', () => {
    const row = features(SIRE, progeny);
    expect(row.sireProgenyRuns).toBe(4);
    expect(row.sireProgenyWinRate).toBe(0.5);
    expect(row.sireProgenyPlaceRate).toBe(0.75);
    // 2 / (1/4 + 1/2 + 1/10 + 1/20 = 0.9) = 2.2222
    expect(row.sireProgenyAe).toBe(2.2222);
    // (2 + 2) / (4 + 20)
    expect(row.sireShrunkWinRate).toBe(0.1667);
    // (1760 + 2640) / 2
    expect(row.sireMeanWinningDistanceY).toBe(2200);
  });

  it('sire composites (dimensions of the sire vector): surface, going group, distance bucket, discipline', () => {
    const s = features(SIRE, progeny);
    expect([s.sireSurfaceRuns, s.sireSurfaceWinRate]).toEqual([3, 0.3333]); // turf: 10, 3000, 5000 days
    expect([s.sireGoingRuns, s.sireGoingWinRate]).toEqual([2, 0.5]); // good: 10, 3000 days
    expect([s.sireDistanceRuns, s.sireDistanceWinRate]).toEqual([2, 0.5]); // mile: 10 and 5000 days
    expect([s.sireDisciplineRuns, s.sireDisciplineWinRate]).toEqual([3, 0.6667]); // flat
    const aw = features(SIRE, progeny, {}, { surface: 'aw', goingGroup: 5, distanceYards: 2640 });
    expect([aw.sireSurfaceRuns, aw.sireGoingRuns, aw.sireDistanceRuns]).toEqual([1, 1, 1]); // 800 days
    expect([aw.sireSurfaceWinRate, aw.sireGoingWinRate, aw.sireDistanceWinRate]).toEqual([1, 1, 1]);
    // today's going unknown: no sire+going key, the going fields stay at the row's defaults
    const unknown = features(SIRE, progeny, {}, { goingGroup: 0 });
    expect([unknown.sireGoingRuns, unknown.sireGoingWinRate]).toEqual([undefined, undefined]);
    expect(unknown.sireSurfaceRuns).toBe(3);
  });

  it('dam sire, dam sire + distance (dimensions of the dam sire vector), dam', () => {
    const ds = features(DAM_SIRE, progeny);
    expect(ds.damSireProgenyRuns).toBe(4);
    expect(ds.damSireProgenyWinRate).toBe(0.5);
    expect(ds.damSireMeanWinningDistanceY).toBe(2200);
    expect([ds.damSireDistanceRuns, ds.damSireDistanceWinRate]).toEqual([2, 0.5]);
    const dam = features(DAM, progeny);
    expect([dam.damProgenyRuns, dam.damProgenyWins, dam.damProgenyWinRate]).toEqual([4, 2, 0.5]);
  });

  it('no winners: mean winning distance is null', () => {
    const row = features(SIRE, [{ daysBefore: 30, r: pos(2, 3) }]);
    expect(row.sireMeanWinningDistanceY).toBeNull();
    expect(row.sireShrunkWinRate).toBe(0.0952); // (0 + 2) / (1 + 20)
  });
});

describe('I. course snapshot in force', () => {
  /** A race's snapshot event: draws 1..n, the winner's draw, the favourite's place. */
  function raceRunners(n: number, winnerDraw: number, favPos: number): RunnerFacts[] {
    return Array.from({ length: n }, (_, i) => {
      const draw = i + 1;
      const position =
        draw === winnerDraw ? 1 : draw === winnerDraw + 1 || (winnerDraw === n && draw === 1) ? 2 : 3 + i;
      return runner({ horseId: `hrs_${i}`, draw, position, favourite: false, startingPrice: 5 });
    }).map((r) => (r.position === favPos ? { ...r, favourite: true } : r));
  }

  it('races, mean field size, favourite rates, draw thirds and bias; in force from the month after', () => {
    const idx = new ChunkedIndex(COURSE_SNAPSHOT.width);
    const key = COURSE_SNAPSHOT.key(race());
    const add = (id: string, daysBefore: number, ran: RunnerFacts[]) => {
      const off = OFF - daysBefore * DAY;
      idx.upsert(id, off, off + 600_000, COURSE_SNAPSHOT.vector(ran));
    };
    // in May or earlier (the snapshot in force on 1 June covers races visible at 1 June 00:00)
    add('r1', 40, raceRunners(9, 1, 1)); // low third won; favourite won
    add('r2', 45, raceRunners(9, 2, 2)); // low; favourite 2nd of 9 (places 3): placed
    add('r3', 50, raceRunners(9, 9, 5)); // high; favourite 5th: unplaced
    add('r4', 60, raceRunners(4, 1, 1)); // under 6 runners: no draw race; favourite won
    add('late', 0.2, raceRunners(9, 5, 1)); // 1 June: not in the snapshot in force today
    expect(key).toBe('crs_a|flat|mile|turf');
    const row = blank();
    COURSE_SNAPSHOT.features(
      idx,
      { off: OFF, race: race(), cal: MONTHLY_ONLY, runner: runner(), draw: 3, drawThird: 0 },
      row,
    );
    expect(row.snapshotRaces).toBe(4);
    expect(row.snapshotMeanFieldSize).toBe(7.75); // 31 / 4
    expect(row.snapshotFavouriteWinRate).toBe(0.5); // r1, r4
    expect(row.snapshotFavouritePlaceRate).toBe(0.75); // r1, r2, r4
    expect(row.snapshotDrawLowWinRate).toBe(0.6667); // 2 of 3 draw races
    expect(row.snapshotDrawMiddleWinRate).toBe(0);
    expect(row.snapshotDrawHighWinRate).toBe(0.3333);
    expect(row.drawBias).toBe(0.3333); // low minus high
    expect(row.drawBiasStrength).toBe(0.3333);
    expect(row.drawBiasRaces).toBe(3);
    expect(row.drawThirdWinRate).toBe(0.6667); // this runner is in the low third
    expect(row.snapshotPeriod).toBe('2024-04'); // r1 (off 22 April) is the latest race it covers
    const undrawn = blank();
    COURSE_SNAPSHOT.features(
      idx,
      { off: OFF, race: race(), cal: MONTHLY_ONLY, runner: runner(), draw: 0, drawThird: -1 },
      undrawn,
    );
    expect(undrawn.drawThirdWinRate).toBe(0);
    expect(undrawn.drawBiasStrength).toBe(0);
    expect(undrawn.drawBias).toBe(0.3333); // a property of the snapshot, drawn or not
  });
});

describe('the entity table', () => {
  it('names every kind once, with a width matching its vectors', () => {
    const kinds = ENTITY_KINDS.map((k) => k.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    for (const k of ENTITY_KINDS) {
      const v = k.per === 'race' ? k.vector([runner({ position: 1 })]) : k.vector(runner({ position: 1 }), race());
      expect(v.length, k.kind).toBe(k.width);
    }
  });

  it('a composite folded into its parent counts exactly the runs and wins its own key would', () => {
    const facts = fc.record({
      discipline: fc.constantFrom(...DISCIPLINES),
      surface: fc.constantFrom(...SURFACES),
      goingGroup: fc.integer({ min: 0, max: 6 }),
      distanceYards: fc.integer({ min: 1000, max: 4400 }),
    });
    const history = fc.array(fc.record({ daysBefore: fc.integer({ min: 1, max: 800 }), won: fc.boolean(), x: facts }), {
      maxLength: 40,
    });
    fc.assert(
      fc.property(history, facts, (h, today) => {
        const runs: Run[] = h.map(({ daysBefore, won, x }) => ({ daysBefore, r: won ? win(4) : pos(2, 4), x }));
        /** [runs, win rate] of the runs in the window whose race is in today's category */
        const composite = (same: (x: typeof today) => boolean, days = Number.POSITIVE_INFINITY) => {
          const inIt = h.filter((run) => run.daysBefore <= days && same(run.x));
          const wins = inIt.filter((run) => run.won).length;
          return [inIt.length, inIt.length > 0 ? round4(wins / inIt.length) : 0];
        };
        const sameDiscipline = (x: typeof today) => x.discipline === today.discipline;
        const sameBucket = (x: typeof today) => distanceBucket(x.distanceYards) === distanceBucket(today.distanceYards);
        const j = features(JOCKEY, runs, {}, today);
        expect([j.jockeyDisciplineRides365Day, j.jockeyDisciplineWinRate365Day]).toEqual(
          composite(sameDiscipline, 365),
        );
        const t = features(TRAINER, runs, {}, today);
        expect([t.trainerDisciplineRunners365Day, t.trainerDisciplineWinRate365Day]).toEqual(
          composite(sameDiscipline, 365),
        );
        const s = features(SIRE, runs, {}, today);
        expect([s.sireSurfaceRuns, s.sireSurfaceWinRate]).toEqual(composite((x) => x.surface === today.surface));
        expect([s.sireGoingRuns, s.sireGoingWinRate]).toEqual(
          today.goingGroup > 0 ? composite((x) => x.goingGroup === today.goingGroup) : [undefined, undefined],
        );
        expect([s.sireDistanceRuns, s.sireDistanceWinRate]).toEqual(composite(sameBucket));
        expect([s.sireDisciplineRuns, s.sireDisciplineWinRate]).toEqual(composite(sameDiscipline));
        const ds = features(DAM_SIRE, runs, {}, today);
        expect([ds.damSireDistanceRuns, ds.damSireDistanceWinRate]).toEqual(composite(sameBucket));
      }),
    );
  });

  it("a composite answered from its parent's tags counts exactly the runs, wins and SP sums its own key would", () => {
    const courses = ['crs_0123456789abcdef', 'crs_0123456789abcdeg', 'crs_x'];
    const jockeys = ['jky_0123456789abcdef', 'jky_0123456789abcdeg', 'jky_y'];
    const history = fc.array(
      fc.record({
        daysBefore: fc.integer({ min: 1, max: 2000 }),
        won: fc.boolean(),
        sp: fc.option(fc.constantFrom(2, 3, 4.5, 7), { nil: null }),
        course: fc.constantFrom(...courses),
        jockey: fc.constantFrom(...jockeys),
      }),
      { maxLength: 40 },
    );
    fc.assert(
      fc.property(history, fc.constantFrom(...courses), fc.constantFrom(...jockeys), (h, course, jockey) => {
        const runs: Run[] = h.map((x) => ({
          daysBefore: x.daysBefore,
          r: { ...(x.won ? win(x.sp) : pos(2, x.sp)), jockeyId: x.jockey },
          x: { courseId: x.course },
        }));
        const of = (keep: (x: (typeof h)[number]) => boolean, days: number) =>
          h.filter((x) => x.daysBefore <= days && keep(x));
        const rateOf = (xs: typeof h) => (xs.length > 0 ? round4(xs.filter((x) => x.won).length / xs.length) : 0);
        const atCourse = of((x) => x.course === course, 1826);
        // the jockey's index holds the runs of today's jockey: every run here ridden by it
        const ridden = runs.map((run) => ({ ...run, r: { ...run.r, jockeyId: jockey } }));
        const j = features(JOCKEY, ridden, { jockeyId: jockey }, { courseId: course });
        expect([j.jockeyCourseRides5Year, j.jockeyCourseWinRate5Year]).toEqual([atCourse.length, rateOf(atCourse)]);
        const t = features(TRAINER, runs, { jockeyId: jockey }, { courseId: course });
        expect([t.trainerCourseRunners5Year, t.trainerCourseWinRate5Year]).toEqual([atCourse.length, rateOf(atCourse)]);
        const pair = of((x) => x.jockey === jockey, 365);
        expect([t.trainerJockeyRuns365Day, t.trainerJockeyWinRate365Day]).toEqual([pair.length, rateOf(pair)]);
        const withSp = pair.filter((x) => x.sp !== null);
        const inv = withSp.reduce((a, x) => a + 1 / x.sp!, 0);
        const spWins = withSp.filter((x) => x.won).length;
        expect(t.trainerJockeyAe365Day).toBe(inv > 0 ? round4(spWins / inv) : 0);
      }),
    );
  });
});
