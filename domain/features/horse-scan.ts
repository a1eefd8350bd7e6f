/**
 * One pass over a horse's visible history that gathers every sum and count the catalogue's
 * horse-history families (C, D, E, F, G, N; catalogue.md) read. The family builders in
 * horse-form.ts and horse-changes.ts turn a scan into fields without looking at the runs again, so
 * a full rebuild (millions of rows) walks each history once, allocating nothing but the scan.
 */
import { distanceBucket } from '../codes.js';
import { round4 } from '../rounding.js';
import { MS_PER_DAY, utcDaysBetween } from '../time.js';
import { formPoints, type HorseRun, NO_PREVIOUS_RUN_DAYS, runCounts, type TodayContext } from './horse.js';

export const DAYS_365 = 365 * MS_PER_DAY;
const DAYS_90_MS = 90 * MS_PER_DAY;

/**
 * PRB (catalogue.md "Shared definitions"): (ran - pos) / (ran - 1) for a finisher, 0 for a
 * non-finisher, 1 when ran = 1. The ran = 1 clause exists to avoid the empty denominator, which
 * only a finisher can meet, so a non-finisher scores 0 even in a one-runner race. ran < 1 (a result
 * that lists fewer runners than it should) is treated like ran = 1 for the same reason.
 */
export function prb(position: number, ran: number): number {
  if (position < 1) return 0;
  if (ran <= 1) return 1;
  return (ran - position) / (ran - 1);
}

/** An SP usable in SP sums: present and a real decimal price (stake included, so > 0). */
export function hasSp(sp: number | null): sp is number {
  return sp !== null && sp > 0;
}

/**
 * The result of the pass. A class so every scan has the same shape (one hidden class, fields in
 * object), and so the defaults below are the "no run" values.
 */
export class HistoryScan {
  /** the last (newest visible) run */
  last: HorseRun | undefined = undefined;
  /** careerRuns */
  n = 0;
  wins = 0;
  places = 0;
  formSum = 0;
  formSumLast3 = 0;
  formSumLast6 = 0;
  /** finishers with known beaten lengths among the last 3 runs */
  beatenLengthsSumLast3 = 0;
  beatenLengthsNLast3 = 0;
  prbSum = 0;
  prbSumLast3 = 0;
  runs90 = 0;
  runs365 = 0;
  wins365 = 0;
  /** index in the history (newest = 0) of the last win, -1 none */
  lastWinIndex = -1;
  lastWinOff = 0;
  lastWinRating = 0;
  nonCompletionsLast5 = 0;
  winStreak = 0;
  /** lastRunDays as features.md (capped at 729; 730 when no run) */
  lastRunDays = NO_PREVIOUS_RUN_DAYS;

  /** the newest 3 runs that have a figure */
  figuresLast3N = 0;
  figuresLast3Sum = 0;
  figuresLast3Best = Number.NEGATIVE_INFINITY;
  careerBestFigure = Number.NEGATIVE_INFINITY;
  /** 0 when no rated run */
  careerMaxRating = 0;

  anyHandicap = false;
  anyHeadgear = false;
  runsForTrainer = 0;
  runsInTodaysHeadgear = 0;

  courseRuns = 0;
  courseWins = 0;
  courseForm = 0;
  distanceRuns = 0;
  distanceWins = 0;
  distanceForm = 0;
  goingRuns = 0;
  goingWins = 0;
  goingForm = 0;
  surfaceRuns = 0;
  surfaceWins = 0;
  surfaceForm = 0;
  disciplineRuns = 0;
  disciplineWins = 0;
  disciplineForm = 0;
  classRuns = 0;
  classWins = 0;
  classForm = 0;
  courseDistanceRuns = 0;
  courseDistanceWins = 0;
  courseDistanceForm = 0;
  jockeyRuns = 0;
  jockeyWins = 0;

  favouriteRuns = 0;
  /** the newest 3 runs that have an SP: their count and sum of 1/SP */
  spLast3N = 0;
  spLast3InvSum = 0;
  /** A/E over all runs: wins among SP runs, sum of 1/SP */
  spWins = 0;
  spInvSum = 0;
}

/**
 * Scans the runs of `runs` visible at today.off, newest first, exactly as visibleHistory does
 * (`runs` sorted by (off, raceId, visibleAt) ascending, as the engine stores them; a run counts as
 * `runCounts` says), without building the filtered array.
 */
export function scanHistory(runs: readonly HorseRun[], today: TodayContext): HistoryScan {
  const s = new HistoryScan();
  const off = today.off;
  const from90 = off - DAYS_90_MS;
  const from365 = off - DAYS_365;
  const goingKnown = today.goingGroup > 0;
  const classKnown = today.raceClass > 0;
  const trainerKnown = today.trainerId !== '';
  const jockeyKnown = today.jockeyId !== '';
  let streakOpen = true;
  let i = 0; // index of the run in the visible history, newest = 0
  for (let j = runs.length - 1; j >= 0; j--) {
    const r = runs[j]!;
    if (!runCounts(r, off)) continue;
    if (i === 0) {
      s.last = r;
      s.lastRunDays = Math.min(utcDaysBetween(r.off, off), NO_PREVIOUS_RUN_DAYS - 1);
    }
    const pos = r.position;
    const win = pos === 1;
    const w = win ? 1 : 0;
    const pts = formPoints(pos);
    const p = prb(pos, r.ran);

    // C
    if (win) s.wins++;
    if (pos >= 1 && pos <= 3) s.places++;
    s.formSum += pts;
    s.prbSum += p;
    if (i < 3) {
      s.formSumLast3 += pts;
      s.prbSumLast3 += p;
      // a winner is 0 lengths behind whatever the feed says (a dead heat for first included)
      if (pos >= 1 && (win || r.beatenLengths !== null)) {
        s.beatenLengthsSumLast3 += win ? 0 : r.beatenLengths!;
        s.beatenLengthsNLast3++;
      }
    }
    if (i < 6) s.formSumLast6 += pts;
    if (i < 5 && pos === 0) s.nonCompletionsLast5++;
    if (r.off >= from365) {
      s.runs365++;
      s.wins365 += w;
      if (r.off >= from90) s.runs90++;
    }
    if (win && s.lastWinIndex < 0) {
      s.lastWinIndex = i;
      s.lastWinOff = r.off;
      s.lastWinRating = r.officialRating;
    }
    if (streakOpen) {
      if (win) s.winStreak++;
      else streakOpen = false;
    }

    // D
    const fig = r.figure;
    if (fig !== null) {
      if (fig > s.careerBestFigure) s.careerBestFigure = fig;
      if (s.figuresLast3N < 3) {
        s.figuresLast3N++;
        s.figuresLast3Sum += fig;
        if (fig > s.figuresLast3Best) s.figuresLast3Best = fig;
      }
    }
    if (r.officialRating > s.careerMaxRating) s.careerMaxRating = r.officialRating;

    // E, F
    if (r.isHandicap) s.anyHandicap = true;
    if (r.headgear !== '') s.anyHeadgear = true;
    if (trainerKnown && r.trainerId === today.trainerId) s.runsForTrainer++;
    if (r.headgear === today.headgear) s.runsInTodaysHeadgear++;

    // G (E's untried/first-time fields read these counts too)
    const sameCourse = r.courseId === today.courseId;
    const sameDistance = distanceBucket(r.distanceYards) === today.distanceBucket;
    if (sameCourse) {
      s.courseRuns++;
      s.courseWins += w;
      s.courseForm += pts;
      if (sameDistance) {
        s.courseDistanceRuns++;
        s.courseDistanceWins += w;
        s.courseDistanceForm += pts;
      }
    }
    if (sameDistance) {
      s.distanceRuns++;
      s.distanceWins += w;
      s.distanceForm += pts;
    }
    if (goingKnown && r.goingGroup === today.goingGroup) {
      s.goingRuns++;
      s.goingWins += w;
      s.goingForm += pts;
    }
    if (r.surface === today.surface) {
      s.surfaceRuns++;
      s.surfaceWins += w;
      s.surfaceForm += pts;
    }
    if (r.discipline === today.discipline) {
      s.disciplineRuns++;
      s.disciplineWins += w;
      s.disciplineForm += pts;
    }
    if (classKnown && r.raceClass > 0 && r.raceClass <= today.raceClass) {
      s.classRuns++;
      s.classWins += w;
      s.classForm += pts;
    }
    if (jockeyKnown && r.jockeyId === today.jockeyId) {
      s.jockeyRuns++;
      s.jockeyWins += w;
    }

    // N
    if (r.favourite) s.favouriteRuns++;
    const sp = r.startingPrice;
    if (hasSp(sp)) {
      const inv = 1 / sp;
      s.spInvSum += inv;
      s.spWins += w;
      if (s.spLast3N < 3) {
        s.spLast3N++;
        s.spLast3InvSum += inv;
      }
    }
    i++;
  }
  s.n = i;
  return s;
}

/** Form score over `n` runs whose form points sum to `sum` (features.md), 4 dp: 0 when there are none. */
export function formScore(sum: number, n: number): number {
  return n > 0 ? round4(sum / n / 3) : 0;
}

/** A rate with an empty denominator is 0 (catalogue.md "Unknown values"), 4 dp. */
export function rate(num: number, den: number): number {
  return den > 0 ? round4(num / den) : 0;
}
