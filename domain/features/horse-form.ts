/**
 * catalogue.md families C (horse form), D (ratings) and N (market history): functions of the
 * horse's visible history and today's card only. Each family has a writer that fills its fields
 * from one HistoryScan (so horseCatalogue fills all six horse families from a single pass into a
 * single object) and a convenience function of (runs, today) for callers that want one family.
 */
import { round1, round2, round4 } from '../rounding.js';
import { utcDaysBetween } from '../time.js';
import { type HorseFeatures, type HorseRun, NO_PREVIOUS_RUN_DAYS, type TodayContext } from './horse.js';
import { formScore, hasSp, prb, rate, type HistoryScan, scanHistory } from './horse-scan.js';

/** C. Horse form — 22 fields. */
export interface HorseFormFeatures {
  /** careerWins / careerRuns; 0 with no run */
  careerWinRate: number;
  /** runs placed 1..3 */
  careerPlaces: number;
  careerPlaceRate: number;
  /** form score over all runs; 0 with no run */
  careerFormScore: number;
  formScoreLast3: number;
  formScoreLast6: number;
  /** position of the last run (0 a non-finisher; may exceed 9); null with no run */
  lastPosition: number | null;
  /** 2 dp; 0 for a win; null for a non-finisher, unknown lengths or no run */
  lastBeatenLengths: number | null;
  /** 2 dp, over the finishers (with known lengths) among the last 3 runs; null when none */
  meanBeatenLengthsLast3: number | null;
  lastPrb: number | null;
  meanPrbLast3: number | null;
  careerPrb: number | null;
  runsLast90Days: number;
  runsLast365Days: number;
  winsLast365Days: number;
  /** UTC calendar days since the last win's off, capped at 729; 730 when no win */
  daysSinceLastWin: number;
  /** runs newer than the last win; careerRuns when no win */
  runsSinceLastWin: number;
  isDebut: boolean;
  isReappearance: boolean;
  nonCompletionsLast5: number;
  lastRunWon: boolean;
  winStreak: number;
}

/** D. Ratings — 9 fields. */
export interface HorseRatingFeatures {
  /** 1 dp; null when the last run has no figure (a non-finisher) or no run */
  lastFigure: number | null;
  /** best of the newest 3 runs that have a figure (1 dp) */
  bestFigureLast3: number | null;
  /** mean of the same figures (1 dp) */
  meanFigureLast3: number | null;
  careerBestFigure: number | null;
  lastOfficialRating: number | null;
  careerMaxOfficialRating: number | null;
  officialRatingVsCareerMax: number | null;
  lastWinOfficialRating: number | null;
  /** vpr minus today's rating (1 dp); null when unrated or vprConfidence = 0 */
  vprMinusOfficialRating: number | null;
}

/** N. Market history — 6 fields. Past races' SPs only: today's price is published at the off. */
export interface HorseMarketFeatures {
  /** 2 dp */
  lastStartingPrice: number | null;
  lastRunFavourite: boolean;
  beatenFavouriteLast: boolean;
  /** mean of 1/SP over the newest 3 runs that have an SP (4 dp); null when no run has one */
  meanImpliedProbabilityLast3: number | null;
  careerFavouriteRuns: number;
  /** A/E over all runs with an SP; 0 when none */
  horseAe: number;
}

/** What family D reads of the confirmed features (horseFeatures' result). */
export type ConfirmedVpr = Pick<HorseFeatures, 'vpr' | 'vprConfidence'>;

export const HORSE_FORM_FIELDS = [
  'careerWinRate',
  'careerPlaces',
  'careerPlaceRate',
  'careerFormScore',
  'formScoreLast3',
  'formScoreLast6',
  'lastPosition',
  'lastBeatenLengths',
  'meanBeatenLengthsLast3',
  'lastPrb',
  'meanPrbLast3',
  'careerPrb',
  'runsLast90Days',
  'runsLast365Days',
  'winsLast365Days',
  'daysSinceLastWin',
  'runsSinceLastWin',
  'isDebut',
  'isReappearance',
  'nonCompletionsLast5',
  'lastRunWon',
  'winStreak',
] as const satisfies readonly (keyof HorseFormFeatures)[];

export const HORSE_RATING_FIELDS = [
  'lastFigure',
  'bestFigureLast3',
  'meanFigureLast3',
  'careerBestFigure',
  'lastOfficialRating',
  'careerMaxOfficialRating',
  'officialRatingVsCareerMax',
  'lastWinOfficialRating',
  'vprMinusOfficialRating',
] as const satisfies readonly (keyof HorseRatingFeatures)[];

export const HORSE_MARKET_FIELDS = [
  'lastStartingPrice',
  'lastRunFavourite',
  'beatenFavouriteLast',
  'meanImpliedProbabilityLast3',
  'careerFavouriteRuns',
  'horseAe',
] as const satisfies readonly (keyof HorseMarketFeatures)[];

/** Fills family C from a scan. */
export function writeHorseForm(out: HorseFormFeatures, s: HistoryScan, today: TodayContext): void {
  const n = s.n;
  const last = s.last;
  const n3 = n < 3 ? n : 3;
  out.careerWinRate = rate(s.wins, n);
  out.careerPlaces = s.places;
  out.careerPlaceRate = rate(s.places, n);
  out.careerFormScore = formScore(s.formSum, n);
  out.formScoreLast3 = formScore(s.formSumLast3, n3);
  out.formScoreLast6 = formScore(s.formSumLast6, n < 6 ? n : 6);
  out.lastPosition = last ? last.position : null;
  out.lastBeatenLengths = last ? lastBeatenLengths(last) : null;
  out.meanBeatenLengthsLast3 =
    s.beatenLengthsNLast3 > 0 ? round4(s.beatenLengthsSumLast3 / s.beatenLengthsNLast3) : null;
  out.lastPrb = last ? round4(prb(last.position, last.ran)) : null;
  out.meanPrbLast3 = n > 0 ? round4(s.prbSumLast3 / n3) : null;
  out.careerPrb = n > 0 ? round4(s.prbSum / n) : null;
  out.runsLast90Days = s.runs90;
  out.runsLast365Days = s.runs365;
  out.winsLast365Days = s.wins365;
  out.daysSinceLastWin =
    s.lastWinIndex >= 0
      ? Math.min(utcDaysBetween(s.lastWinOff, today.off), NO_PREVIOUS_RUN_DAYS - 1)
      : NO_PREVIOUS_RUN_DAYS;
  out.runsSinceLastWin = s.lastWinIndex >= 0 ? s.lastWinIndex : n;
  out.isDebut = n === 0;
  out.isReappearance = n > 0 && s.lastRunDays >= 90;
  out.nonCompletionsLast5 = s.nonCompletionsLast5;
  out.lastRunWon = last !== undefined && last.position === 1;
  out.winStreak = s.winStreak;
}

function lastBeatenLengths(r: HorseRun): number | null {
  if (r.position === 1) return 0;
  if (r.position < 1 || r.beatenLengths === null) return null;
  return round4(r.beatenLengths);
}

/** Fills family D from a scan; `confirmed` is horseFeatures' result for the same row. */
export function writeHorseRatings(
  out: HorseRatingFeatures,
  s: HistoryScan,
  today: TodayContext,
  confirmed: ConfirmedVpr,
): void {
  const last = s.last;
  const todayRated = today.officialRating > 0;
  out.lastFigure = last && last.figure !== null ? round1(last.figure) : null;
  out.bestFigureLast3 = s.figuresLast3N > 0 ? round1(s.figuresLast3Best) : null;
  out.meanFigureLast3 = s.figuresLast3N > 0 ? round1(s.figuresLast3Sum / s.figuresLast3N) : null;
  out.careerBestFigure = s.careerBestFigure > Number.NEGATIVE_INFINITY ? round1(s.careerBestFigure) : null;
  out.lastOfficialRating = last && last.officialRating > 0 ? last.officialRating : null;
  out.careerMaxOfficialRating = s.careerMaxRating > 0 ? s.careerMaxRating : null;
  out.officialRatingVsCareerMax = todayRated && s.careerMaxRating > 0 ? today.officialRating - s.careerMaxRating : null;
  out.lastWinOfficialRating = s.lastWinIndex >= 0 && s.lastWinRating > 0 ? s.lastWinRating : null;
  out.vprMinusOfficialRating =
    todayRated && confirmed.vprConfidence > 0 ? round1(confirmed.vpr - today.officialRating) : null;
}

/** Fills family N from a scan. */
export function writeHorseMarket(out: HorseMarketFeatures, s: HistoryScan): void {
  const last = s.last;
  out.lastStartingPrice = last && hasSp(last.startingPrice) ? round2(last.startingPrice) : null;
  out.lastRunFavourite = last !== undefined && last.favourite;
  out.beatenFavouriteLast = last !== undefined && last.favourite && last.position !== 1;
  out.meanImpliedProbabilityLast3 = s.spLast3N > 0 ? round4(s.spLast3InvSum / s.spLast3N) : null;
  out.careerFavouriteRuns = s.favouriteRuns;
  out.horseAe = s.spInvSum > 0 ? round4(s.spWins / s.spInvSum) : 0;
}

/** Family C for a race off at today.off (one scan). */
export function horseFormFeatures(runs: readonly HorseRun[], today: TodayContext): HorseFormFeatures {
  const out = {} as HorseFormFeatures;
  writeHorseForm(out, scanHistory(runs, today), today);
  return out;
}

/** Family D for a race off at today.off; `confirmed` is horseFeatures' result for the same row. */
export function horseRatingFeatures(
  runs: readonly HorseRun[],
  today: TodayContext,
  confirmed: ConfirmedVpr,
): HorseRatingFeatures {
  const out = {} as HorseRatingFeatures;
  writeHorseRatings(out, scanHistory(runs, today), today, confirmed);
  return out;
}

/** Family N for a race off at today.off. */
export function horseMarketFeatures(runs: readonly HorseRun[], today: TodayContext): HorseMarketFeatures {
  const out = {} as HorseMarketFeatures;
  writeHorseMarket(out, scanHistory(runs, today));
  return out;
}

/**
 * Level stakes of one run with an SP (catalogue.md, for the families that report them, J/K/L):
 * SP / k - 1 for a win in a k-way dead heat, -1 otherwise; null for a run without an SP, which is
 * left out of every SP sum. Not rounded: round2 the sum.
 */
export function levelStake(position: number, deadHeat: number, sp: number | null): number | null {
  if (!hasSp(sp)) return null;
  return position === 1 ? sp / (deadHeat > 1 ? deadHeat : 1) - 1 : -1;
}

/** Level stakes over a set of runs (2 dp): the runs without an SP are left out. */
export function levelStakes(runs: readonly Pick<HorseRun, 'position' | 'deadHeat' | 'startingPrice'>[]): number {
  let sum = 0;
  for (const r of runs) {
    const v = levelStake(r.position, r.deadHeat, r.startingPrice);
    if (v !== null) sum += v;
  }
  return round2(sum);
}
