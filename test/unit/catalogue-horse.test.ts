/**
 * catalogue.md horse-history families C, D, E, F, G, N on hand-built histories, every field
 * hand-computed (the arithmetic is in the comments).
 */
import { describe, expect, it } from 'vitest';
import { horseFeatures, type HorseRun, type TodayContext } from '../../domain/features/horse.js';
import { HORSE_CATALOGUE_FIELDS, horseCatalogue } from '../../domain/features/horse-catalogue.js';
import {
  HORSE_CHANGE_FIELDS,
  HORSE_CONDITION_FIELDS,
  HORSE_EQUIPMENT_FIELDS,
  horseChangeFeatures,
  horseConditionFeatures,
  horseEquipmentFeatures,
} from '../../domain/features/horse-changes.js';
import {
  HORSE_FORM_FIELDS,
  HORSE_MARKET_FIELDS,
  HORSE_RATING_FIELDS,
  horseFormFeatures,
  horseMarketFeatures,
  horseRatingFeatures,
  levelStake,
  levelStakes,
} from '../../domain/features/horse-form.js';
import { prb } from '../../domain/features/horse-scan.js';

const DAY = 86_400_000;
const HOUR = 3_600_000;
/** Today's off: 2024-06-01 15:00 UTC. */
const T0 = Date.UTC(2024, 5, 1, 15, 0, 0);
/** An off at 14:00 UTC, `d` calendar days before today's (so lastRunDays-style day counts are d). */
const daysAgo = (d: number): number => T0 - d * DAY - HOUR;

/** A run with dull defaults; every test states the facts it relies on. Visible 10 minutes after its off. */
function run(id: string, d: number, f: Partial<HorseRun> = {}): HorseRun {
  const off = daysAgo(d);
  return {
    raceId: `rac_${id}`,
    off,
    visibleAt: off + 10 * 60_000,
    courseId: 'crs_A',
    position: 5,
    figure: 60,
    distanceYards: 1760,
    officialRating: 70,
    weightLbs: 130,
    raceClass: 4,
    ran: 10,
    beatenLengths: 4,
    startingPrice: 10,
    favourite: false,
    deadHeat: 1,
    surface: 'turf',
    discipline: 'flat',
    goingGroup: 2,
    isHandicap: false,
    headgear: '',
    jockeyId: 'jky_1',
    trainerId: 'trn_1',
    ownerId: 'own_1',
    ...f,
  };
}

/** Runs as the engine stores them: (off, raceId) ascending. */
function sorted(...runs: HorseRun[]): HorseRun[] {
  return runs.sort((a, b) => a.off - b.off || (a.raceId < b.raceId ? -1 : a.raceId > b.raceId ? 1 : 0));
}

function today(f: Partial<TodayContext> = {}): TodayContext {
  return {
    off: T0,
    courseId: 'crs_A',
    distanceYards: 1760,
    distanceBucket: 'mile',
    surface: 'turf',
    discipline: 'flat',
    goingGroup: 2,
    raceClass: 4,
    isHandicap: true,
    officialRating: 75,
    weightLbs: 130,
    headgear: 'p',
    jockeyId: 'jky_1',
    trainerId: 'trn_1',
    ownerId: 'own_1',
    fieldSize: 12,
    ...f,
  };
}

/**
 * Horse M: seven visible runs (newest first, i = index in the history) and two invisible ones.
 *
 *  (table below; i = index in the history, newest first; R6 is a 2-way dead heat for first)
 *
 * Invisible: X1 off 3 days ago but its result published exactly at today's off (a win that would
 * change nearly every field); X2 off 2 days after today.
 */
function horseM(): HorseRun[] {
  type Row = [string, number, number, number, number | null, number | null, number | null, boolean, string, number];
  type Row2 = [number, string, string, number, boolean, string, string, string, string, number];
  // prettier-ignore
  const rows: [Row, Row2][] = [
    // id    d    pos ran  fig   BL    SP    fav    course   dist    going surf    disc     cls hcap   hg   jky      trn      own      OR
    [['R7', 20,  0,  9,  null, null, 6,    true,  'crs_B', 2640], [3, 'turf', 'hurdle', 3, true,  'p', 'jky_2', 'trn_1', 'own_1', 80]],
    [['R6', 45,  1,  8,  82,   0,    4,    false, 'crs_A', 1760], [2, 'turf', 'flat',   4, true,  'p', 'jky_1', 'trn_1', 'own_1', 78]],
    [['R5', 100, 3,  12, 75.3, 2.25, null, false, 'crs_A', 1800], [0, 'turf', 'flat',   0, false, '',  'jky_1', 'trn_2', '',      72]],
    [['R4', 200, 1,  5,  70,   0,    3,    true,  'crs_C', 1600], [5, 'aw',   'flat',   5, false, 'b', 'jky_3', 'trn_2', 'own_2', 0]],
    [['R3', 400, 11, 14, 55.5, 20.5, 21,   false, 'crs_A', 1760], [2, 'turf', 'flat',   4, false, 'b', 'jky_1', 'trn_2', 'own_2', 65]],
    [['R2', 500, 0,  7,  null, null, 10,   false, 'crs_A', 2300], [1, 'turf', 'flat',   2, false, '',  'jky_4', 'trn_2', 'own_2', 68]],
    [['R1', 600, 2,  6,  60,   1.5,  5.5,  true,  'crs_A', 1760], [2, 'turf', 'flat',   4, false, '',  'jky_1', 'trn_2', 'own_2', 0]],
  ];
  // prettier-ignore
  const visible = rows.map(([[id, d, position, ran, figure, beatenLengths, startingPrice, favourite, courseId, distanceYards], rest]) => {
    const [goingGroup, surface, discipline, raceClass, isHandicap, headgear, jockeyId, trainerId, ownerId, officialRating] = rest;
    return run(id, d, {
      position, deadHeat: id === 'R6' ? 2 : 1, ran, figure, beatenLengths, startingPrice, favourite, courseId,
      distanceYards, goingGroup, surface, discipline, raceClass, isHandicap, headgear, jockeyId, trainerId, ownerId,
      officialRating,
    });
  });
  const x1 = { ...run('X1', 3, { position: 1, figure: 99, startingPrice: 2, headgear: 'p' }), visibleAt: T0 };
  const x2Off = T0 + 2 * DAY;
  const x2 = { ...run('X2', 0, { position: 1, figure: 99 }), off: x2Off, visibleAt: x2Off + 600_000 };
  // shuffled on purpose: sorted() restores the engine's order
  return sorted(x2, visible[3]!, x1, visible[6]!, visible[0]!, visible[4]!, visible[1]!, visible[5]!, visible[2]!);
}

/** vpr and vprConfidence of horse M (checked against horseFeatures below). */
const M_CONFIRMED = { vpr: 71.4, vprConfidence: 0.8333 };

describe('family field sets', () => {
  it('each family has exactly the catalogue names and counts', () => {
    expect(HORSE_FORM_FIELDS).toHaveLength(22);
    expect(HORSE_RATING_FIELDS).toHaveLength(9);
    expect(HORSE_CHANGE_FIELDS).toHaveLength(15);
    expect(HORSE_EQUIPMENT_FIELDS).toHaveLength(4);
    expect(HORSE_CONDITION_FIELDS).toHaveLength(23);
    expect(HORSE_MARKET_FIELDS).toHaveLength(6);
    expect(new Set(HORSE_CATALOGUE_FIELDS).size).toBe(79);
    const t = today();
    const runs = horseM();
    expect(Object.keys(horseFormFeatures(runs, t))).toEqual([...HORSE_FORM_FIELDS]);
    expect(Object.keys(horseRatingFeatures(runs, t, M_CONFIRMED))).toEqual([...HORSE_RATING_FIELDS]);
    expect(Object.keys(horseChangeFeatures(runs, t))).toEqual([...HORSE_CHANGE_FIELDS]);
    expect(Object.keys(horseEquipmentFeatures(runs, t))).toEqual([...HORSE_EQUIPMENT_FIELDS]);
    expect(Object.keys(horseConditionFeatures(runs, t))).toEqual([...HORSE_CONDITION_FIELDS]);
    expect(Object.keys(horseMarketFeatures(runs, t))).toEqual([...HORSE_MARKET_FIELDS]);
    expect(Object.keys(horseCatalogue(runs, t, M_CONFIRMED))).toEqual([...HORSE_CATALOGUE_FIELDS]);
  });
});

describe('horse M (non-finishers, a dead heat, a run without SP, unknown going/class/owner, invisible runs)', () => {
  const runs = horseM();
  const t = today();

  it('the confirmed vpr used below is what horseFeatures computes', () => {
    // figures newest first 82.0, 75.3, 70.0, 55.5, 60.0; weights 1, .8, .64, .512, .4096
    // (82 + 60.24 + 44.8 + 28.416 + 24.576) / 3.3616 = 240.032 / 3.3616 = 71.404 -> 71.4; 5/6 = 0.8333
    const f = horseFeatures(runs, {
      off: T0,
      courseId: 'crs_A',
      distanceYards: 1760,
      officialRating: 75,
      weightLbs: 130,
      raceClass: 4,
    });
    expect({ vpr: f.vpr, vprConfidence: f.vprConfidence, careerRuns: f.careerRuns }).toEqual({
      ...M_CONFIRMED,
      careerRuns: 7,
    });
  });

  it('C: horse form', () => {
    expect(horseFormFeatures(runs, t)).toEqual({
      careerWinRate: 0.2857, // wins i1 (dead heat), i3 = 2 / 7
      careerPlaces: 4, // i1, i2, i3, i6
      careerPlaceRate: 0.5714, // 4 / 7
      careerFormScore: 0.4286, // points 0,3,1,3,0,0,2 = 9; 9 / 7 / 3 = 0.428571
      formScoreLast3: 0.4444, // 0+3+1 = 4; 4 / 3 / 3
      formScoreLast6: 0.3889, // 0+3+1+3+0+0 = 7; 7 / 6 / 3 = 0.388888
      lastPosition: 0, // pulled up
      lastBeatenLengths: null, // non-finisher
      meanBeatenLengthsLast3: 1.125, // finishers among i0..i2: i1 0 (dead-heat winner), i2 2.25 -> 1.125 (4 dp)
      lastPrb: 0, // non-finisher
      meanPrbLast3: 0.6061, // i0 0, i1 (8-1)/7 = 1, i2 (12-3)/11 = 0.8182; 1.8182 / 3 = 20/33
      careerPrb: 0.5499, // 0 + 1 + 9/11 + (5-1)/4 + (14-11)/13 + 0 + (6-2)/5 = 3.848951; / 7 = 0.54985
      runsLast90Days: 2, // d = 20, 45
      runsLast365Days: 4, // d = 20, 45, 100, 200
      winsLast365Days: 2, // i1, i3
      daysSinceLastWin: 45, // i1
      runsSinceLastWin: 1, // i0
      isDebut: false,
      isReappearance: false, // lastRunDays 20
      nonCompletionsLast5: 1, // i0 (i5's fall is the 6th run)
      lastRunWon: false,
      winStreak: 0,
    });
  });

  it('D: ratings (the newest 3 runs that have a figure)', () => {
    expect(horseRatingFeatures(runs, t, M_CONFIRMED)).toEqual({
      lastFigure: null, // i0 pulled up
      bestFigureLast3: 82, // figures of i1, i2, i3: 82.0, 75.3, 70.0
      meanFigureLast3: 75.8, // 227.3 / 3 = 75.7667 (the last 3 runs' 82.0, 75.3 would give 78.7)
      careerBestFigure: 82,
      lastOfficialRating: 80,
      careerMaxOfficialRating: 80, // max(80, 78, 72, 0, 65, 68, 0)
      officialRatingVsCareerMax: -5, // 75 - 80
      lastWinOfficialRating: 78, // i1
      vprMinusOfficialRating: -3.6, // 71.4 - 75
    });
  });

  it('E: changes since the last run', () => {
    expect(horseChangeFeatures(runs, t)).toEqual({
      surfaceSwitch: false, // turf, turf
      disciplineSwitch: true, // hurdle -> flat
      firstTimeChase: false, // today flat
      firstTimeHurdle: false,
      firstTimeAw: false,
      handicapDebut: false, // today a handicap; i0, i1 were
      goingGroupChanged: true, // 3 -> 2
      fieldSizeDifference: 3, // 12 - 9
      untriedDistanceBucket: false, // mile: i1, i2, i3, i4, i6
      untriedGoingGroup: false, // good: i1, i4, i6
      untriedSurface: false,
      trainerChanged: false, // trn_1, trn_1
      runsForTrainer: 2, // trn_1: i0, i1
      jockeyChanged: true, // jky_2 -> jky_1
      ownerChanged: false, // own_1, own_1
    });
  });

  it('F: equipment, today in cheekpieces as last time', () => {
    expect(horseEquipmentFeatures(runs, t)).toEqual({
      firstTimeHeadgear: false,
      headgearChanged: false, // p, p
      headgearRemoved: false,
      runsInTodaysHeadgear: 2, // p: i0, i1 (not the invisible X1)
    });
  });

  it('G: the horse under today conditions', () => {
    // prettier-ignore
    expect(horseConditionFeatures(runs, t)).toEqual({
      // crs_A: i1, i2, i4, i5, i6; wins i1; points 3+1+0+0+2 = 6 -> 6 / 5 / 3
      horseCourseRuns: 5, horseCourseWins: 1, horseCourseFormScore: 0.4,
      // mile: i1 1760, i2 1800, i3 1600, i4 1760, i6 1760; wins i1, i3; 3+1+3+0+2 = 9 -> 9 / 5 / 3
      horseDistanceRuns: 5, horseDistanceWins: 2, horseDistanceFormScore: 0.6,
      // group 2: i1, i4, i6; 3+0+2 = 5 -> 5 / 3 / 3 = 0.5556
      horseGoingRuns: 3, horseGoingWins: 1, horseGoingFormScore: 0.5556,
      // turf: all but i3; 0+3+1+0+0+2 = 6 -> 6 / 6 / 3
      horseSurfaceRuns: 6, horseSurfaceWins: 1, horseSurfaceFormScore: 0.3333,
      // flat: all but i0; 3+1+3+0+0+2 = 9 -> 9 / 6 / 3
      horseDisciplineRuns: 6, horseDisciplineWins: 2, horseDisciplineFormScore: 0.5,
      // class known and <= 4: i0 (3), i1 (4), i4 (4), i5 (2), i6 (4), not i2 (0), i3 (5); 0+3+0+0+2 = 5 -> 5 / 5 / 3
      horseClassRuns: 5, horseClassWins: 1, horseClassFormScore: 0.3333,
      // crs_A and mile: i1, i2, i4, i6; 3+1+0+2 = 6 -> 6 / 4 / 3
      horseCourseDistanceRuns: 4, horseCourseDistanceWins: 1, horseCourseDistanceFormScore: 0.5,
      // jky_1: i1, i2, i4, i6
      horseJockeyRuns: 4, horseJockeyWins: 1,
    });
  });

  it('N: market history (the run without SP left out)', () => {
    expect(horseMarketFeatures(runs, t)).toEqual({
      lastStartingPrice: 6,
      lastRunFavourite: true,
      beatenFavouriteLast: true, // favourite and pulled up
      // newest 3 runs with an SP: i0 6, i1 4, i3 3 -> (1/6 + 1/4 + 1/3) / 3 = 0.25
      // (the last 3 runs' SPs, i0 and i1 only, would give 0.2083)
      meanImpliedProbabilityLast3: 0.25,
      careerFavouriteRuns: 3, // i0, i3, i6
      // SP runs i0, i1, i3, i4, i5, i6 (not i2): wins 2; 1/6 + 1/4 + 1/3 + 1/21 + 1/10 + 1/5.5 = 1.079437
      horseAe: 1.8528, // 2 / 1.079437 = 1.85282
    });
  });

  it('another today: unknown going, class, owner; new trainer; chase on AW at a new course and trip, no headgear', () => {
    const t2 = today({
      courseId: 'crs_Z',
      distanceYards: 3000,
      distanceBucket: 'staying',
      surface: 'aw',
      discipline: 'chase',
      goingGroup: 0,
      raceClass: 0,
      isHandicap: false,
      officialRating: 0,
      headgear: '',
      jockeyId: 'jky_2',
      trainerId: 'trn_9',
      ownerId: '',
      fieldSize: 5,
    });
    const all = horseCatalogue(runs, t2, M_CONFIRMED);
    expect(horseChangeFeatures(runs, t2)).toEqual({
      surfaceSwitch: true, // turf -> aw
      disciplineSwitch: true, // hurdle -> chase
      firstTimeChase: true,
      firstTimeHurdle: false, // today is not a hurdle
      firstTimeAw: false, // i3 was on aw
      handicapDebut: false, // today not a handicap
      goingGroupChanged: false, // today's unknown
      fieldSizeDifference: -4, // 5 - 9
      untriedDistanceBucket: true, // no staying run (i0 2640, i5 2300 are middle)
      untriedGoingGroup: false, // today's unknown
      untriedSurface: false, // i3
      trainerChanged: true, // trn_1 -> trn_9
      runsForTrainer: 0,
      jockeyChanged: false, // jky_2 both
      ownerChanged: false, // today's unknown
    });
    expect(horseEquipmentFeatures(runs, t2)).toEqual({
      firstTimeHeadgear: false, // no headgear today
      headgearChanged: true, // p -> none
      headgearRemoved: true,
      runsInTodaysHeadgear: 3, // none: i2, i5, i6
    });
    // prettier-ignore
    expect(horseConditionFeatures(runs, t2)).toEqual({
      horseCourseRuns: 0, horseCourseWins: 0, horseCourseFormScore: 0,
      horseDistanceRuns: 0, horseDistanceWins: 0, horseDistanceFormScore: 0,
      // today's going unknown: nothing in scope (not even i2, whose going is unknown too)
      horseGoingRuns: 0, horseGoingWins: 0, horseGoingFormScore: 0,
      horseSurfaceRuns: 1, horseSurfaceWins: 1, horseSurfaceFormScore: 1, // aw: i3 won, 3 / 1 / 3
      horseDisciplineRuns: 0, horseDisciplineWins: 0, horseDisciplineFormScore: 0,
      horseClassRuns: 0, horseClassWins: 0, horseClassFormScore: 0, // today's class unknown
      horseCourseDistanceRuns: 0, horseCourseDistanceWins: 0, horseCourseDistanceFormScore: 0,
      horseJockeyRuns: 1, horseJockeyWins: 0, // jky_2: i0
    });
    // unrated today: both rating comparisons unknown
    expect(all.officialRatingVsCareerMax).toBeNull();
    expect(all.vprMinusOfficialRating).toBeNull();
    expect(all.lastOfficialRating).toBe(80);
  });

  it('headgear: changed but not removed, none of the history in it', () => {
    expect(horseEquipmentFeatures(runs, today({ headgear: 'bt' }))).toEqual({
      firstTimeHeadgear: false, // i0, i1, i3, i4 had headgear
      headgearChanged: true, // p -> bt
      headgearRemoved: false,
      runsInTodaysHeadgear: 0,
    });
  });

  it('first time over hurdles or fences only when the horse has not run in that discipline', () => {
    expect(horseChangeFeatures(runs, today({ discipline: 'hurdle' })).firstTimeHurdle).toBe(false); // i0
    const chaser = [run('a', 30, { discipline: 'chase' })];
    expect(horseChangeFeatures(chaser, today({ discipline: 'chase' })).firstTimeChase).toBe(false);
    expect(horseChangeFeatures(chaser, today({ discipline: 'hurdle' })).firstTimeHurdle).toBe(true);
  });

  it('horseCatalogue fills the six families from one pass into one object, or into the given one', () => {
    const all = horseCatalogue(runs, t, M_CONFIRMED);
    expect(all).toEqual({
      ...horseFormFeatures(runs, t),
      ...horseRatingFeatures(runs, t, M_CONFIRMED),
      ...horseChangeFeatures(runs, t),
      ...horseEquipmentFeatures(runs, t),
      ...horseConditionFeatures(runs, t),
      ...horseMarketFeatures(runs, t),
    });
    const target = {} as ReturnType<typeof horseCatalogue>;
    expect(horseCatalogue(runs, t, M_CONFIRMED, target)).toBe(target);
    expect(target).toEqual(all);
  });

  it('the history is the visible one: dropping the invisible runs changes nothing, publishing X1 earlier does', () => {
    const visibleOnly = runs.filter((r) => r.raceId !== 'rac_X1' && r.raceId !== 'rac_X2');
    expect(horseCatalogue(visibleOnly, t, M_CONFIRMED)).toEqual(horseCatalogue(runs, t, M_CONFIRMED));
    const early = runs.map((r) => (r.raceId === 'rac_X1' ? { ...r, visibleAt: T0 - 1 } : r));
    const f = horseFormFeatures(early, t);
    expect(f.lastRunWon).toBe(true);
    expect(f.winStreak).toBe(1);
    expect(f.daysSinceLastWin).toBe(3);
  });
});

describe('debut: no visible run (the only run was published at the off)', () => {
  const runs = sorted({
    ...run('X', 5, { position: 1, headgear: 'b', discipline: 'chase', surface: 'aw' }),
    visibleAt: T0,
  });
  const t = today({ discipline: 'chase', surface: 'aw', goingGroup: 3, headgear: 'b', isHandicap: true });
  const all = horseCatalogue(runs, t, { vpr: 0, vprConfidence: 0 });

  it('C, D, N: zero counts and rates, nulls, 730 days since a win', () => {
    // prettier-ignore
    expect(horseFormFeatures(runs, t)).toEqual({
      careerWinRate: 0, careerPlaces: 0, careerPlaceRate: 0, careerFormScore: 0, formScoreLast3: 0, formScoreLast6: 0,
      lastPosition: null, lastBeatenLengths: null, meanBeatenLengthsLast3: null,
      lastPrb: null, meanPrbLast3: null, careerPrb: null,
      runsLast90Days: 0, runsLast365Days: 0, winsLast365Days: 0, daysSinceLastWin: 730, runsSinceLastWin: 0,
      isDebut: true, isReappearance: false, nonCompletionsLast5: 0, lastRunWon: false, winStreak: 0,
    });
    // prettier-ignore
    expect(horseRatingFeatures(runs, t, { vpr: 0, vprConfidence: 0 })).toEqual({
      lastFigure: null, bestFigureLast3: null, meanFigureLast3: null, careerBestFigure: null,
      lastOfficialRating: null, careerMaxOfficialRating: null, officialRatingVsCareerMax: null, lastWinOfficialRating: null,
      vprMinusOfficialRating: null, // rated today (75) but vprConfidence 0
    });
    // prettier-ignore
    expect(horseMarketFeatures(runs, t)).toEqual({
      lastStartingPrice: null, lastRunFavourite: false, beatenFavouriteLast: false, meanImpliedProbabilityLast3: null,
      careerFavouriteRuns: 0, horseAe: 0,
    });
  });

  it('E, F: comparisons false or null, first-time and untried true when today has the property', () => {
    // prettier-ignore
    expect(horseChangeFeatures(runs, t)).toEqual({
      surfaceSwitch: false, disciplineSwitch: false, goingGroupChanged: false, fieldSizeDifference: null,
      trainerChanged: false, jockeyChanged: false, ownerChanged: false, runsForTrainer: 0,
      // today: a handicap chase on AW, going group 3
      firstTimeChase: true, firstTimeHurdle: false, firstTimeAw: true, handicapDebut: true,
      untriedDistanceBucket: true, untriedGoingGroup: true, untriedSurface: true,
    });
    expect(horseEquipmentFeatures(runs, t)).toEqual({
      firstTimeHeadgear: true,
      headgearChanged: false,
      headgearRemoved: false,
      runsInTodaysHeadgear: 0,
    });
  });

  it('G: all zero', () => {
    for (const k of HORSE_CONDITION_FIELDS) expect(all[k]).toBe(0);
  });

  it('a debut over hurdles on unknown going, turf, not a handicap, no headgear', () => {
    const t2 = today({ discipline: 'hurdle', goingGroup: 0, isHandicap: false, headgear: '', officialRating: 0 });
    const e = horseChangeFeatures([], t2);
    expect([e.firstTimeHurdle, e.firstTimeChase, e.firstTimeAw, e.handicapDebut]).toEqual([true, false, false, false]);
    expect([e.untriedGoingGroup, e.untriedSurface, e.untriedDistanceBucket]).toEqual([false, true, true]);
    expect(horseEquipmentFeatures([], t2).firstTimeHeadgear).toBe(false);
    expect(horseRatingFeatures([], t2, { vpr: 0, vprConfidence: 0 }).vprMinusOfficialRating).toBeNull();
  });
});

describe('horse W: a win streak with a dead heat, then a break', () => {
  // newest first: i0 d=120 won outright (SP 2.375, fav); i1 d=150 dead heat for first (k = 2, SP 9);
  // i2 d=800 4th of 4 (PRB 0), no SP
  const runs = sorted(
    run('W1', 800, { position: 4, ran: 4, beatenLengths: 6, startingPrice: null, figure: 50 }),
    run('W2', 150, { position: 1, deadHeat: 2, ran: 10, beatenLengths: 0, startingPrice: 9, figure: 66.6 }),
    run('W3', 120, { position: 1, ran: 7, beatenLengths: 0, startingPrice: 2.375, favourite: true, figure: 71 }),
  );
  const t = today();

  it('C', () => {
    expect(horseFormFeatures(runs, t)).toEqual({
      careerWinRate: 0.6667, // 2 / 3
      careerPlaces: 2,
      careerPlaceRate: 0.6667,
      careerFormScore: 0.6667, // 3+3+0 = 6; 6 / 3 / 3
      formScoreLast3: 0.6667,
      formScoreLast6: 0.6667,
      lastPosition: 1,
      lastBeatenLengths: 0,
      meanBeatenLengthsLast3: 2, // 0, 0, 6 -> 2
      lastPrb: 1, // (7-1)/6
      meanPrbLast3: 0.6667, // 1, (10-1)/9 = 1, (4-4)/3 = 0
      careerPrb: 0.6667,
      runsLast90Days: 0,
      runsLast365Days: 2, // d 120, 150
      winsLast365Days: 2,
      daysSinceLastWin: 120,
      runsSinceLastWin: 0,
      isDebut: false,
      isReappearance: true, // lastRunDays 120 >= 90
      nonCompletionsLast5: 0,
      lastRunWon: true,
      winStreak: 2, // the dead heat is a win
    });
  });

  it('N: SP rounded to 2 dp half away from zero; A/E counts the dead heat as a win', () => {
    expect(horseMarketFeatures(runs, t)).toEqual({
      lastStartingPrice: 2.38, // 2.375
      lastRunFavourite: true,
      beatenFavouriteLast: false, // it won
      meanImpliedProbabilityLast3: 0.2661, // SP runs i0, i1: (1/2.375 + 1/9) / 2 = (0.421053 + 0.111111) / 2 = 0.266082
      careerFavouriteRuns: 1,
      horseAe: 3.7582, // 2 wins / 0.532164 = 3.75824
    });
  });

  it('level stakes: SP / k - 1 for a win in a k-way dead heat, -1 otherwise, no-SP runs left out', () => {
    expect(levelStake(1, 2, 9)).toBe(3.5); // 9 / 2 - 1
    expect(levelStake(1, 1, 2.375)).toBe(1.375);
    expect(levelStake(4, 1, 5)).toBe(-1);
    expect(levelStake(2, 1, 5)).toBe(-1); // placed is still a loss
    expect(levelStake(0, 1, 5)).toBe(-1);
    expect(levelStake(1, 1, null)).toBeNull();
    expect(levelStakes(runs)).toBe(4.88); // 1.375 + 3.5 = 4.875 -> 4.88 (W1 has no SP)
  });

  it('D: a win at an unrated run gives no lastWinOfficialRating', () => {
    const unrated = runs.map((r) => (r.raceId === 'rac_W3' ? { ...r, officialRating: 0 } : r));
    const d = horseRatingFeatures(unrated, t, { vpr: 67.5, vprConfidence: 0.5 });
    expect(d).toEqual({
      lastFigure: 71,
      bestFigureLast3: 71, // 71, 66.6, 50
      meanFigureLast3: 62.5, // 187.6 / 3 = 62.5333
      careerBestFigure: 71,
      lastOfficialRating: null,
      careerMaxOfficialRating: 70,
      officialRatingVsCareerMax: 5, // 75 - 70
      lastWinOfficialRating: null, // W3 was unrated
      vprMinusOfficialRating: -7.5, // 67.5 - 75
    });
  });
});

describe('edges', () => {
  it('daysSinceLastWin is capped at 729 and runsSinceLastWin counts runs newer than the win', () => {
    const runs = sorted(run('a', 800, { position: 1 }), run('b', 100), run('c', 50));
    const f = horseFormFeatures(runs, today());
    expect([f.daysSinceLastWin, f.runsSinceLastWin]).toEqual([729, 2]);
    expect(horseFormFeatures(sorted(run('a', 729, { position: 1 })), today()).daysSinceLastWin).toBe(729);
    expect(horseFormFeatures(sorted(run('a', 728, { position: 1 })), today()).daysSinceLastWin).toBe(728);
    // no win: careerRuns
    expect(horseFormFeatures(sorted(run('a', 10), run('b', 5)), today()).runsSinceLastWin).toBe(2);
  });

  it('isReappearance from 90 calendar days', () => {
    expect(horseFormFeatures([run('a', 90)], today()).isReappearance).toBe(true);
    expect(horseFormFeatures([run('a', 89)], today()).isReappearance).toBe(false);
  });

  it('windows are absolute instants [off - 90 days, off)', () => {
    const at = (off: number) => ({ ...run('w', 0), off, visibleAt: off + 1 });
    expect(horseFormFeatures([at(T0 - 90 * DAY)], today()).runsLast90Days).toBe(1);
    expect(horseFormFeatures([at(T0 - 90 * DAY - 1)], today()).runsLast90Days).toBe(0);
    expect(horseFormFeatures([at(T0 - 365 * DAY)], today()).runsLast365Days).toBe(1);
    expect(horseFormFeatures([at(T0 - 365 * DAY - 1)], today()).runsLast365Days).toBe(0);
  });

  it('PRB: 1 for a finisher when ran = 1, 0 for a non-finisher', () => {
    expect(prb(1, 1)).toBe(1);
    expect(prb(0, 1)).toBe(0);
    expect(prb(0, 12)).toBe(0);
    expect(prb(3, 12)).toBeCloseTo(9 / 11, 12);
    const f = horseFormFeatures([run('a', 30, { position: 1, ran: 1 })], today());
    expect([f.lastPrb, f.careerPrb]).toEqual([1, 1]);
    // "last 3 (or fewer)": one run is a mean over one run
    expect([f.meanPrbLast3, f.formScoreLast3, f.formScoreLast6]).toEqual([1, 1, 1]);
  });

  it('A/E counts wins only among runs with an SP', () => {
    // a win without SP, a loss at SP 4: 0 wins / 0.25 = 0; a wrong count would give 4
    const runs = sorted(run('a', 30, { position: 1, startingPrice: null }), run('b', 20, { startingPrice: 4 }));
    expect(horseMarketFeatures(runs, today()).horseAe).toBe(0);
    // no SP at all: 0
    expect(horseMarketFeatures([run('a', 30, { startingPrice: null })], today())).toMatchObject({
      horseAe: 0,
      meanImpliedProbabilityLast3: null,
      lastStartingPrice: null,
    });
  });

  it('unknown trainer, owner and going of the last run are no change; a known owner change is', () => {
    const unknown = [run('a', 10, { trainerId: '', ownerId: '', goingGroup: 0 })];
    const e = horseChangeFeatures(unknown, today({ goingGroup: 3 }));
    expect([e.trainerChanged, e.ownerChanged, e.goingGroupChanged, e.untriedGoingGroup, e.runsForTrainer]).toEqual([
      false,
      false,
      false,
      true,
      0,
    ]);
    const known = [run('a', 10, { trainerId: 'trn_2', ownerId: 'own_2', goingGroup: 1 })];
    const k = horseChangeFeatures(known, today({ goingGroup: 3, trainerId: '' }));
    expect([k.trainerChanged, k.ownerChanged, k.goingGroupChanged, k.runsForTrainer]).toEqual([false, true, true, 0]);
    // unknown today and unknown on the run are not "the same trainer"
    expect(horseChangeFeatures(unknown, today({ trainerId: '' })).runsForTrainer).toBe(0);
  });

  it('headgear compares canonical text: hp last time, h today', () => {
    const f = horseEquipmentFeatures([run('a', 10, { headgear: 'hp' })], today({ headgear: 'h' }));
    expect(f).toEqual({
      firstTimeHeadgear: false,
      headgearChanged: true,
      headgearRemoved: false,
      runsInTodaysHeadgear: 0,
    });
    const bare = horseEquipmentFeatures([run('a', 10)], today({ headgear: '' }));
    expect(bare).toEqual({
      firstTimeHeadgear: false,
      headgearChanged: false,
      headgearRemoved: false,
      runsInTodaysHeadgear: 1,
    });
    const first = horseEquipmentFeatures([run('a', 10), run('b', 5)], today({ headgear: 't' }));
    expect(first).toEqual({
      firstTimeHeadgear: true,
      headgearChanged: true,
      headgearRemoved: false,
      runsInTodaysHeadgear: 0,
    });
  });

  it('a winner is 0 lengths behind even when the feed has no lengths for it', () => {
    // last 3: won (lengths null), 2nd by 1.5, 4th by 4.5 -> (0 + 1.5 + 4.5) / 3 = 2
    const runs = sorted(
      run('a', 30, { position: 4, beatenLengths: 4.5 }),
      run('b', 20, { position: 2, beatenLengths: 1.5 }),
      run('c', 10, { position: 1, beatenLengths: null }),
    );
    const f = horseFormFeatures(runs, today());
    expect([f.lastBeatenLengths, f.meanBeatenLengthsLast3]).toEqual([0, 2]);
  });

  it('a non-finisher last time with recorded lengths still has no beaten lengths; a loser with them has', () => {
    const f = horseFormFeatures([run('a', 10, { position: 0, beatenLengths: 12 })], today());
    expect([f.lastBeatenLengths, f.meanBeatenLengthsLast3]).toEqual([null, null]);
    const g = horseFormFeatures([run('a', 10, { position: 4, beatenLengths: 3.333 })], today());
    expect([g.lastBeatenLengths, g.meanBeatenLengthsLast3]).toEqual([3.333, 3.333]);
  });
});
