/**
 * Jockey, trainer, sire and course-snapshot features (features.md): each is a function of one entity
 * key's visible history, held in an EventIndex, and the race's own off time.
 */
import type { CourseSnapshot } from '../avro-types.generated.js';
import type { WindowSource } from './window-source.js';
import { round4 } from '../rounding.js';
import { startOfUtcMonth } from '../time.js';
import { DAYS_14, DAYS_90 } from './horse.js';

/** Vector layouts of the entity indexes. */
export const JOCKEY_WIN = 0;
export const TRAINER_WIN = 0;
export const TRAINER_PLACED = 1; // finished 2nd or 3rd
export const SIRE_WIN = 0;

export const COURSE_VEC = {
  drawRace: 0,
  low: 1,
  middle: 2,
  high: 3,
  favRace: 4,
  favWon: 5,
  favPlaced: 6,
  runners: 7,
} as const;
export const COURSE_VEC_WIDTH = 8;

const rate = (num: number, den: number): number => (den > 0 ? round4(num / den) : 0);

export interface JockeyFeatures {
  jockeyWinRate90Day: number;
  jockeyRides90Day: number;
  latestVisible: number;
}

/** Wins / rides in visible races off in [off - 90 days, off). */
export function jockeyFeatures(idx: WindowSource | undefined, off: number): JockeyFeatures {
  if (!idx) return { jockeyWinRate90Day: 0, jockeyRides90Day: 0, latestVisible: 0 };
  const w = idx.window(off - DAYS_90, off);
  return { jockeyWinRate90Day: rate(w.sums[JOCKEY_WIN]!, w.n), jockeyRides90Day: w.n, latestVisible: w.latestVisible };
}

export interface TrainerFeatures {
  trainer14DayWinRate: number;
  trainerRunners14Day: number;
  stableForm: string;
  latestVisible: number;
}

/** Winners / runners, and W-P-R, in visible races off in [off - 14 days, off). */
export function trainerFeatures(idx: WindowSource | undefined, off: number): TrainerFeatures {
  if (!idx) return { trainer14DayWinRate: 0, trainerRunners14Day: 0, stableForm: '0-0-0', latestVisible: 0 };
  const w = idx.window(off - DAYS_14, off);
  const wins = w.sums[TRAINER_WIN]!;
  const placed = w.sums[TRAINER_PLACED]!;
  return {
    trainer14DayWinRate: rate(wins, w.n),
    trainerRunners14Day: w.n,
    stableForm: `${wins}-${placed}-${w.n}`,
    latestVisible: w.latestVisible,
  };
}

export interface SireFeatures {
  sireProgenyWinRate: number;
  sireProgenyRuns: number;
  latestVisible: number;
}

/** Wins / runs of every visible run whose card named this sire; 0 when the runner's sire is unknown. */
export function sireFeatures(idx: WindowSource | undefined, sireKnown: boolean, off: number): SireFeatures {
  if (!sireKnown || !idx) return { sireProgenyWinRate: 0, sireProgenyRuns: 0, latestVisible: 0 };
  const w = idx.window(Number.NEGATIVE_INFINITY, off);
  return { sireProgenyWinRate: rate(w.sums[SIRE_WIN]!, w.n), sireProgenyRuns: w.n, latestVisible: w.latestVisible };
}

/** A snapshot's statistics: the CourseSnapshot schema's fields less its identity, plus its latest input time. */
export type SnapshotStats = Omit<
  CourseSnapshot,
  'courseId' | 'period' | 'periodEndUtc' | 'discipline' | 'distanceBucket' | 'surface' | 'computedAtUtc'
> & {
  /** latest visibleAt among the races in the snapshot, 0 when none */
  latestVisible: number;
};

/** The snapshot of one course key covering every race visible at `periodEnd`. */
export function snapshotAt(idx: WindowSource | undefined, periodEnd: number): SnapshotStats {
  const zero: SnapshotStats = {
    races: 0,
    runners: 0,
    favouriteRaces: 0,
    favouriteWinRate: 0,
    favouritePlaceRate: 0,
    drawRaces: 0,
    drawLowWinRate: 0,
    drawMiddleWinRate: 0,
    drawHighWinRate: 0,
    drawBias: 0,
    drawBiasStrength: 0,
    latestVisible: 0,
  };
  if (!idx) return zero;
  const w = idx.window(Number.NEGATIVE_INFINITY, periodEnd);
  const s = w.sums;
  const drawRaces = s[COURSE_VEC.drawRace]!;
  const low = drawRaces > 0 ? s[COURSE_VEC.low]! / drawRaces : 0;
  const high = drawRaces > 0 ? s[COURSE_VEC.high]! / drawRaces : 0;
  const favRaces = s[COURSE_VEC.favRace]!;
  return {
    races: w.n,
    runners: s[COURSE_VEC.runners]!,
    favouriteRaces: favRaces,
    favouriteWinRate: rate(s[COURSE_VEC.favWon]!, favRaces),
    favouritePlaceRate: rate(s[COURSE_VEC.favPlaced]!, favRaces),
    drawRaces,
    drawLowWinRate: rate(s[COURSE_VEC.low]!, drawRaces),
    drawMiddleWinRate: rate(s[COURSE_VEC.middle]!, drawRaces),
    drawHighWinRate: rate(s[COURSE_VEC.high]!, drawRaces),
    drawBias: round4(low - high),
    drawBiasStrength: round4(Math.abs(low - high)),
    latestVisible: w.latestVisible,
  };
}

/** Start of the period whose snapshot is in force for a race off at `off` (monthly: the race's UTC month). */
export function snapshotPeriodEndFor(off: number): number {
  return startOfUtcMonth(off);
}

export interface DrawFeatures {
  drawBiasStrength: number;
  drawBiasRaces: number;
  latestVisible: number;
}

/** drawBiasStrength from the snapshot in force at the off; 0 when there is no snapshot or no draw. */
export function drawFeatures(idx: WindowSource | undefined, off: number, draw: number): DrawFeatures {
  const snap = snapshotAt(idx, snapshotPeriodEndFor(off));
  if (draw <= 0) return { drawBiasStrength: 0, drawBiasRaces: 0, latestVisible: snap.latestVisible };
  return { drawBiasStrength: snap.drawBiasStrength, drawBiasRaces: snap.drawRaces, latestVisible: snap.latestVisible };
}

/** Each-way places for a field of n runners: 1 under 5, 2 for 5..7, 3 for 8+. */
export function placesFor(n: number): number {
  return n < 5 ? 1 : n < 8 ? 2 : 3;
}

/**
 * The course-key vector of one run race: draw-third win shares (dead heats split the win), favourite
 * outcomes and runners. `ran` are the runners that started, with draw (0 = none), position and flags.
 */
export function courseRaceVector(ran: readonly { draw: number; position: number; favourite: boolean }[]): number[] {
  const v = new Array<number>(COURSE_VEC_WIDTH).fill(0);
  v[COURSE_VEC.runners] = ran.length;
  const drawn = ran.filter((r) => r.draw > 0);
  const winners = ran.filter((r) => r.position === 1);
  if (drawn.length >= 6 && drawn.length === ran.length && winners.length > 0) {
    const draws = drawn.map((r) => r.draw).sort((a, b) => a - b);
    v[COURSE_VEC.drawRace] = 1;
    for (const wnr of winners) {
      const rank = draws.indexOf(wnr.draw); // 0-based
      const third = Math.floor((rank * 3) / draws.length);
      const slot = third === 0 ? COURSE_VEC.low : third === 1 ? COURSE_VEC.middle : COURSE_VEC.high;
      v[slot]! += 1 / winners.length;
    }
  }
  const favs = ran.filter((r) => r.favourite);
  if (favs.length > 0) {
    v[COURSE_VEC.favRace] = 1;
    const places = placesFor(ran.length);
    if (favs.some((f) => f.position === 1)) v[COURSE_VEC.favWon] = 1;
    if (favs.some((f) => f.position >= 1 && f.position <= places)) v[COURSE_VEC.favPlaced] = 1;
  }
  return v;
}
