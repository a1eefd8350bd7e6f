/**
 * What the API reads. In both modes the service materialises the topics (cards, results, analytics)
 * into a read model behind this port; the API never touches the log or the processors.
 */
import type { AnalyticsRow, Course, CourseSnapshot, SurfacePeriod } from '../domain/avro-types.generated.js';

/** A race without its runners, as listed by /races and embedded in a race. */
export interface RaceSummary {
  raceId: string;
  courseId: string;
  courseName: string;
  country: string;
  /** ISO 8601 UTC */
  offTime: string;
  /** local meeting date at the course, YYYY-MM-DD */
  meetingDate: string;
  raceName: string;
  discipline: string;
  surface: string;
  distanceYards: number;
  going: string;
  raceClass: number;
  /** declared runners less non-runners on the latest card */
  fieldSize: number;
  cardVersion: number;
  /** 'declared' until the result is in, then 'result' */
  status: 'declared' | 'result';
}

export interface RaceRunner {
  horseId: string;
  horseName: string;
  age: number;
  sireId: string | null;
  sireName: string | null;
  jockeyId: string;
  jockeyName: string;
  trainerId: string;
  trainerName: string;
  saddleCloth: number;
  draw: number;
  weightLbs: number;
  officialRating: number;
  nonRunner: boolean;
  /** c colt, f filly, g gelding, m mare, h horse (entire, 4yo+), r rig; '' unknown */
  sex: string;
  /** canonical headgear codes in the order b v h p t e (e.g. 'pt'); '' none */
  headgear: string;
  /** the rider's allowance in lbs, 0 none */
  jockeyClaimLbs: number;
  /** own_ id and name; '' unknown */
  ownerId: string;
  ownerName: string;
  /** dam_ id and name; '' unknown */
  damId: string;
  damName: string;
  /** the dam's sire: a sir_ id (the same ids as sireId) and name; '' unknown */
  damSireId: string;
  damSireName: string;
  /** finishing position once run (0 = did not finish); null before the result or for non-runners */
  position: number | null;
  /** finished | pulled-up | fell | ...; null before the result */
  resultStatus: string | null;
  beatenLengths: number | null;
  startingPrice: number | null;
  favourite: boolean | null;
}

export interface RaceDetail extends RaceSummary {
  winningTimeSeconds: number | null;
  runners: RaceRunner[];
}

export interface RaceDay {
  /** YYYY-MM-DD (meeting date) */
  date: string;
  races: number;
}

// ---- courses and course snapshots (docs/courses.md "Endpoints") ----

/** The course version in force on a date, and the surface periods in force on it. */
export interface CourseInForce {
  /**
   * The version in force at the end of `asOf` (UTC): the latest published before the start of the next
   * day; when every version was published later, the earliest version (the course as first published).
   */
  version: Course;
  /**
   * The periods of `version.surfaceHistory` in force on `asOf`: per surface (turf, aw), the latest entry
   * whose `from` is on or before `asOf`, ordered by surface; [] when `asOf` is before every entry.
   */
  surfaceInForce: SurfacePeriod[];
}

/** Where a page of snapshots ends: the (periodEnd, topic key) of its last row. */
export interface SnapshotPosition {
  /** epoch ms of the row's periodEndUtc */
  periodEnd: number;
  /** the topic key `courseId:period:discipline:distanceBucket:surface` */
  key: string;
}

export interface CourseSnapshotQuery {
  /** epoch ms; rows whose periodEndUtc is at or after it */
  fromPeriodEnd: number;
  /** epoch ms; rows whose periodEndUtc is at or before it */
  toPeriodEnd: number;
  discipline?: string;
  distanceBucket?: string;
  surface?: string;
  /** only rows strictly after this position (the last row of the previous page) */
  after?: SnapshotPosition;
  /** at most this many rows (>= 1) */
  limit: number;
}

export interface CourseSnapshotPage {
  /** ordered by periodEndUtc, then topic key */
  snapshots: CourseSnapshot[];
  /** true when more rows match after the last one returned */
  hasMore: boolean;
}

export interface ReadModel {
  /** Days with racing in [from, to] (inclusive meeting dates), ascending. */
  raceDays(from: string, to: string): Promise<RaceDay[]>;
  /** Races on a meeting date, ordered by offTime then raceId. */
  racesOn(date: string): Promise<RaceSummary[]>;
  /** Races with offTime in [fromMs, toMs), ordered by offTime then raceId. */
  racesOffBetween(fromMs: number, toMs: number): Promise<RaceSummary[]>;
  race(raceId: string): Promise<RaceDetail | undefined>;
  /** Current analytics rows of a race ordered by horseId; undefined when the race is unknown. */
  analytics(raceId: string): Promise<AnalyticsRow[] | undefined>;
  /** Every current analytics row, ordered by raceId then horseId. */
  allAnalytics(): AsyncIterable<AnalyticsRow>;
  /** The day served by /demo: the latest meeting date on or before `today` whose races all have results. */
  demoDate(today: string): Promise<string | undefined>;
  /**
   * The latest version (highest publishedAt) of every course, ordered by name then courseId. Versions
   * published at the same instant: the one with the greater JSON text (the analytics engine's rule).
   */
  courses(): Promise<Course[]>;
  /** The course in force on `asOf` (YYYY-MM-DD), see CourseInForce; undefined for an unknown course. */
  course(courseId: string, asOf: string): Promise<CourseInForce | undefined>;
  /** A course's current snapshot rows (tombstoned rows are gone), filtered and paged, see the query. */
  courseSnapshots(courseId: string, query: CourseSnapshotQuery): Promise<CourseSnapshotPage>;
  /**
   * A number that changes whenever any answer above may change (after the change is readable). The API
   * caches serialised responses per revision; a model without one gets no response caching.
   */
  revision?(): number;
}
