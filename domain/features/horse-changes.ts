/**
 * catalogue.md families E (changes since the last run), F (equipment) and G (the horse under
 * today's conditions): functions of the horse's visible history and today's card. Writers fill a
 * family from one HistoryScan; the (runs, today) functions are for callers that want one family.
 */
import type { HorseRun, TodayContext } from './horse.js';
import { formScore, type HistoryScan, scanHistory } from './horse-scan.js';

/**
 * E. Changes since the last run — 15 fields. With no previous run: counts 0, comparisons false
 * (fieldSizeDifference null), the "first time" and "untried" fields true when today's race has the
 * property (untriedGoingGroup false when today's going group is unknown).
 */
export interface HorseChangeFeatures {
  surfaceSwitch: boolean;
  disciplineSwitch: boolean;
  firstTimeChase: boolean;
  firstTimeHurdle: boolean;
  firstTimeAw: boolean;
  handicapDebut: boolean;
  /** both going groups known and different */
  goingGroupChanged: boolean;
  /** today's fieldSize minus the last run's ran; null with no run */
  fieldSizeDifference: number | null;
  untriedDistanceBucket: boolean;
  untriedGoingGroup: boolean;
  untriedSurface: boolean;
  /** both trainers known and different */
  trainerChanged: boolean;
  /** runs with today's trainer (0 when today's trainer is unknown) */
  runsForTrainer: number;
  jockeyChanged: boolean;
  /** both owners known and different */
  ownerChanged: boolean;
}

/** F. Equipment — 4 fields, on canonical headgear text ('' = none). */
export interface HorseEquipmentFeatures {
  firstTimeHeadgear: boolean;
  headgearChanged: boolean;
  headgearRemoved: boolean;
  /** runs whose headgear equals today's, '' (none) included */
  runsInTodaysHeadgear: number;
}

/** G. The horse under today's conditions — 23 fields (7 scopes x runs, wins, form score; jockey runs, wins). */
export interface HorseConditionFeatures {
  horseCourseRuns: number;
  horseCourseWins: number;
  horseCourseFormScore: number;
  horseDistanceRuns: number;
  horseDistanceWins: number;
  horseDistanceFormScore: number;
  horseGoingRuns: number;
  horseGoingWins: number;
  horseGoingFormScore: number;
  horseSurfaceRuns: number;
  horseSurfaceWins: number;
  horseSurfaceFormScore: number;
  horseDisciplineRuns: number;
  horseDisciplineWins: number;
  horseDisciplineFormScore: number;
  horseClassRuns: number;
  horseClassWins: number;
  horseClassFormScore: number;
  horseCourseDistanceRuns: number;
  horseCourseDistanceWins: number;
  horseCourseDistanceFormScore: number;
  horseJockeyRuns: number;
  horseJockeyWins: number;
}

export const HORSE_CHANGE_FIELDS = [
  'surfaceSwitch',
  'disciplineSwitch',
  'firstTimeChase',
  'firstTimeHurdle',
  'firstTimeAw',
  'handicapDebut',
  'goingGroupChanged',
  'fieldSizeDifference',
  'untriedDistanceBucket',
  'untriedGoingGroup',
  'untriedSurface',
  'trainerChanged',
  'runsForTrainer',
  'jockeyChanged',
  'ownerChanged',
] as const satisfies readonly (keyof HorseChangeFeatures)[];

export const HORSE_EQUIPMENT_FIELDS = [
  'firstTimeHeadgear',
  'headgearChanged',
  'headgearRemoved',
  'runsInTodaysHeadgear',
] as const satisfies readonly (keyof HorseEquipmentFeatures)[];

export const HORSE_CONDITION_FIELDS = [
  'horseCourseRuns',
  'horseCourseWins',
  'horseCourseFormScore',
  'horseDistanceRuns',
  'horseDistanceWins',
  'horseDistanceFormScore',
  'horseGoingRuns',
  'horseGoingWins',
  'horseGoingFormScore',
  'horseSurfaceRuns',
  'horseSurfaceWins',
  'horseSurfaceFormScore',
  'horseDisciplineRuns',
  'horseDisciplineWins',
  'horseDisciplineFormScore',
  'horseClassRuns',
  'horseClassWins',
  'horseClassFormScore',
  'horseCourseDistanceRuns',
  'horseCourseDistanceWins',
  'horseCourseDistanceFormScore',
  'horseJockeyRuns',
  'horseJockeyWins',
] as const satisfies readonly (keyof HorseConditionFeatures)[];

/**
 * Fills family E from a scan. The "first time" and "untried" fields read G's scope counts: a chase
 * today with no run in today's discipline is a first-time chase, and so on.
 */
export function writeHorseChanges(out: HorseChangeFeatures, s: HistoryScan, today: TodayContext): void {
  const last = s.last;
  out.surfaceSwitch = last !== undefined && last.surface !== today.surface;
  out.disciplineSwitch = last !== undefined && last.discipline !== today.discipline;
  out.firstTimeChase = today.discipline === 'chase' && s.disciplineRuns === 0;
  out.firstTimeHurdle = today.discipline === 'hurdle' && s.disciplineRuns === 0;
  out.firstTimeAw = today.surface === 'aw' && s.surfaceRuns === 0;
  out.handicapDebut = today.isHandicap && !s.anyHandicap;
  out.goingGroupChanged =
    last !== undefined && last.goingGroup > 0 && today.goingGroup > 0 && last.goingGroup !== today.goingGroup;
  out.fieldSizeDifference = last ? today.fieldSize - last.ran : null;
  out.untriedDistanceBucket = s.distanceRuns === 0;
  // the going scope is empty when today's group is unknown, so test the knowledge first
  out.untriedGoingGroup = today.goingGroup > 0 && s.goingRuns === 0;
  out.untriedSurface = s.surfaceRuns === 0;
  out.trainerChanged =
    last !== undefined && last.trainerId !== '' && today.trainerId !== '' && last.trainerId !== today.trainerId;
  out.runsForTrainer = s.runsForTrainer;
  out.jockeyChanged = last !== undefined && last.jockeyId !== today.jockeyId;
  out.ownerChanged =
    last !== undefined && last.ownerId !== '' && today.ownerId !== '' && last.ownerId !== today.ownerId;
}

/** Fills family F from a scan. */
export function writeHorseEquipment(out: HorseEquipmentFeatures, s: HistoryScan, today: TodayContext): void {
  const last = s.last;
  out.firstTimeHeadgear = today.headgear !== '' && !s.anyHeadgear;
  out.headgearChanged = last !== undefined && last.headgear !== today.headgear;
  out.headgearRemoved = last !== undefined && last.headgear !== '' && today.headgear === '';
  out.runsInTodaysHeadgear = s.runsInTodaysHeadgear;
}

/** Fills family G from a scan. */
export function writeHorseConditions(out: HorseConditionFeatures, s: HistoryScan): void {
  out.horseCourseRuns = s.courseRuns;
  out.horseCourseWins = s.courseWins;
  out.horseCourseFormScore = formScore(s.courseForm, s.courseRuns);
  out.horseDistanceRuns = s.distanceRuns;
  out.horseDistanceWins = s.distanceWins;
  out.horseDistanceFormScore = formScore(s.distanceForm, s.distanceRuns);
  out.horseGoingRuns = s.goingRuns;
  out.horseGoingWins = s.goingWins;
  out.horseGoingFormScore = formScore(s.goingForm, s.goingRuns);
  out.horseSurfaceRuns = s.surfaceRuns;
  out.horseSurfaceWins = s.surfaceWins;
  out.horseSurfaceFormScore = formScore(s.surfaceForm, s.surfaceRuns);
  out.horseDisciplineRuns = s.disciplineRuns;
  out.horseDisciplineWins = s.disciplineWins;
  out.horseDisciplineFormScore = formScore(s.disciplineForm, s.disciplineRuns);
  out.horseClassRuns = s.classRuns;
  out.horseClassWins = s.classWins;
  out.horseClassFormScore = formScore(s.classForm, s.classRuns);
  out.horseCourseDistanceRuns = s.courseDistanceRuns;
  out.horseCourseDistanceWins = s.courseDistanceWins;
  out.horseCourseDistanceFormScore = formScore(s.courseDistanceForm, s.courseDistanceRuns);
  out.horseJockeyRuns = s.jockeyRuns;
  out.horseJockeyWins = s.jockeyWins;
}

/** Family E for a race off at today.off (one scan). */
export function horseChangeFeatures(runs: readonly HorseRun[], today: TodayContext): HorseChangeFeatures {
  const out = {} as HorseChangeFeatures;
  writeHorseChanges(out, scanHistory(runs, today), today);
  return out;
}

/** Family F for a race off at today.off. */
export function horseEquipmentFeatures(runs: readonly HorseRun[], today: TodayContext): HorseEquipmentFeatures {
  const out = {} as HorseEquipmentFeatures;
  writeHorseEquipment(out, scanHistory(runs, today), today);
  return out;
}

/** Family G for a race off at today.off. */
export function horseConditionFeatures(runs: readonly HorseRun[], today: TodayContext): HorseConditionFeatures {
  const out = {} as HorseConditionFeatures;
  writeHorseConditions(out, scanHistory(runs, today));
  return out;
}
