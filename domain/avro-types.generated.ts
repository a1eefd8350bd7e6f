// Generated from schemas/*.avsc by `npm run gen:types`. Do not edit by hand.

/** One runner in one race: features computed only from information published before the race's off. Keyed raceId:horseId on racing.analytics.v1; a tombstone when the runner is withdrawn. */
export interface AnalyticsRow {
  raceId: string;
  horseId: string;
  /** event time of the input that caused the (re)compute, ISO 8601 UTC with ms */
  computedAtUtc: string;
  /** 1..9 once run; 0 provisional, outside the top 9 or non-finisher */
  position: number;
  /** provisional | final */
  status: string;
  /** ISO 8601 UTC */
  offTime: string;
  courseId: string;
  jockeyId: string;
  trainerId: string;
  sireId: null | string;
  /** 0 when no draw */
  draw: number;
  weightLbs: number;
  /** 0 unknown */
  officialRating: number;
  /** declared runners less non-runners on the card used */
  fieldSize: number;
  distanceYards: number;
  /** 1..7, 0 unknown */
  raceClass: number;
  /** enum: 1 flat, 2 hurdle, 3 chase, 4 nh-flat, 0 unknown */
  disciplineCode: number;
  /** enum: 1 turf, 2 aw, 0 unknown */
  surfaceCode: number;
  /** enum: see the data dictionary, 0 unknown */
  goingCode: number;
  /** enum: 1 sprint, 2 mile, 3 middle, 4 staying, 0 unknown */
  distanceBucketCode: number;
  careerRuns: number;
  careerWins: number;
  courseForm: number;
  /** runs at this course that courseForm rests on (0..5) */
  courseFormRuns: number;
  winRatioLast5: number;
  vpr: number;
  vprConfidence: number;
  improvingVpr: boolean;
  jockeyWinRate90Day: number;
  jockeyRides90Day: number;
  trainer14DayWinRate: number;
  trainerRunners14Day: number;
  /** W-P-R over the trainer's last 14 days */
  stableForm: string;
  sireProgenyWinRate: number;
  sireProgenyRuns: number;
  drawBiasStrength: number;
  /** races with a draw the snapshot's draw rates rest on */
  drawBiasRaces: number;
  distanceDifferenceY: number;
  ratingDifference: number;
  weightDifferenceLbs: number;
  classDifference: number;
  lastRunDays: number;
  courseTotalClimbM: null | number;
  courseUndulationIndex: null | number;
  courseElevationRangeM: null | number;
}

export interface SurfacePeriod {
  /** YYYY-MM-DD, first day in force */
  from: string;
  /** turf | aw */
  surface: string;
  description: string;
}

export interface CourseTopology {
  totalClimbM: number;
  undulationIndex: number;
  elevationRangeM: number;
  circuitLengthM: null | number;
}

/** A racecourse (one track variant): identity, layout facts, dated surface history and measured topology when known. */
export interface Course {
  courseId: string;
  name: string;
  country: string;
  /** GB, IRE or INT */
  region: string;
  /** e.g. AW, July, Rowley; null for the main track */
  trackVariant: null | string;
  /** turf | aw | mixed */
  surfaceKind: string;
  /** left | right | figure-of-eight | straight | unknown */
  direction: string;
  disciplines: Array<string>;
  surfaceHistory: Array<SurfacePeriod>;
  topology: null | CourseTopology;
}

/** Point-in-time course statistics for one (course, period, discipline, distance bucket, surface): all races visible at the period's end. */
export interface CourseSnapshot {
  courseId: string;
  /** YYYY-MM (monthly) or YYYY-MM-DD (daily) */
  period: string;
  /** ISO 8601 UTC instant at which the period ends; the snapshot is in force for races off at or after it */
  periodEndUtc: string;
  discipline: string;
  distanceBucket: string;
  surface: string;
  races: number;
  runners: number;
  /** races with a favourite */
  favouriteRaces: number;
  favouriteWinRate: number;
  favouritePlaceRate: number;
  /** races with a draw and at least 6 runners */
  drawRaces: number;
  drawLowWinRate: number;
  drawMiddleWinRate: number;
  drawHighWinRate: number;
  /** low minus high third win rate */
  drawBias: number;
  drawBiasStrength: number;
  computedAtUtc: string;
}

export interface RaceCardRunner {
  horseId: string;
  horseName: string;
  /** years, 0 unknown */
  age: number;
  sireId: null | string;
  sireName: null | string;
  jockeyId: string;
  jockeyName: string;
  trainerId: string;
  trainerName: string;
  saddleCloth: number;
  /** stall number, 0 when there is no draw */
  draw: number;
  weightLbs: number;
  /** 0 unknown / unrated */
  officialRating: number;
  /** withdrawn before the off */
  nonRunner: boolean;
}

/** One version of a race card: a full snapshot of the race and its declared runners. A later version (higher publishedAt, then higher version) supersedes earlier ones. */
export interface RaceCard {
  /** rac_ + opaque token, derived from the race's source identity */
  raceId: string;
  /** card version, 1 for the first card, increasing with each update */
  version: number;
  /** when this version became known (UTC epoch ms) */
  publishedAt: number;
  /** scheduled off (UTC epoch ms) */
  offTime: number;
  /** local meeting date at the course, YYYY-MM-DD */
  meetingDate: string;
  /** crs_ + opaque token */
  courseId: string;
  courseName: string;
  /** GB, IRE or an ISO-style code for international racing */
  country: string;
  raceName: string;
  /** flat | hurdle | chase | nh-flat */
  discipline: string;
  /** turf | aw */
  surface: string;
  distanceYards: number;
  /** official going description, e.g. Good To Firm, Standard */
  going: string;
  /** 1..7, 0 unknown */
  raceClass: number;
  runners: Array<RaceCardRunner>;
}

export interface RaceResultRunner {
  horseId: string;
  /** finishing position (may exceed 9; equal for a dead heat); 0 = did not finish */
  position: number;
  /** finished | pulled-up | fell | unseated | brought-down | refused | ran-out | slipped-up | carried-out | disqualified */
  status: string;
  /** cumulative lengths behind the winner; 0 for the winner and non-finishers */
  beatenLengths: number;
  /** decimal odds */
  startingPrice: null | number;
  /** favourite or joint/co-favourite at the off */
  favourite: boolean;
}

/** The result of a race: every runner that started, in finishing order, with status, cumulative beaten lengths, starting price and favourite flags. */
export interface RaceResult {
  raceId: string;
  /** when the result became known (UTC epoch ms) */
  publishedAt: number;
  winningTimeSeconds: null | number;
  runners: Array<RaceResultRunner>;
}
