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
  /** the period of the course snapshot joined (its key on racing.course-snapshots.v1 with this race's course key): YYYY-MM or YYYY-MM-DD; empty when there is none */
  snapshotPeriod: string;
  distanceDifferenceY: number;
  ratingDifference: number;
  weightDifferenceLbs: number;
  classDifference: number;
  lastRunDays: number;
  courseTotalClimbM: null | number;
  courseUndulationIndex: null | number;
  courseElevationRangeM: null | number;
  /** A: the card's handicap flag */
  isHandicap: boolean;
  /** A: enum 1 not black type, 2 listed, 3 group3, 4 group2, 5 group1; 0 unknown */
  patternCode: number;
  /** A: enum going group of today's going (see the data dictionary); 0 unknown */
  goingGroupCode: number;
  /** A: 1..12, the off's UTC month */
  monthOfYear: number;
  /** A: enum 1 left-handed, 2 right-handed, 3 straight only, 4 figure of eight; 0 unknown */
  courseDirectionCode: number;
  /** B: years, 0 unknown */
  age: number;
  /** B: enum 1 c, 2 f, 3 g, 4 m, 5 h, 6 r; 0 unknown */
  sexCode: number;
  /** B: canonical headgear codes in the order b v h p t e; empty when none */
  headgear: string;
  /** B: headgear not empty */
  hasHeadgear: boolean;
  /** B: the rider's allowance in lbs, 0 none */
  jockeyClaimLbs: number;
  /** B: heaviest weight among the runners minus this runner's */
  weightVsTopLbs: number;
  /** B: this runner's weight minus the runners' mean weight */
  weightVsMeanLbs: number;
  /** B: (r - 1) / (n - 1) of the draw rank among drawn runners; null without a draw */
  drawPct: null | number;
  /** B: enum 1 low, 2 middle, 3 high; 0 no draw */
  drawThirdCode: number;
  /** B: highest rating among rated runners minus this runner's; null when unrated */
  officialRatingGapToTop: null | number;
  /** B: runners of this runner's trainer in the race, itself included */
  stableRunnersInRace: number;
  /** C: careerWins / careerRuns */
  careerWinRate: number;
  /** C: placed runs (position 1..3) */
  careerPlaces: number;
  /** C: careerPlaces / careerRuns */
  careerPlaceRate: number;
  /** C: form score over all runs */
  careerFormScore: number;
  /** C: form score over the last 3 (or fewer) runs */
  formScoreLast3: number;
  /** C: form score over the last 6 (or fewer) runs */
  formScoreLast6: number;
  /** C: position of the last run (may exceed 9; 0 non-finisher); null when no run */
  lastPosition: null | number;
  /** C: beaten lengths of the last run (0 for a win); null for a non-finisher or no run */
  lastBeatenLengths: null | number;
  /** C: mean beaten lengths of the finishers among the last 3 runs; null when none */
  meanBeatenLengthsLast3: null | number;
  /** C: proportion of rivals beaten in the last run; null when no run */
  lastPrb: null | number;
  /** C: mean PRB of the last 3 (or fewer) runs; null when no run */
  meanPrbLast3: null | number;
  /** C: mean PRB of all runs; null when no run */
  careerPrb: null | number;
  /** C: runs off in [off - 90 days, off) */
  runsLast90Days: number;
  /** C: runs off in [off - 365 days, off) */
  runsLast365Days: number;
  /** C: wins off in [off - 365 days, off) */
  winsLast365Days: number;
  /** C: UTC calendar days since the last win, capped at 729; 730 when no win */
  daysSinceLastWin: number;
  /** C: runs newer than the last win; careerRuns when no win */
  runsSinceLastWin: number;
  /** C: careerRuns = 0 */
  isDebut: boolean;
  /** C: careerRuns > 0 and lastRunDays >= 90 */
  isReappearance: boolean;
  /** C: non-finishers among the last 5 runs */
  nonCompletionsLast5: number;
  /** C: the last run was a win */
  lastRunWon: boolean;
  /** C: consecutive wins, newest first */
  winStreak: number;
  /** D: run figure of the last run (1 dp); null when it has none */
  lastFigure: null | number;
  /** D: best of the newest 3 run figures (1 dp); null when none */
  bestFigureLast3: null | number;
  /** D: plain mean of the newest 3 run figures (1 dp); null when none */
  meanFigureLast3: null | number;
  /** D: best run figure of all runs (1 dp); null when none */
  careerBestFigure: null | number;
  /** D: official rating carried on the last run; null when unrated or no run */
  lastOfficialRating: null | number;
  /** D: highest official rating carried in any run; null when none */
  careerMaxOfficialRating: null | number;
  /** D: today's rating minus careerMaxOfficialRating; null when either is unknown */
  officialRatingVsCareerMax: null | number;
  /** D: official rating carried in the last win; null when no win or unrated then */
  lastWinOfficialRating: null | number;
  /** D: vpr minus today's rating (1 dp); null when unrated or vprConfidence = 0 */
  vprMinusOfficialRating: null | number;
  /** E: the last run's surface differs from today's */
  surfaceSwitch: boolean;
  /** E: the last run's discipline differs from today's */
  disciplineSwitch: boolean;
  /** E: today is a chase and no run was a chase */
  firstTimeChase: boolean;
  /** E: today is a hurdle and no run was a hurdle */
  firstTimeHurdle: boolean;
  /** E: today is on AW and no run was */
  firstTimeAw: boolean;
  /** E: today is a handicap and no run was one */
  handicapDebut: boolean;
  /** E: the last run's going group differs from today's (both known) */
  goingGroupChanged: boolean;
  /** E: today's fieldSize minus the runners of the last run; null when no run */
  fieldSizeDifference: null | number;
  /** E: no run in today's distance bucket */
  untriedDistanceBucket: boolean;
  /** E: no run in today's going group (false when today's is unknown) */
  untriedGoingGroup: boolean;
  /** E: no run on today's surface */
  untriedSurface: boolean;
  /** E: the last run's trainer differs from today's (both known) */
  trainerChanged: boolean;
  /** E: runs with today's trainer */
  runsForTrainer: number;
  /** E: the last run's jockey differs from today's */
  jockeyChanged: boolean;
  /** E: the last run's owner differs from today's (both known) */
  ownerChanged: boolean;
  /** F: today has headgear and no run had any */
  firstTimeHeadgear: boolean;
  /** F: today's canonical headgear differs from the last run's */
  headgearChanged: boolean;
  /** F: the last run had headgear and today has none */
  headgearRemoved: boolean;
  /** F: runs whose canonical headgear equals today's (none included) */
  runsInTodaysHeadgear: number;
  /** G: runs in scope (same courseId) */
  horseCourseRuns: number;
  /** G: wins in scope (same courseId) */
  horseCourseWins: number;
  /** G: form score over the runs in scope (same courseId); 0 when none */
  horseCourseFormScore: number;
  /** G: runs in scope (same distance bucket) */
  horseDistanceRuns: number;
  /** G: wins in scope (same distance bucket) */
  horseDistanceWins: number;
  /** G: form score over the runs in scope (same distance bucket); 0 when none */
  horseDistanceFormScore: number;
  /** G: runs in scope (same going group) */
  horseGoingRuns: number;
  /** G: wins in scope (same going group) */
  horseGoingWins: number;
  /** G: form score over the runs in scope (same going group); 0 when none */
  horseGoingFormScore: number;
  /** G: runs in scope (same surface) */
  horseSurfaceRuns: number;
  /** G: wins in scope (same surface) */
  horseSurfaceWins: number;
  /** G: form score over the runs in scope (same surface); 0 when none */
  horseSurfaceFormScore: number;
  /** G: runs in scope (same discipline) */
  horseDisciplineRuns: number;
  /** G: wins in scope (same discipline) */
  horseDisciplineWins: number;
  /** G: form score over the runs in scope (same discipline); 0 when none */
  horseDisciplineFormScore: number;
  /** G: runs in scope (class known and <= today's) */
  horseClassRuns: number;
  /** G: wins in scope (class known and <= today's) */
  horseClassWins: number;
  /** G: form score over the runs in scope (class known and <= today's); 0 when none */
  horseClassFormScore: number;
  /** G: runs in scope (same courseId and distance bucket) */
  horseCourseDistanceRuns: number;
  /** G: wins in scope (same courseId and distance bucket) */
  horseCourseDistanceWins: number;
  /** G: form score over the runs in scope (same courseId and distance bucket); 0 when none */
  horseCourseDistanceFormScore: number;
  /** G: runs with today's jockey */
  horseJockeyRuns: number;
  /** G: wins with today's jockey */
  horseJockeyWins: number;
  /** I: races in the course snapshot in force; 0 when none */
  snapshotRaces: number;
  /** I: runners / races of the snapshot */
  snapshotMeanFieldSize: number;
  /** I: the snapshot's favourite win rate */
  snapshotFavouriteWinRate: number;
  /** I: the snapshot's favourite place rate */
  snapshotFavouritePlaceRate: number;
  /** I: the snapshot's low-third draw win rate */
  snapshotDrawLowWinRate: number;
  /** I: the snapshot's middle-third draw win rate */
  snapshotDrawMiddleWinRate: number;
  /** I: the snapshot's high-third draw win rate */
  snapshotDrawHighWinRate: number;
  /** I: the snapshot's signed low minus high draw win rate */
  drawBias: number;
  /** I: the snapshot's win rate of this runner's draw third; 0 without a draw */
  drawThirdWinRate: number;
  /** J: the jockey's rides, 14 days */
  jockeyRides14Day: number;
  /** J: wins / rides, 14 days */
  jockeyWinRate14Day: number;
  /** J: the jockey's rides, 365 days */
  jockeyRides365Day: number;
  /** J: wins / rides, 365 days */
  jockeyWinRate365Day: number;
  /** J: placed / rides, 365 days */
  jockeyPlaceRate365Day: number;
  /** J: actual over expected (SP) wins, 365 days */
  jockeyAe365Day: number;
  /** J: level-stakes profit at SP, 365 days (2 dp) */
  jockeyLevelStakes365Day: number;
  /** J: (wins + 2) / (rides + 20), 365 days */
  jockeyShrunkWinRate365Day: number;
  /** J: the jockey's rides at this course, 5 years */
  jockeyCourseRides5Year: number;
  /** J: wins / rides at this course, 5 years */
  jockeyCourseWinRate5Year: number;
  /** J: the jockey's rides in today's discipline, 365 days */
  jockeyDisciplineRides365Day: number;
  /** J: wins / rides in today's discipline, 365 days */
  jockeyDisciplineWinRate365Day: number;
  /** J: UTC calendar days since the jockey's last winner, capped at 729; 730 none */
  jockeyDaysSinceLastWinner: number;
  /** K: the trainer's runners, 30 days */
  trainerRunners30Day: number;
  /** K: wins / runners, 30 days */
  trainerWinRate30Day: number;
  /** K: the trainer's runners, 365 days */
  trainerRunners365Day: number;
  /** K: wins / runners, 365 days */
  trainerWinRate365Day: number;
  /** K: placed / runners, 365 days */
  trainerPlaceRate365Day: number;
  /** K: actual over expected (SP) wins, 365 days */
  trainerAe365Day: number;
  /** K: level-stakes profit at SP, 365 days (2 dp) */
  trainerLevelStakes365Day: number;
  /** K: (wins + 2) / (runners + 20), 365 days */
  trainerShrunkWinRate365Day: number;
  /** K: the trainer's runners at this course, 5 years */
  trainerCourseRunners5Year: number;
  /** K: wins / runners at this course, 5 years */
  trainerCourseWinRate5Year: number;
  /** K: the trainer's runners in today's discipline, 365 days */
  trainerDisciplineRunners365Day: number;
  /** K: wins / runners in today's discipline, 365 days */
  trainerDisciplineWinRate365Day: number;
  /** K: UTC calendar days since the trainer's last winner, capped at 729; 730 none */
  trainerDaysSinceLastWinner: number;
  /** L: runs of today's trainer with today's jockey, 365 days */
  trainerJockeyRuns365Day: number;
  /** L: wins / runs of the trainer+jockey pair, 365 days */
  trainerJockeyWinRate365Day: number;
  /** L: actual over expected (SP) wins of the pair, 365 days */
  trainerJockeyAe365Day: number;
  /** L: the owner's runners, 365 days; 0 when the owner is unknown */
  ownerRunners365Day: number;
  /** L: wins / the owner's runners, 365 days */
  ownerWinRate365Day: number;
  /** L: actual over expected (SP) wins of the owner, 365 days */
  ownerAe365Day: number;
  /** M: placed / progeny runs of the sire */
  sireProgenyPlaceRate: number;
  /** M: actual over expected (SP) wins of the sire's progeny */
  sireProgenyAe: number;
  /** M: (wins + 2) / (progeny runs + 20) */
  sireShrunkWinRate: number;
  /** M: progeny runs on today's surface */
  sireSurfaceRuns: number;
  /** M: wins / progeny runs on today's surface */
  sireSurfaceWinRate: number;
  /** M: progeny runs in today's going group (0 when unknown) */
  sireGoingRuns: number;
  /** M: wins / progeny runs in today's going group */
  sireGoingWinRate: number;
  /** M: progeny runs in today's distance bucket */
  sireDistanceRuns: number;
  /** M: wins / progeny runs in today's distance bucket */
  sireDistanceWinRate: number;
  /** M: progeny runs in today's discipline */
  sireDisciplineRuns: number;
  /** M: wins / progeny runs in today's discipline */
  sireDisciplineWinRate: number;
  /** M: mean distance in yards of progeny wins (1 dp); null when none */
  sireMeanWinningDistanceY: null | number;
  /** M: runs whose card named this dam sire */
  damSireProgenyRuns: number;
  /** M: wins / dam-sire progeny runs */
  damSireProgenyWinRate: number;
  /** M: dam-sire progeny runs in today's distance bucket */
  damSireDistanceRuns: number;
  /** M: wins / dam-sire progeny runs in today's distance bucket */
  damSireDistanceWinRate: number;
  /** M: mean distance in yards of dam-sire progeny wins (1 dp); null when none */
  damSireMeanWinningDistanceY: null | number;
  /** M: runs whose card named this dam (this horse's own included) */
  damProgenyRuns: number;
  /** M: wins among the dam's progeny runs */
  damProgenyWins: number;
  /** M: damProgenyWins / damProgenyRuns */
  damProgenyWinRate: number;
  /** N: decimal SP of the last run (2 dp); null when no run or no SP */
  lastStartingPrice: null | number;
  /** N: the last run was favourite (joint/co included) */
  lastRunFavourite: boolean;
  /** N: favourite last time and not a win */
  beatenFavouriteLast: boolean;
  /** N: mean of 1/SP over the newest 3 runs that have an SP; null when none */
  meanImpliedProbabilityLast3: null | number;
  /** N: runs as favourite */
  careerFavouriteRuns: number;
  /** N: actual over expected (SP) wins over all runs */
  horseAe: number;
  /** R: rank of vpr among runners with vprConfidence > 0 (1 = highest); 0 without */
  vprRankInRace: number;
  /** R: best vpr in the race minus this runner's (1 dp); null when vprConfidence = 0 */
  vprGapToBest: null | number;
  /** R: rank of today's rating among rated runners; 0 when unrated */
  officialRatingRankInRace: number;
  /** R: rank of weight carried (1 = heaviest) */
  weightRankInRace: number;
  /** R: rank of jockeyWinRate90Day among runners whose jockey has rides; 0 without */
  jockeyWinRate90DayRankInRace: number;
  /** R: rank of trainer14DayWinRate among runners whose trainer has runners; 0 without */
  trainer14DayWinRateRankInRace: number;
}

export interface StartPosition {
  distanceYards: number;
  description: string;
}

export interface SurfacePeriod {
  /** YYYY-MM-DD, first day in force */
  from: string;
  /** turf | aw */
  surface: string;
  description: string;
}

export interface CourseTurn {
  startM: number;
  endM: number;
  /** signed, left positive */
  headingChangeDeg: number;
  minRadiusM: number;
  /** 1 gentle (>= 200 m), 2 moderate (100-200 m), 3 sharp (< 100 m) */
  severity: number;
}

export interface ProfilePoint {
  distanceM: number;
  heightM: number;
}

export interface OsmWay {
  id: number;
  version: null | number;
}

export interface TopologyProvenance {
  /** openstreetmap | file | generated */
  geometrySource: string;
  osmWays: Array<OsmWay>;
  /** dem | generated */
  elevationSource: string;
  demProducts: Array<string>;
  demTiles: Array<string>;
  /** YYYY-MM-DD */
  measuredOn: string;
  method: string;
}

/** Measured topology (docs/topology.md): metres, 10 m resampling, 5-sample smoothing, turns under 400 m radius, a profile every 50 m */
export interface CourseTopology {
  /** sum of rises of the smoothed heights over one circuit, 1 dp */
  totalClimbM: number;
  /** (climb + descent) / length in km, 2 dp */
  undulationIndex: number;
  /** max - min of the smoothed heights, 1 dp */
  elevationRangeM: number;
  /** length of one circuit (or of the line when open), 1 dp */
  circuitLengthM: null | number;
  totalDescentM: null | number;
  /** a closed circuit (else an open line, e.g. a straight course) */
  closed: boolean;
  /** the oriented running line as [lon, lat] (WGS84), from the start */
  centreline: Array<Array<number>>;
  turns: Array<CourseTurn>;
  /** smoothed height every 50 m from the start */
  profile: Array<ProfilePoint>;
  provenance: null | TopologyProvenance;
  /** attribution texts of exactly the sources this block used */
  attribution: Array<string>;
}

/** A racecourse (one track variant), one version of it: identity, layout facts, dated surface history and measured topology when known. Each version is an event with publishedAt; a row uses the version in force at its off (the latest published before it). */
export interface Course {
  courseId: string;
  /** when this version became known (UTC epoch ms); 0 for a version written before versions carried it */
  publishedAt: number;
  name: string;
  country: string;
  /** GB, IRE or INT */
  region: string;
  /** e.g. AW, July, Rowley; null for the main track */
  trackVariant: null | string;
  /** other variants at the same venue (e.g. the AW track of a turf course), sorted */
  siblingCourseIds: Array<string>;
  /** the racecourse group that runs the course; "" unknown */
  operator: string;
  /** turf | aw | mixed */
  surfaceKind: string;
  /** left | right | figure-of-eight | straight | unknown */
  direction: string;
  /** oval | triangle | horseshoe | pear | undulating-circuit | figure-of-eight | straight; "" unknown */
  shape: string;
  /** length of one circuit in yards; null unknown or straight only */
  circuitLengthYards: null | number;
  /** length of the run-in (home straight) in yards; null unknown */
  straightLengthYards: null | number;
  /** where the standard distances start, where known */
  startPositions: Array<StartPosition>;
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
  /** c colt, f filly, g gelding, m mare, h horse (entire, 4yo+), r rig; "" unknown. Added in v2 */
  sex: string;
  /** canonical headgear: the distinct codes in the order b blinkers, v visor, h hood, p cheekpieces, t tongue strap, e eye shield (e.g. "bt"); "" none. No first-time marker: first time is derived from history. Added in v2 */
  headgear: string;
  /** the rider's allowance in lbs (apprentice, conditional, amateur), already taken off weightLbs; 0 none. Added in v2 */
  jockeyClaimLbs: number;
  /** own_ + opaque token; "" unknown. Added in v2 */
  ownerId: string;
  /** "" unknown. Added in v2 */
  ownerName: string;
  /** dam_ + opaque token; "" unknown. Added in v2 */
  damId: string;
  /** "" unknown. Added in v2 */
  damName: string;
  /** the dam's sire: sir_ + opaque token, the same id space as sireId (a dam sire is a sire); "" unknown. Added in v2 */
  damSireId: string;
  /** "" unknown. Added in v2 */
  damSireName: string;
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
  /** true for a handicap (weights set by official ratings). Importer: the race name contains "handicap", any case. Added in v2: false when written by v1 */
  isHandicap: boolean;
  /** black-type status: none (not black type), listed, group3, group2, group1 (Grade 1-3 map to group1-3; other gradings such as Grade A/B are none); "" unknown. Added in v2 */
  pattern: string;
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
