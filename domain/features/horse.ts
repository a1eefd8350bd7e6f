/**
 * Horse features (features.md): functions of the race's own card and the horse's visible history only.
 */
import { round1, round4 } from '../rounding.js';
import { utcDaysBetween } from '../time.js';

/** One run of a horse, as recorded when its race's result is in. */
export interface HorseRun {
  raceId: string;
  off: number;
  /** max(result publishedAt, off): the run counts for a race off at T iff visibleAt < T */
  visibleAt: number;
  courseId: string;
  /** actual finishing position (may exceed 9; shared in a dead heat); 0 = did not finish */
  position: number;
  /** run figure rounded to 0.1, null for a non-finisher */
  figure: number | null;
  distanceYards: number;
  /** 0 unknown */
  officialRating: number;
  weightLbs: number;
  /** 0 unknown */
  raceClass: number;
  /** runners in the result (finishers and non-finishers): PRB's `ran` */
  ran: number;
  /** cumulative lengths behind the winner (0 for the winner); null for a non-finisher */
  beatenLengths: number | null;
  /** decimal starting price (stake included); null when the result has none */
  startingPrice: number | null;
  /** favourite (joint/co included) */
  favourite: boolean;
  /** how many runners share this position (k of a k-way dead heat; 1 normally) */
  deadHeat: number;
  /** turf | aw */
  surface: string;
  /** flat | hurdle | chase | nh-flat */
  discipline: string;
  /** catalogue.md going group code, 0 unknown */
  goingGroup: number;
  isHandicap: boolean;
  /** canonical headgear text ('' none) of the card used for that race */
  headgear: string;
  jockeyId: string;
  trainerId: string;
  /** '' unknown */
  ownerId: string;
  /**
   * The run of a result version a correction superseded after the off: it counts for a race off at T
   * iff visibleAt < T <= supersededAt (when the next version became visible). Absent or null for the
   * run of the latest version.
   */
  supersededAt?: number | null;
}

/** Whether a run counts for a race off at t: visible before t, and not superseded by a version visible before t. */
export function runCounts(r: HorseRun, t: number): boolean {
  if (!(r.visibleAt < t)) return false;
  const s = r.supersededAt;
  return s === undefined || s === null || t <= s;
}

/**
 * Today's race and runner as the catalogue's horse-history families (C, D, E, F, G, N) compare
 * against them: all from the card used for the race's own fields.
 */
export interface TodayContext {
  off: number;
  courseId: string;
  distanceYards: number;
  /** sprint | mile | middle | staying */
  distanceBucket: string;
  surface: string;
  discipline: string;
  /** going group code, 0 unknown */
  goingGroup: number;
  /** 0 unknown */
  raceClass: number;
  isHandicap: boolean;
  /** 0 unrated */
  officialRating: number;
  weightLbs: number;
  /** canonical headgear text, '' none */
  headgear: string;
  jockeyId: string;
  trainerId: string;
  /** '' unknown */
  ownerId: string;
  /** declared runners less non-runners on the card used */
  fieldSize: number;
}

/** The race's own facts that horse features compare against. */
export interface HorseContext {
  off: number;
  courseId: string;
  distanceYards: number;
  officialRating: number;
  weightLbs: number;
  raceClass: number;
}

export interface HorseFeatures {
  careerRuns: number;
  careerWins: number;
  courseForm: number;
  courseFormRuns: number;
  winRatioLast5: number;
  vpr: number;
  vprConfidence: number;
  improvingVpr: boolean;
  distanceDifferenceY: number;
  ratingDifference: number;
  weightDifferenceLbs: number;
  classDifference: number;
  lastRunDays: number;
  /** latest visibleAt among the runs used (and supersededAt among runs superseded before the off), 0 when none */
  latestVisible: number;
}

export const NO_PREVIOUS_RUN_DELTA = -999;
export const NO_PREVIOUS_RUN_DAYS = 730;

/** Form points: 3 for a win, 2 for 2nd, 1 for 3rd, else 0 (position 0 scores 0). */
export function formPoints(position: number): number {
  return position === 1 ? 3 : position === 2 ? 2 : position === 3 ? 1 : 0;
}

/**
 * Runs counting at T (runCounts), newest first. `runs` is sorted by (off, raceId, visibleAt) ascending,
 * so newest first is (off, raceId) descending (at most one version of a race counts at T): a total
 * order, so ties are broken the same way in every replay.
 */
export function visibleHistory(runs: readonly HorseRun[], t: number): HorseRun[] {
  const out: HorseRun[] = [];
  for (let i = runs.length - 1; i >= 0; i--) {
    const r = runs[i]!;
    if (runCounts(r, t)) out.push(r);
  }
  return out;
}

/** Every horse feature of features.md for a race off at ctx.off. */
export function horseFeatures(runs: readonly HorseRun[], ctx: HorseContext): HorseFeatures {
  const h = visibleHistory(runs, ctx.off);
  const careerRuns = h.length;
  let careerWins = 0;
  let latestVisible = 0;
  for (const r of h) {
    if (r.position === 1) careerWins++;
    if (r.visibleAt > latestVisible) latestVisible = r.visibleAt;
  }
  // a run superseded before the off: the correction that ended it is an input visible at the off (a run
  // that counts at the off was superseded, if at all, at or after it)
  for (const r of runs) {
    const s = r.supersededAt;
    if (s !== undefined && s !== null && s < ctx.off && s > latestVisible) latestVisible = s;
  }

  const atCourse = h.filter((r) => r.courseId === ctx.courseId).slice(0, 5);
  const courseForm = atCourse.length === 0 ? 0 : round4(sumForm(atCourse) / atCourse.length / 3);

  const last5 = h.slice(0, 5);
  const winRatioLast5 = last5.length === 0 ? 0 : round4(last5.filter((r) => r.position === 1).length / last5.length);

  const figures: number[] = [];
  for (const r of h) {
    if (r.figure !== null) {
      figures.push(r.figure);
      if (figures.length === 6) break;
    }
  }
  let vpr = 0;
  if (figures.length > 0) {
    let num = 0;
    let den = 0;
    let w = 1;
    for (const f of figures) {
      num += w * f;
      den += w;
      w *= 0.8;
    }
    vpr = round1(num / den);
  }
  const vprConfidence = round4(Math.min(figures.length, 6) / 6);
  // Figures are multiples of 0.1: compare in integer tenths, so an exact tie is not "greater".
  let improvingVpr = false;
  if (figures.length >= 3) {
    const tenths = figures.map((f) => Math.round(f * 10));
    const others = tenths.slice(1).reduce((a, b) => a + b, 0);
    improvingVpr = tenths[0]! * (tenths.length - 1) > others;
  }

  const last = h[0];
  const known = (a: number, b: number) => a > 0 && b > 0;
  return {
    careerRuns,
    careerWins,
    courseForm,
    courseFormRuns: atCourse.length,
    winRatioLast5,
    vpr,
    vprConfidence,
    improvingVpr,
    distanceDifferenceY: last ? ctx.distanceYards - last.distanceYards : NO_PREVIOUS_RUN_DELTA,
    ratingDifference:
      last && known(ctx.officialRating, last.officialRating)
        ? ctx.officialRating - last.officialRating
        : NO_PREVIOUS_RUN_DELTA,
    weightDifferenceLbs: last ? ctx.weightLbs - last.weightLbs : NO_PREVIOUS_RUN_DELTA,
    classDifference:
      last && known(ctx.raceClass, last.raceClass) ? last.raceClass - ctx.raceClass : NO_PREVIOUS_RUN_DELTA,
    lastRunDays: last ? Math.min(utcDaysBetween(last.off, ctx.off), NO_PREVIOUS_RUN_DAYS - 1) : NO_PREVIOUS_RUN_DAYS,
    latestVisible,
  };
}

function sumForm(runs: readonly HorseRun[]): number {
  let s = 0;
  for (const r of runs) s += formPoints(r.position);
  return s;
}

/** Class par used as the figure standard when no runner of the race is rated (features.md). */
export function classPar(raceClass: number): number {
  const pars = [110, 95, 85, 75, 65, 55, 45];
  return raceClass >= 1 && raceClass <= 7 ? pars[raceClass - 1]! : 60;
}

/**
 * Run figure of a finisher (features.md):
 * standard - min(beatenLengths, 30) * lbsPerLength + (weightLbs - 140) * 0.5, rounded to 0.1.
 * `ratedOfFinalCard` are the official ratings (> 0) of the runners of the race's final card.
 */
export function runFigure(input: {
  position: number;
  beatenLengths: number;
  weightLbs: number;
  distanceYards: number;
  raceClass: number;
  ratedOfFinalCard: readonly number[];
}): number | null {
  if (input.position < 1) return null;
  const rated = input.ratedOfFinalCard.filter((r) => r > 0);
  const standard = rated.length > 0 ? rated.reduce((a, b) => a + b, 0) / rated.length : classPar(input.raceClass);
  const lbsPerLength = Math.min(3.0, Math.max(0.5, 3300 / input.distanceYards));
  return round1(standard - Math.min(input.beatenLengths, 30) * lbsPerLength + (input.weightLbs - 140) * 0.5);
}
