/**
 * The indexed entity kinds, described once: how a runner is keyed, what one run (or one race)
 * contributes, how far back the row's queries read, and which row fields each kind computes. The
 * engine loops over this table to prefetch, make resident, link and unlink runs and assemble rows, so
 * adding an entity (owner, dam, dam sire, a composite key of catalogue.md) is one entry here.
 *
 * Every entry's fields are a function of the race's own card and of ONE key's visible history
 * (features.md, catalogue.md "One entity"). The horse is not here: its history is a short list of runs
 * (horse.ts, horse-catalogue.ts), not a windowed index.
 */
import type { AnalyticsRow } from '../avro-types.generated.js';
import {
  DISCIPLINES,
  DISTANCE_BUCKETS,
  disciplineCode,
  distanceBucket,
  distanceBucketCode,
  GOING_GROUPS,
  SURFACES,
  surfaceCode,
} from '../codes.js';
import { round1, round4, roundHalfAway } from '../rounding.js';
import { MS_PER_DAY, utcDaysBetween } from '../time.js';
import { inForceAt, type SnapshotCalendar } from './snapshot-calendar.js';
import { courseRaceVector as courseRaceVectorOf, courseSnapshotFields } from './snapshot-fields.js';
import { writeTag } from './tags.js';
import {
  type ChunkPeriod,
  type TagSpace,
  type WindowCounts,
  windowCounts,
  type WindowSource,
} from './window-source.js';

/** What keys and vectors read of a race: from the card used for the race's own fields. */
export interface RaceFacts {
  off: number;
  courseId: string;
  discipline: string;
  surface: string;
  distanceYards: number;
  /** going group code, 0 unknown */
  goingGroup: number;
  /** 0 unknown */
  raceClass: number;
}

/** What keys and vectors read of one runner: its card line, plus its result once the race is run. */
export interface RunnerFacts {
  horseId: string;
  jockeyId: string;
  trainerId: string;
  /** '' unknown */
  ownerId: string;
  sireId: string | null;
  /** '' unknown */
  damId: string;
  /** '' unknown */
  damSireId: string;
  draw: number;
  officialRating: number;
  weightLbs: number;
  /** canonical headgear text, '' none */
  headgear: string;
  /** result facts (absent while the race is pending) */
  position?: number;
  figure?: number | null;
  startingPrice?: number | null;
  favourite?: boolean;
  /** runners sharing this position (2 in a two-way dead heat) */
  deadHeat?: number;
  beatenLengths?: number | null;
}

/** What an entry's features read of today's race and runner beyond the key. */
export interface RowContext {
  off: number;
  /** today's race facts, as its keys were built from (the category of a folded composite, below) */
  race: RaceFacts;
  /** the course-snapshot periods (monthly, daily once live) */
  cal: SnapshotCalendar;
  /** this runner's card facts (the second key of a tagged composite: its jockey) */
  runner: RunnerFacts;
  /** this runner's draw third (0 low, 1 middle, 2 high), -1 without a draw */
  drawThird: number;
  draw: number;
}

/** Writes an entry's fields into the row and returns the latest visibleAt it read (0 when none). */
export type EntityFeatures = (src: WindowSource | undefined, ctx: RowContext, row: AnalyticsRow) => number;

interface EntityKindBase {
  /** store name of the kind (short: it prefixes every state key of the kind) */
  readonly kind: string;
  /** width of the vector each event carries */
  readonly width: number;
  /**
   * The lengths of the windows the row's queries read, ending at the off (ms); Infinity = all
   * history. Each window's first month is read in detail, so each must be made resident.
   */
  readonly windowsMs: readonly number[];
  /** the instant the row's queries are "as of" for a race off at `off` (the off itself by default) */
  readonly asOf?: (off: number, cal: SnapshotCalendar) => number;
  /** a dimension whose latest event the features ask for (days since the last winner) */
  readonly lastDim?: number;
  /**
   * The composite keys of catalogue.md answered from this kind's index (jockey+course from the jockey's):
   * its events carry each second key's tag (`TagSpace`) and the features count the events with today's
   * (`WindowSource.windowTagged`); the index keeps each month's totals per tag, and a tagged window reads
   * its whole months from them (its edge months in detail, as an untagged window). Each with the lengths
   * of the tagged windows read (their first months are made resident like the untagged windows').
   */
  readonly tags?: readonly TaggedComposite[];
  /**
   * Family R reads a field of this kind in every row of the race (the jockey's and the trainer's win
   * rates): a provisional row depends on this kind's history of every runner, and its computedAtUtc
   * counts the latest of them.
   */
  readonly rankedInRace?: boolean;
  /**
   * How much of the calendar one stored chunk of the kind's index holds: a month (the default), or a
   * year for a kind whose keys are sparse (a dam's or an owner's few runs a year), so that each key
   * keeps, loads and checkpoints one chunk a year rather than one for nearly every event. Untagged kinds
   * only. It changes where a window's sums come from (more of a year's events in detail, fewer whole
   * months' totals), not what they count: the three-year export is byte-identical either way.
   */
  readonly chunkPeriod?: ChunkPeriod;
  readonly features: EntityFeatures;
}

/** A kind keyed per runner: one event per run, keyed raceId:horseId. */
export interface RunnerEntityKind extends EntityKindBase {
  readonly per: 'runner';
  /** the runner's key, or null when its card names none (the run counts for none) */
  readonly key: (r: RunnerFacts, race: RaceFacts) => string | null;
  /** the event vector of a run (r has its result) */
  readonly vector: (r: RunnerFacts, race: RaceFacts) => number[];
}

/** A kind keyed per race (the course snapshot key): one event per race, keyed raceId. */
export interface RaceEntityKind extends EntityKindBase {
  readonly per: 'race';
  readonly key: (race: RaceFacts) => string;
  /** the event vector of a run race, from its starters (with results) */
  readonly vector: (ran: readonly RunnerFacts[]) => number[];
}

export type EntityKind = RunnerEntityKind | RaceEntityKind;

/** A composite key answered from its parent's index: the tag its events carry and the windows read of it. */
export interface TaggedComposite {
  readonly space: TagSpace;
  /** the lengths of the tagged windows its fields read, ending at the off (ms) */
  readonly windowsMs: readonly number[];
}

/** The tag spaces of a kind's index (empty for a kind without composites). */
export function tagSpacesOf(k: EntityKind): readonly TagSpace[] {
  return k.tags?.map((c) => c.space) ?? [];
}

export const DAY = MS_PER_DAY;
export const DAYS_14 = 14 * DAY;
export const DAYS_30 = 30 * DAY;
export const DAYS_90 = 90 * DAY;
export const DAYS_365 = 365 * DAY;
/** catalogue.md: "5 years" is 1826 days */
export const DAYS_5Y = 1826 * DAY;
/** days-since-last-winner is capped at 729: wins older than this need no exact date */
export const LAST_WIN_HORIZON = 800 * DAY;
const NO_WIN_DAYS = 730;

// ---- vectors ----

/** The performance vector of a run: win, placed (1..3), and the SP-based sums of catalogue.md. */
export const PERF = { win: 0, placed: 1, spWins: 2, invSp: 3, stake: 4, winYards: 5 } as const;
const PERF_WIDTH = 5;
const PERF_DIST_WIDTH = 6;
const WIN_ONLY = 1;

function isWin(r: RunnerFacts): boolean {
  return r.position === 1;
}

/** [win, placed, spWins, invSp, stake]: an SP-less run is left out of the SP sums (catalogue.md). */
function perfVector(r: RunnerFacts, race: RaceFacts, withDistance: boolean): number[] {
  const win = isWin(r) ? 1 : 0;
  const pos = r.position ?? 0;
  const v = [win, pos >= 1 && pos <= 3 ? 1 : 0, 0, 0, 0];
  const sp = r.startingPrice;
  if (sp != null && sp > 0) {
    v[PERF.spWins] = win;
    v[PERF.invSp] = 1 / sp;
    v[PERF.stake] = win ? sp / (r.deadHeat ?? 1) - 1 : -1;
  }
  if (withDistance) v.push(win ? race.distanceYards : 0);
  return v;
}

const winVector = (r: RunnerFacts): number[] => [isWin(r) ? 1 : 0];

// ---- feature helpers ----

const rate = (num: number, den: number): number => (den > 0 ? round4(num / den) : 0);
const ae = (wins: number, invSp: number): number => (invSp > 0 ? round4(wins / invSp) : 0);
const shrunk = (wins: number, runs: number): number => round4((wins + 2) / (runs + 20));
const round2 = (x: number): number => roundHalfAway(x, 2);
/** Sums of counts kept as doubles: integral in exact arithmetic, so round away float noise. */
const count = (x: number): number => Math.round(x);

function daysSinceLast(src: WindowSource, dim: number, off: number): number {
  const last = src.lastOffWith?.(dim, off, off - LAST_WIN_HORIZON);
  if (last === undefined) return NO_WIN_DAYS;
  if (last === Number.NEGATIVE_INFINITY) return NO_WIN_DAYS - 1;
  return Math.min(utcDaysBetween(last, off), NO_WIN_DAYS - 1);
}

/** The row's fields a runs-and-win-rate pair is written to. */
type CountField = { [K in keyof AnalyticsRow]: AnalyticsRow[K] extends number ? K : never }[keyof AnalyticsRow];

/** Writes runs and win rate to the two named fields of the row. */
const runsAndRate =
  (runs: CountField, winRate: CountField) =>
  (row: AnalyticsRow, n: number, wr: number): void => {
    row[runs] = n;
    row[winRate] = wr;
  };

// ---- composites folded into their parent's vector ----

/** A race category with a closed code table (codes.ts): 1..size, 0 when the race has none. */
interface RaceCategory {
  readonly size: number;
  readonly code: (race: RaceFacts) => number;
}

const BY_DISCIPLINE: RaceCategory = { size: DISCIPLINES.length, code: (x) => disciplineCode(x.discipline) };
const BY_SURFACE: RaceCategory = { size: SURFACES.length, code: (x) => surfaceCode(x.surface) };
/** goingGroupCode: 0 when the going is unknown (such a run has no sire+going key and counts for none) */
const BY_GOING_GROUP: RaceCategory = { size: GOING_GROUPS.length, code: (x) => x.goingGroup };
const BY_DISTANCE_BUCKET: RaceCategory = {
  size: DISTANCE_BUCKETS.length,
  code: (x) => distanceBucketCode(distanceBucket(x.distanceYards)),
};

/**
 * A composite key of catalogue.md (jockey+discipline, sire+surface, ...) stored as dimensions of its
 * parent's vector rather than as a kind of its own: its second key is a race category with a handful
 * of values and its window is one the parent's features read already.
 */
interface FoldedComposite {
  readonly by: RaceCategory;
  /** writes the composite's fields: runs and win rate in today's category */
  readonly write: (row: AnalyticsRow, runs: number, winRate: number) => void;
}

/**
 * The folded composites of a parent whose own vector has `base` dimensions: two more dimensions per
 * value of each category, "ran in it" and "won in it", summed over the parent's window, and today's
 * category's pair read from those sums. The counts are exactly the composite key's: every run of the
 * parent key is in the slot of its race's value (the values are closed: discipline and surface by input
 * validation, validate.ts; going groups and distance buckets are computed), and a race with no value
 * (going unknown) had no composite key, so it is in none and today's fields stay at their defaults. The
 * events are the parent's, so the latest visibleAt the parent's window reports covers the composite's.
 */
interface Folds {
  /** the parent's width with the folded dimensions */
  readonly width: number;
  /** the parent's vector `v` (of `base` dimensions) of a run, with the folded dimensions appended */
  vector(v: number[], r: RunnerFacts, race: RaceFacts): number[];
  /** writes every folded composite's fields for today's race from the parent's window sums */
  features(sums: readonly number[], race: RaceFacts, row: AnalyticsRow): void;
}

function foldInto(base: number, composites: readonly FoldedComposite[]): Folds {
  const first: number[] = [];
  let width = base;
  for (const c of composites) {
    first.push(width);
    width += 2 * c.by.size;
  }
  /** the first of the pair of dimensions of the race's value of composite i, -1 when it has none */
  const dimOf = (i: number, race: RaceFacts): number => {
    const { size, code } = composites[i]!.by;
    const c = code(race);
    return c >= 1 && c <= size ? first[i]! + 2 * (c - 1) : -1;
  };
  return {
    width,
    vector(v, r, race) {
      for (let d = base; d < width; d++) v.push(0);
      const win = isWin(r) ? 1 : 0;
      for (let i = 0; i < composites.length; i++) {
        const d = dimOf(i, race);
        if (d < 0) continue;
        v[d] = 1;
        v[d + 1] = win;
      }
      return v;
    },
    features(sums, race, row) {
      for (let i = 0; i < composites.length; i++) {
        const d = dimOf(i, race);
        if (d < 0) continue;
        const runs = count(sums[d]!);
        composites[i]!.write(row, runs, rate(sums[d + 1]!, runs));
      }
    },
  };
}

// ---- the table ----

const sep = '|';

/**
 * Composite keys, interned: `composite(a, b)` returns the same string object for the same parts, so
 * the many lookups of one key hash it once (a key concatenated afresh is flattened and hashed again at
 * every Map lookup, which dominated the engine's profile). Bounded: cleared when it grows past a limit.
 */
const composites = new Map<string, Map<string, string>>();
let compositeCount = 0;
const COMPOSITE_LIMIT = 500_000;

export function composite(a: string, b: string): string {
  let inner = composites.get(a);
  if (!inner) {
    if (compositeCount >= COMPOSITE_LIMIT) {
      composites.clear();
      compositeCount = 0;
    }
    inner = new Map();
    composites.set(a, inner);
  }
  let k = inner.get(b);
  if (k === undefined) {
    k = a + sep + b;
    inner.set(b, k);
    compositeCount++;
  }
  return k;
}

/** jockey+discipline: today's discipline over the jockey's 365 days */
const JOCKEY_FOLDS = foldInto(PERF_WIDTH, [
  {
    by: BY_DISCIPLINE,
    write: runsAndRate('jockeyDisciplineRides365Day', 'jockeyDisciplineWinRate365Day'),
  },
]);

/**
 * jockey+course over five years, answered from the jockey's index: each event carries its course's tag
 * after the jockey's own dimensions, and the window counts the runs and wins of today's course.
 */
const JOCKEY_COURSE: TaggedComposite = {
  space: { dim: JOCKEY_FOLDS.width, dims: [PERF.win] },
  windowsMs: [DAYS_5Y],
};

const JOCKEY_W = {
  w14: windowCounts(JOCKEY_FOLDS.width + 2),
  w90: windowCounts(JOCKEY_FOLDS.width + 2),
  y: windowCounts(JOCKEY_FOLDS.width + 2),
  course: windowCounts(1),
};
const todayTag = [0, 0];

export const JOCKEY: RunnerEntityKind = {
  kind: 'jockey',
  per: 'runner',
  rankedInRace: true,
  width: JOCKEY_FOLDS.width + 2,
  windowsMs: [DAYS_14, DAYS_90, DAYS_365],
  lastDim: PERF.win,
  tags: [JOCKEY_COURSE],
  key: (r) => r.jockeyId,
  vector: (r, race) => {
    const v = JOCKEY_FOLDS.vector(perfVector(r, race, false), r, race);
    v.push(0, 0);
    writeTag(race.courseId, v, JOCKEY_COURSE.space.dim);
    return v;
  },
  features(src, { off, race }, row) {
    if (!src) {
      row.jockeyDaysSinceLastWinner = NO_WIN_DAYS;
      return 0;
    }
    const w14 = src.window(off - DAYS_14, off, JOCKEY_W.w14);
    const w90 = src.window(off - DAYS_90, off, JOCKEY_W.w90);
    const y = src.window(off - DAYS_365, off, JOCKEY_W.y);
    const s = y.sums;
    row.jockeyWinRate90Day = rate(w90.sums[PERF.win]!, w90.n);
    row.jockeyRides90Day = w90.n;
    row.jockeyRides14Day = w14.n;
    row.jockeyWinRate14Day = rate(w14.sums[PERF.win]!, w14.n);
    row.jockeyRides365Day = y.n;
    row.jockeyWinRate365Day = rate(s[PERF.win]!, y.n);
    row.jockeyPlaceRate365Day = rate(s[PERF.placed]!, y.n);
    row.jockeyAe365Day = ae(s[PERF.spWins]!, s[PERF.invSp]!);
    row.jockeyLevelStakes365Day = round2(s[PERF.stake]!);
    row.jockeyShrunkWinRate365Day = shrunk(count(s[PERF.win]!), y.n);
    row.jockeyDaysSinceLastWinner = daysSinceLast(src, PERF.win, off);
    JOCKEY_FOLDS.features(s, race, row);
    const jc = tagged(src, JOCKEY_COURSE, off, race.courseId, JOCKEY_W.course);
    row.jockeyCourseRides5Year = jc.n;
    row.jockeyCourseWinRate5Year = rate(jc.sums[0]!, jc.n);
    // (every event a tagged window counts is one of this index's, so its latest visibleAt is the 365-day
    // window's at the latest: the composite adds no input of its own to the row's computedAtUtc)
    return y.latestVisible;
  },
};

/** A composite's tagged window over its parent's index for today's second key. */
function tagged(src: WindowSource, c: TaggedComposite, off: number, second: string, out: WindowCounts): WindowCounts {
  if (!src.windowTagged) throw new Error('an entity source answers no tagged window');
  writeTag(second, todayTag, 0);
  return src.windowTagged(off - c.windowsMs[0]!, off, c.space, todayTag[0]!, todayTag[1]!, out);
}

/** trainer+discipline: today's discipline over the trainer's 365 days */
const TRAINER_FOLDS = foldInto(PERF_WIDTH, [
  {
    by: BY_DISCIPLINE,
    write: runsAndRate('trainerDisciplineRunners365Day', 'trainerDisciplineWinRate365Day'),
  },
]);

/** trainer+course over five years, answered from the trainer's index (its course's tag, after the trainer's own dimensions) */
const TRAINER_COURSE: TaggedComposite = {
  space: { dim: TRAINER_FOLDS.width, dims: [PERF.win] },
  windowsMs: [DAYS_5Y],
};

/** trainer+jockey over 365 days, answered from the trainer's index (its jockey's tag, after the course's) */
const TRAINER_JOCKEY: TaggedComposite = {
  space: { dim: TRAINER_FOLDS.width + 2, dims: [PERF.win, PERF.spWins, PERF.invSp] },
  windowsMs: [DAYS_365],
};

const TRAINER_W = {
  w14: windowCounts(TRAINER_FOLDS.width + 4),
  w30: windowCounts(TRAINER_FOLDS.width + 4),
  y: windowCounts(TRAINER_FOLDS.width + 4),
  course: windowCounts(1),
  jockey: windowCounts(3),
};

export const TRAINER: RunnerEntityKind = {
  kind: 'trainer',
  per: 'runner',
  rankedInRace: true,
  width: TRAINER_FOLDS.width + 4,
  windowsMs: [DAYS_14, DAYS_30, DAYS_365],
  lastDim: PERF.win,
  tags: [TRAINER_COURSE, TRAINER_JOCKEY],
  key: (r) => r.trainerId,
  vector: (r, race) => {
    const v = TRAINER_FOLDS.vector(perfVector(r, race, false), r, race);
    v.push(0, 0, 0, 0);
    writeTag(race.courseId, v, TRAINER_COURSE.space.dim);
    writeTag(r.jockeyId, v, TRAINER_JOCKEY.space.dim);
    return v;
  },
  features(src, { off, race, runner }, row) {
    if (!src) {
      row.stableForm = '0-0-0';
      row.trainerDaysSinceLastWinner = NO_WIN_DAYS;
      return 0;
    }
    const w14 = src.window(off - DAYS_14, off, TRAINER_W.w14);
    const w30 = src.window(off - DAYS_30, off, TRAINER_W.w30);
    const y = src.window(off - DAYS_365, off, TRAINER_W.y);
    const wins14 = count(w14.sums[PERF.win]!);
    const s = y.sums;
    row.trainer14DayWinRate = rate(wins14, w14.n);
    row.trainerRunners14Day = w14.n;
    // W-P-R: P is seconds plus thirds (placed 1..3 less the winners)
    row.stableForm = `${wins14}-${count(w14.sums[PERF.placed]!) - wins14}-${w14.n}`;
    row.trainerRunners30Day = w30.n;
    row.trainerWinRate30Day = rate(w30.sums[PERF.win]!, w30.n);
    row.trainerRunners365Day = y.n;
    row.trainerWinRate365Day = rate(s[PERF.win]!, y.n);
    row.trainerPlaceRate365Day = rate(s[PERF.placed]!, y.n);
    row.trainerAe365Day = ae(s[PERF.spWins]!, s[PERF.invSp]!);
    row.trainerLevelStakes365Day = round2(s[PERF.stake]!);
    row.trainerShrunkWinRate365Day = shrunk(count(s[PERF.win]!), y.n);
    row.trainerDaysSinceLastWinner = daysSinceLast(src, PERF.win, off);
    TRAINER_FOLDS.features(s, race, row);
    const tc = tagged(src, TRAINER_COURSE, off, race.courseId, TRAINER_W.course);
    row.trainerCourseRunners5Year = tc.n;
    row.trainerCourseWinRate5Year = rate(tc.sums[0]!, tc.n);
    const tj = tagged(src, TRAINER_JOCKEY, off, runner.jockeyId, TRAINER_W.jockey);
    row.trainerJockeyRuns365Day = tj.n;
    row.trainerJockeyWinRate365Day = rate(tj.sums[0]!, tj.n);
    row.trainerJockeyAe365Day = ae(tj.sums[1]!, tj.sums[2]!);
    return y.latestVisible;
  },
};

const OWNER_W = windowCounts(PERF_WIDTH);

export const OWNER: RunnerEntityKind = {
  kind: 'owner',
  per: 'runner',
  chunkPeriod: 'year',
  width: PERF_WIDTH,
  windowsMs: [DAYS_365],
  key: (r) => r.ownerId || null,
  vector: (r, race) => perfVector(r, race, false),
  features(src, { off }, row) {
    if (!src) return 0;
    const y = src.window(off - DAYS_365, off, OWNER_W);
    row.ownerRunners365Day = y.n;
    row.ownerWinRate365Day = rate(y.sums[PERF.win]!, y.n);
    row.ownerAe365Day = ae(y.sums[PERF.spWins]!, y.sums[PERF.invSp]!);
    return y.latestVisible;
  },
};

const ALL = Number.POSITIVE_INFINITY;
const bucketOf = (race: RaceFacts): string => distanceBucket(race.distanceYards);

/** sire+surface, sire+going group, sire+distance bucket and sire+discipline over the sire's whole history */
const SIRE_FOLDS = foldInto(PERF_DIST_WIDTH, [
  {
    by: BY_SURFACE,
    write: runsAndRate('sireSurfaceRuns', 'sireSurfaceWinRate'),
  },
  {
    by: BY_GOING_GROUP,
    write: runsAndRate('sireGoingRuns', 'sireGoingWinRate'),
  },
  {
    by: BY_DISTANCE_BUCKET,
    write: runsAndRate('sireDistanceRuns', 'sireDistanceWinRate'),
  },
  {
    by: BY_DISCIPLINE,
    write: runsAndRate('sireDisciplineRuns', 'sireDisciplineWinRate'),
  },
]);

const SIRE_W = windowCounts(SIRE_FOLDS.width);

export const SIRE: RunnerEntityKind = {
  kind: 'sire',
  per: 'runner',
  width: SIRE_FOLDS.width,
  windowsMs: [ALL],
  key: (r) => r.sireId,
  vector: (r, race) => SIRE_FOLDS.vector(perfVector(r, race, true), r, race),
  features(src, { off, race }, row) {
    if (!src) return 0;
    const w = src.window(Number.NEGATIVE_INFINITY, off, SIRE_W);
    const s = w.sums;
    const wins = count(s[PERF.win]!);
    row.sireProgenyWinRate = rate(wins, w.n);
    row.sireProgenyRuns = w.n;
    row.sireProgenyPlaceRate = rate(s[PERF.placed]!, w.n);
    row.sireProgenyAe = ae(s[PERF.spWins]!, s[PERF.invSp]!);
    row.sireShrunkWinRate = shrunk(wins, w.n);
    row.sireMeanWinningDistanceY = wins > 0 ? round1(s[PERF.winYards]! / wins) : null;
    SIRE_FOLDS.features(s, race, row);
    return w.latestVisible;
  },
};

/** dam sire+distance bucket over the dam sire's whole history */
const DAM_SIRE_FOLDS = foldInto(PERF_DIST_WIDTH, [
  {
    by: BY_DISTANCE_BUCKET,
    write: runsAndRate('damSireDistanceRuns', 'damSireDistanceWinRate'),
  },
]);

const DAM_SIRE_W = windowCounts(DAM_SIRE_FOLDS.width);

export const DAM_SIRE: RunnerEntityKind = {
  kind: 'dsire',
  per: 'runner',
  width: DAM_SIRE_FOLDS.width,
  windowsMs: [ALL],
  key: (r) => r.damSireId || null,
  vector: (r, race) => DAM_SIRE_FOLDS.vector(perfVector(r, race, true), r, race),
  features(src, { off, race }, row) {
    if (!src) return 0;
    const w = src.window(Number.NEGATIVE_INFINITY, off, DAM_SIRE_W);
    const wins = count(w.sums[PERF.win]!);
    row.damSireProgenyRuns = w.n;
    row.damSireProgenyWinRate = rate(wins, w.n);
    row.damSireMeanWinningDistanceY = wins > 0 ? round1(w.sums[PERF.winYards]! / wins) : null;
    DAM_SIRE_FOLDS.features(w.sums, race, row);
    return w.latestVisible;
  },
};

const DAM_W = windowCounts(WIN_ONLY);

export const DAM: RunnerEntityKind = {
  kind: 'dam',
  per: 'runner',
  chunkPeriod: 'year',
  width: WIN_ONLY,
  windowsMs: [ALL],
  key: (r) => r.damId || null,
  vector: winVector,
  features(src, { off }, row) {
    if (!src) return 0;
    const w = src.window(Number.NEGATIVE_INFINITY, off, DAM_W);
    row.damProgenyRuns = w.n;
    row.damProgenyWins = count(w.sums[0]!);
    row.damProgenyWinRate = rate(w.sums[0]!, w.n);
    return w.latestVisible;
  },
};

/** The course snapshot key of features.md: (course, discipline, distance bucket, surface). */
export function courseSnapshotKey(courseId: string, discipline: string, bucket: string, surface: string): string {
  return composite(composite(composite(courseId, discipline), bucket), surface);
}

export const COURSE_SNAPSHOT: RaceEntityKind = {
  kind: 'course',
  per: 'race',
  width: 8,
  windowsMs: [ALL],
  asOf: (off, cal) => inForceAt(cal, off),
  key: (x) => courseSnapshotKey(x.courseId, x.discipline, bucketOf(x), x.surface),
  vector: (ran) =>
    courseRaceVectorOf(ran.map((r) => ({ draw: r.draw, position: r.position ?? 0, favourite: r.favourite ?? false }))),
  features: courseSnapshotFields,
};

/**
 * Every indexed entity kind, in a fixed order (the order of loading, linking and row assembly; row
 * values do not depend on it).
 */
export const ENTITY_KINDS: readonly EntityKind[] = [JOCKEY, TRAINER, OWNER, SIRE, DAM, DAM_SIRE, COURSE_SNAPSHOT];

export const ENTITY_BY_KIND: ReadonlyMap<string, EntityKind> = new Map(ENTITY_KINDS.map((k) => [k.kind, k]));

/** The first instant of a window of this length ending at `t`. */
export function windowFrom(lengthMs: number, t: number): number {
  return lengthMs === ALL ? Number.NEGATIVE_INFINITY : t - lengthMs;
}

/** The key of a kind for a runner of a race (per-race kinds ignore the runner). */
export function keyOf(k: EntityKind, r: RunnerFacts, race: RaceFacts): string | null {
  return k.per === 'race' ? k.key(race) : k.key(r, race);
}

/**
 * Every entity key of a race and its runners, in table order (kind by kind, runners in order): `visit`
 * gets the kind, its position in ENTITY_KINDS, the key and the runner's position (-1 for a per-race
 * kind's one key). Runners whose card names no key of a kind are skipped for it.
 */
export function eachEntityKey(
  race: RaceFacts,
  runners: readonly RunnerFacts[],
  visit: (k: EntityKind, ki: number, key: string, j: number) => void,
): void {
  for (let ki = 0; ki < ENTITY_KINDS.length; ki++) {
    const k = ENTITY_KINDS[ki]!;
    if (k.per === 'race') {
      visit(k, ki, k.key(race), -1);
      continue;
    }
    for (let j = 0; j < runners.length; j++) {
      const key = k.key(runners[j]!, race);
      if (key !== null) visit(k, ki, key, j);
    }
  }
}
