/**
 * The course snapshot (features.md): per (course, discipline, distance bucket, surface) key, each run
 * race contributes a vector of draw-third win shares, favourite outcomes and runners; a snapshot is the
 * sum over every race visible at a period's end. The rows join it through the entity table.
 */
import type { AnalyticsRow, CourseSnapshot } from '../avro-types.generated.js';
import { round4 } from '../rounding.js';
import { inForceAt, periodLabel, periodStart, type SnapshotCalendar } from './snapshot-calendar.js';
import { windowCounts, type WindowSource } from './window-source.js';

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

/** the one window snapshotAt reads, reused by every call (its sums are read before it returns) */
const SNAPSHOT_W = windowCounts(COURSE_VEC_WIDTH);

const rate = (num: number, den: number): number => (den > 0 ? round4(num / den) : 0);

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
  if (!idx) {
    return {
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
  }
  const w = idx.window(Number.NEGATIVE_INFINITY, periodEnd, SNAPSHOT_W);
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

/**
 * The course-snapshot entity's row fields (drawBiasStrength, drawBiasRaces, snapshotPeriod and family
 * I of catalogue.md) from the snapshot in force at the off: every race of the key visible at the start
 * of the race's period (snapshot-calendar.ts). 0 when there is no snapshot; the draw fields 0 without a
 * draw; snapshotPeriod names the snapshot row joined ('' when none).
 */
export function courseSnapshotFields(
  src: WindowSource | undefined,
  ctx: { off: number; draw: number; drawThird: number; cal: SnapshotCalendar },
  row: AnalyticsRow,
): number {
  const snap = snapshotAt(src, inForceAt(ctx.cal, ctx.off));
  // the snapshot row this is: the period in which the latest race it covers became visible
  row.snapshotPeriod = snap.races > 0 ? periodLabel(ctx.cal, periodStart(ctx.cal, snap.latestVisible)) : '';
  const drawn = ctx.draw > 0;
  row.drawBiasStrength = drawn ? snap.drawBiasStrength : 0;
  row.drawBiasRaces = drawn ? snap.drawRaces : 0;
  row.snapshotRaces = snap.races;
  row.snapshotMeanFieldSize = snap.races > 0 ? round4(snap.runners / snap.races) : 0;
  row.snapshotFavouriteWinRate = snap.favouriteWinRate;
  row.snapshotFavouritePlaceRate = snap.favouritePlaceRate;
  row.snapshotDrawLowWinRate = snap.drawLowWinRate;
  row.snapshotDrawMiddleWinRate = snap.drawMiddleWinRate;
  row.snapshotDrawHighWinRate = snap.drawHighWinRate;
  row.drawBias = snap.drawBias;
  row.drawThirdWinRate =
    ctx.drawThird === 0
      ? snap.drawLowWinRate
      : ctx.drawThird === 1
        ? snap.drawMiddleWinRate
        : ctx.drawThird === 2
          ? snap.drawHighWinRate
          : 0;
  return snap.latestVisible;
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
