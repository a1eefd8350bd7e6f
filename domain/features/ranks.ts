/**
 * catalogue.md family R (ranks within the race): a second stage over the rows of one race and card
 * version, reading only other fields of those rows. Competition ranking ("1224"): 1 = the highest
 * value, ties share the best rank, only among the runners that have the value; 0 for the others.
 */
import { round1 } from '../rounding.js';

/** The fields of a row that family R reads. */
export interface RankInput {
  vpr: number;
  vprConfidence: number;
  /** 0 unrated */
  officialRating: number;
  weightLbs: number;
  jockeyWinRate90Day: number;
  jockeyRides90Day: number;
  trainer14DayWinRate: number;
  trainerRunners14Day: number;
}

/** R. Ranks within the race — 6 fields. */
export interface RankFeatures {
  /** among runners with vprConfidence > 0 */
  vprRankInRace: number;
  /** best vpr among runners with vprConfidence > 0 minus this runner's (1 dp); null when vprConfidence = 0 */
  vprGapToBest: number | null;
  /** among rated runners */
  officialRatingRankInRace: number;
  /** 1 = heaviest, among every runner (a weight of 0 is a weight and ranks last) */
  weightRankInRace: number;
  /** among runners whose jockey has rides in the 90-day window */
  jockeyWinRate90DayRankInRace: number;
  /** among runners whose trainer has runners in the 14-day window */
  trainer14DayWinRateRankInRace: number;
}

export const RANK_FIELDS = [
  'vprRankInRace',
  'vprGapToBest',
  'officialRatingRankInRace',
  'weightRankInRace',
  'jockeyWinRate90DayRankInRace',
  'trainer14DayWinRateRankInRace',
] as const satisfies readonly (keyof RankFeatures)[];

/**
 * Competition ranks of `value(i)` over the indices i < n with `has(i)`, highest first ("1224"); 0 for
 * the others. Values are compared exactly: the inputs are already rounded (vpr 1 dp, rates 4 dp,
 * integers), so equal published values tie.
 */
export function competitionRanks(n: number, value: (i: number) => number, has: (i: number) => boolean): number[] {
  const ranks = new Array<number>(n).fill(0);
  const idx: number[] = [];
  for (let i = 0; i < n; i++) if (has(i)) idx.push(i);
  // Highest first, by insertion: a field is at most a few dozen runners, and Array.prototype.sort made
  // its work arrays for each of a race's five rankings (the order among equal values does not matter:
  // they share a rank).
  for (let k = 1; k < idx.length; k++) {
    const x = idx[k]!;
    const v = value(x);
    let q = k - 1;
    for (; q >= 0 && value(idx[q]!) < v; q--) idx[q + 1] = idx[q]!;
    idx[q + 1] = x;
  }
  let prev = Number.NaN;
  let prevRank = 0;
  for (let k = 0; k < idx.length; k++) {
    const i = idx[k]!;
    const v = value(i);
    if (v !== prev) {
      prevRank = k + 1;
      prev = v;
    }
    ranks[i] = prevRank;
  }
  return ranks;
}

/** Family R of every row of one race (same card version), in the order given. */
export function rankFields(rows: readonly RankInput[]): RankFeatures[] {
  const n = rows.length;
  const hasVpr = (i: number) => rows[i]!.vprConfidence > 0;
  const vpr = competitionRanks(n, (i) => rows[i]!.vpr, hasVpr);
  const rating = competitionRanks(
    n,
    (i) => rows[i]!.officialRating,
    (i) => rows[i]!.officialRating > 0,
  );
  const weight = competitionRanks(
    n,
    (i) => rows[i]!.weightLbs,
    // every runner carries a weight (0 included: it ranks last), as weightVsTopLbs counts it
    () => true,
  );
  const jockey = competitionRanks(
    n,
    (i) => rows[i]!.jockeyWinRate90Day,
    (i) => rows[i]!.jockeyRides90Day > 0,
  );
  const trainer = competitionRanks(
    n,
    (i) => rows[i]!.trainer14DayWinRate,
    (i) => rows[i]!.trainerRunners14Day > 0,
  );
  let bestVpr = Number.NEGATIVE_INFINITY;
  for (const r of rows) if (r.vprConfidence > 0 && r.vpr > bestVpr) bestVpr = r.vpr;

  const out = new Array<RankFeatures>(n);
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    out[i] = {
      vprRankInRace: vpr[i]!,
      vprGapToBest: r.vprConfidence > 0 ? round1(bestVpr - r.vpr) : null,
      officialRatingRankInRace: rating[i]!,
      weightRankInRace: weight[i]!,
      jockeyWinRate90DayRankInRace: jockey[i]!,
      trainer14DayWinRateRankInRace: trainer[i]!,
    };
  }
  return out;
}
