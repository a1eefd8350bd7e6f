/**
 * catalogue.md families A (race context: own card and course record) and B (runner on today's
 * card). Functions of the card used for the race's own fields only: its race facts, the course
 * record's direction, and its runners (declared, not non-runners: the caller drops non-runners).
 * Per race everything is computed once (O(n log n) for the draw order), then per runner in O(1).
 */
import { canonicalHeadgear, courseDirectionCode, drawThird, goingGroupCode, patternCode, sexCode } from '../codes.js';
import { round4 } from '../rounding.js';

/** The race facts family A reads. */
export interface CardRaceInput {
  /** scheduled off, UTC epoch ms */
  off: number;
  /** official going description */
  going: string;
  isHandicap: boolean;
  /** '' unknown, none, listed, group3, group2, group1 */
  pattern: string;
  /** the course record's direction in force: left | right | straight | figure-of-eight | unknown */
  direction: string;
}

/** One runner of the card used, as family B reads it. */
export interface CardRunnerInput {
  horseId: string;
  /** stall, 0 no draw */
  draw: number;
  weightLbs: number;
  /** 0 unrated */
  officialRating: number;
  /** '' unknown */
  trainerId: string;
  /** 0 unknown */
  age: number;
  /** c f g m h r, '' unknown */
  sex: string;
  /** headgear codes, '' none */
  headgear: string;
  jockeyClaimLbs: number;
}

/** A. Race context — 5 fields. */
export interface RaceContextFeatures {
  isHandicap: boolean;
  patternCode: number;
  goingGroupCode: number;
  /** 1..12, the off's UTC month */
  monthOfYear: number;
  courseDirectionCode: number;
}

/** B. Runner on today's card — 11 fields. */
export interface RunnerCardFeatures {
  age: number;
  sexCode: number;
  /** canonical text, '' none */
  headgear: string;
  hasHeadgear: boolean;
  jockeyClaimLbs: number;
  /** heaviest weight among the runners minus this runner's */
  weightVsTopLbs: number;
  /** this runner's weight minus the runners' mean (4 dp) */
  weightVsMeanLbs: number;
  /** (r - 1) / (n - 1) among the drawn runners (4 dp), 0 when n = 1; null without a draw */
  drawPct: number | null;
  /** 1 low, 2 middle, 3 high; 0 no draw */
  drawThirdCode: number;
  /** highest rating among rated runners minus this runner's; null when unrated */
  officialRatingGapToTop: number | null;
  /** runners of this runner's trainer in the race, itself included (1 when its trainer is unknown) */
  stableRunnersInRace: number;
}

export const RACE_CONTEXT_FIELDS = [
  'isHandicap',
  'patternCode',
  'goingGroupCode',
  'monthOfYear',
  'courseDirectionCode',
] as const satisfies readonly (keyof RaceContextFeatures)[];

export const RUNNER_CARD_FIELDS = [
  'age',
  'sexCode',
  'headgear',
  'hasHeadgear',
  'jockeyClaimLbs',
  'weightVsTopLbs',
  'weightVsMeanLbs',
  'drawPct',
  'drawThirdCode',
  'officialRatingGapToTop',
  'stableRunnersInRace',
] as const satisfies readonly (keyof RunnerCardFeatures)[];

/** Family A of a race. */
export function raceContextFeatures(race: CardRaceInput): RaceContextFeatures {
  return {
    isHandicap: race.isHandicap,
    patternCode: patternCode(race.pattern),
    goingGroupCode: goingGroupCode(race.going),
    monthOfYear: new Date(race.off).getUTCMonth() + 1,
    courseDirectionCode: courseDirectionCode(race.direction),
  };
}

/**
 * Draw rank r (1-based) of every drawn runner, by (draw, horseId) ascending; 0 without a draw.
 * Two runners with the same stall should not happen on a valid card; when it does, they get
 * consecutive ranks ordered by horseId, so every drawn runner keeps a distinct rank and n stays the
 * number of drawn runners, whatever order the card lists them in.
 */
export function drawRanks(runners: readonly Pick<CardRunnerInput, 'horseId' | 'draw'>[]): number[] {
  const ranks = new Array<number>(runners.length).fill(0);
  const drawn: number[] = [];
  for (let i = 0; i < runners.length; i++) if (runners[i]!.draw > 0) drawn.push(i);
  drawn.sort((a, b) => {
    const ra = runners[a]!;
    const rb = runners[b]!;
    if (ra.draw !== rb.draw) return ra.draw - rb.draw;
    return ra.horseId < rb.horseId ? -1 : ra.horseId > rb.horseId ? 1 : 0;
  });
  for (let k = 0; k < drawn.length; k++) ranks[drawn[k]!] = k + 1;
  return ranks;
}

/** Family B of every runner of the card used, in the order given (non-runners already dropped). */
export function runnerCardFeatures(runners: readonly CardRunnerInput[]): RunnerCardFeatures[] {
  const n = runners.length;
  let topWeight = Number.NEGATIVE_INFINITY;
  let weightSum = 0;
  let topRating = 0;
  const stable = new Map<string, number>();
  for (const r of runners) {
    if (r.weightLbs > topWeight) topWeight = r.weightLbs;
    weightSum += r.weightLbs;
    if (r.officialRating > topRating) topRating = r.officialRating;
    if (r.trainerId !== '') stable.set(r.trainerId, (stable.get(r.trainerId) ?? 0) + 1);
  }
  const meanWeight = n > 0 ? weightSum / n : 0;
  const ranks = drawRanks(runners);
  let drawnN = 0;
  for (const rank of ranks) if (rank > 0) drawnN++;

  const out: RunnerCardFeatures[] = new Array<RunnerCardFeatures>(n);
  for (let i = 0; i < n; i++) {
    const r = runners[i]!;
    const rank = ranks[i]!;
    const headgear = canonicalHeadgear(r.headgear);
    out[i] = {
      age: r.age > 0 ? r.age : 0,
      sexCode: sexCode(r.sex),
      headgear,
      hasHeadgear: headgear !== '',
      jockeyClaimLbs: r.jockeyClaimLbs,
      weightVsTopLbs: topWeight - r.weightLbs,
      weightVsMeanLbs: round4(r.weightLbs - meanWeight),
      drawPct: rank === 0 ? null : drawnN === 1 ? 0 : round4((rank - 1) / (drawnN - 1)),
      drawThirdCode: rank === 0 ? 0 : drawThird(rank, drawnN) + 1,
      officialRatingGapToTop: r.officialRating > 0 ? topRating - r.officialRating : null,
      stableRunnersInRace: r.trainerId !== '' ? stable.get(r.trainerId)! : 1,
    };
  }
  return out;
}
