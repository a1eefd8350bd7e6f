/**
 * Accepted runner rows, grouped by race -> course, card and result events in feed order. Everything
 * here is a function of the rows alone (no clock, no randomness), so a re-import gives the same bytes.
 */
import type { Course, RaceCard, RaceCardRunner, RaceResult, RaceResultRunner } from '../avro-types.generated.js';
import { DISCIPLINES, type Discipline, type Surface } from '../codes.js';
import { type IdKind, makeId } from '../ids.js';
import { validateCard, validateCourse, validateResult } from '../validate.js';
import type { PublishableEvent } from '../events.js';
import { courseIdentity, disciplineOf, isHandicapName } from './mapping.js';
import type { RunnerRow } from './rows.js';
import { ukLocalToUtc } from './uk-time.js';

/** The card is published exactly this long before the off (version 1). */
export const CARD_LEAD_MS = 24 * 3_600_000;
/** The result is published exactly this long after the off. */
export const RESULT_DELAY_MS = 15 * 60_000;
/** A course is published this long before its first card. */
export const COURSE_LEAD_MS = 1;

/** Which rating fills the card's officialRating. */
export type OfficialRatingSource = 'result' | 'card-when-present';

export interface BuildOptions {
  officialRating: OfficialRatingSource;
  fixGbIreMorningOffs: boolean;
  extendedFlatRaceRule: boolean;
}

/** A race being assembled: its rows in file order (duplicates and rejected rows already removed). */
export interface RaceRows {
  rows: RunnerRow[];
  /** index (into the import's file list) of the file each row came from */
  rowFileIndex: number[];
}

/** Source-key -> id, cached per kind (makeId hashes; the same horse appears in many races). */
export class IdCache {
  private readonly caches = new Map<IdKind, Map<string, string>>();
  get(kind: IdKind, sourceKey: string): string {
    let cache = this.caches.get(kind);
    if (!cache) {
      cache = new Map();
      this.caches.set(kind, cache);
    }
    let id = cache.get(sourceKey);
    if (id === undefined) {
      id = makeId(kind, sourceKey);
      cache.set(sourceKey, id);
    }
    return id;
  }
}

/** Source keys: namespaced by source so they can never collide with generator or other importers' ids. */
export const sourceKeys = {
  race: (courseId: string, off: string) => `lsr:race:${courseId}:${off}`,
  course: (courseId: string) => `lsr:course:${courseId}`,
  horse: (horseId: string) => `lsr:horse:${horseId}`,
  jockey: (jockeyId: string) => `lsr:jockey:${jockeyId}`,
  trainer: (trainerId: string) => `lsr:trainer:${trainerId}`,
  sire: (name: string, country: string | null) => `lsr:sire:${name}:${country ?? ''}`,
  owner: (ownerId: string) => `lsr:owner:${ownerId}`,
  /** The files have no dam id or dam country: a dam is keyed by her name as written. */
  dam: (name: string) => `lsr:dam:${name}`,
};

export interface BuiltRace {
  card: RaceCard;
  result: RaceResult;
  /** facts the course record is made from */
  courseSourceId: string;
  courseName: string;
  surfaceText: string;
}

/**
 * The UTC off of a row. With `fixGbIreMorningOffs`, a GB/IRE off written 22:00-23:59 is read as
 * 10:00-11:59: the source parsed its 12-hour times as PM, and no GB or Irish race is run that late.
 */
export function offUtcOf(row: RunnerRow, fixGbIreMorningOffs: boolean): number {
  const o = row.off;
  let hour = o.hour;
  if (fixGbIreMorningOffs && hour >= 22) {
    const { region } = courseIdentity(row.courseName);
    if (region === 'GB' || region === 'IRE') hour -= 12;
  }
  return ukLocalToUtc(o.year, o.month, o.day, hour, o.minute, o.second);
}

/** Builds one race's card and result; `errors` when either would fail the processor's validation. */
export function buildRace(
  race: RaceRows,
  ids: IdCache,
  opts: BuildOptions,
): { race: BuiltRace } | { reason: string; errors: string[] } {
  const first = race.rows[0]!;
  const raceId = ids.get('race', sourceKeys.race(first.courseSourceId, first.offText));
  const courseId = ids.get('course', sourceKeys.course(first.courseSourceId));
  const offTime = offUtcOf(first, opts.fixGbIreMorningOffs);
  const hasStalls = race.rows.some((r) => r.draw > 0);
  const discipline = disciplineOf(first.raceType, first.raceName, { extended: opts.extendedFlatRaceRule, hasStalls });
  const { country } = courseIdentity(first.courseName);

  const cardRunners: RaceCardRunner[] = race.rows.map((r) => ({
    horseId: ids.get('horse', sourceKeys.horse(r.horseSourceId)),
    horseName: r.horseName,
    age: r.age,
    sireId: r.sireName === null ? null : ids.get('sire', sourceKeys.sire(r.sireName, r.sireCountry)),
    sireName: r.sireName === null ? null : r.sireCountry === null ? r.sireName : `${r.sireName} (${r.sireCountry})`,
    jockeyId: ids.get('jockey', sourceKeys.jockey(r.jockeySourceId)),
    jockeyName: r.jockeyName,
    trainerId: ids.get('trainer', sourceKeys.trainer(r.trainerSourceId)),
    trainerName: r.trainerName,
    saddleCloth: r.saddleCloth,
    draw: r.draw,
    weightLbs: r.weightLbs,
    officialRating:
      opts.officialRating === 'card-when-present' && r.cardRating !== null ? r.cardRating : r.resultRating,
    nonRunner: false,
    sex: r.sex,
    headgear: r.headgear,
    jockeyClaimLbs: r.jockeyClaimLbs,
    ownerId: r.ownerSourceId === null ? '' : ids.get('owner', sourceKeys.owner(r.ownerSourceId)),
    ownerName: r.ownerName,
    damId: r.damName === null ? '' : ids.get('dam', sourceKeys.dam(r.damName)),
    damName: r.damName ?? '',
    // No dam sire column in the files.
    damSireId: '',
    damSireName: '',
  }));
  cardRunners.sort((x, y) => x.saddleCloth - y.saddleCloth || cmp(x.horseId, y.horseId));

  const card: RaceCard = {
    raceId,
    version: 1,
    publishedAt: offTime - CARD_LEAD_MS,
    offTime,
    meetingDate: first.off.localDate,
    courseId,
    courseName: first.courseName,
    country,
    raceName: first.raceName,
    discipline: discipline ?? 'unknown',
    surface: first.surface,
    distanceYards: first.distanceYards,
    going: first.going,
    raceClass: first.raceClass,
    isHandicap: isHandicapName(first.raceName),
    pattern: first.pattern,
    runners: cardRunners,
  };

  // Finishing order: finishers by position (a dead heat keeps file order), then non-finishers.
  const order = race.rows.map((r, i) => ({ r, i }));
  order.sort((x, y) => rank(x.r.position) - rank(y.r.position) || x.i - y.i);
  const winner = race.rows.find((r) => r.position === 1);
  const resultRunners: RaceResultRunner[] = order.map(({ r }) => ({
    horseId: ids.get('horse', sourceKeys.horse(r.horseSourceId)),
    position: r.position,
    status: r.status,
    beatenLengths: r.position > 1 ? r.beatenLengths : 0,
    startingPrice: r.startingPrice,
    favourite: r.favourite,
  }));
  const result: RaceResult = {
    raceId,
    publishedAt: offTime + RESULT_DELAY_MS,
    winningTimeSeconds: winner?.raceTimeSeconds ?? null,
    runners: resultRunners,
  };

  const cardErrors = validateCard(card);
  if (cardErrors.length > 0) return { reason: 'invalid-card', errors: cardErrors };
  const resultErrors = validateResult(result);
  if (resultErrors.length > 0) return { reason: 'invalid-result', errors: resultErrors };
  return {
    race: {
      card,
      result,
      courseSourceId: first.courseSourceId,
      courseName: first.courseName,
      surfaceText: first.surfaceText,
    },
  };
}

const rank = (position: number) => (position > 0 ? position : Number.MAX_SAFE_INTEGER);

/** Plain code-unit comparison: deterministic, locale-independent. */
export function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * One course record per CourseId seen. Name and country from the course's latest race (a course can be
 * renamed: id 869 is `Bahrain (BHR)` then `Sakhir (BHR)`); surfaces and disciplines from every race;
 * one surface-history entry from the date of its first race; siblings are the other ids at its venue
 * (venueKey); published 1 ms before its first card.
 */
export function buildCourses(races: BuiltRace[], ids: IdCache): PublishableEvent[] {
  interface Acc {
    courseSourceId: string;
    first: BuiltRace;
    latest: BuiltRace;
    surfaces: Set<Surface>;
    surfaceTexts: Set<string>;
    disciplines: Set<string>;
  }
  const byCourse = new Map<string, Acc>();
  const before = (a: BuiltRace, b: BuiltRace) =>
    a.card.offTime < b.card.offTime || (a.card.offTime === b.card.offTime && a.card.raceId < b.card.raceId);
  for (const r of races) {
    let acc = byCourse.get(r.courseSourceId);
    if (!acc) {
      acc = {
        courseSourceId: r.courseSourceId,
        first: r,
        latest: r,
        surfaces: new Set(),
        surfaceTexts: new Set(),
        disciplines: new Set(),
      };
      byCourse.set(r.courseSourceId, acc);
    }
    if (before(r, acc.first)) acc.first = r;
    if (before(acc.latest, r)) acc.latest = r;
    acc.surfaces.add(r.card.surface as Surface);
    acc.surfaceTexts.add(r.surfaceText);
    acc.disciplines.add(r.card.discipline);
  }
  // Sibling ids: other course ids at the same venue (Newcastle and Newcastle (AW)).
  const venues = new Map<string, string[]>();
  for (const acc of byCourse.values()) {
    const key = venueKey(acc.latest.courseName);
    venues.set(key, [...(venues.get(key) ?? []), ids.get('course', sourceKeys.course(acc.courseSourceId))]);
  }
  const out: PublishableEvent[] = [];
  for (const acc of byCourse.values()) {
    const name = acc.latest.courseName;
    const ident = courseIdentity(name);
    const courseId = ids.get('course', sourceKeys.course(acc.courseSourceId));
    const surfaceKind = acc.surfaces.size > 1 ? 'mixed' : [...acc.surfaces][0]!;
    const publishedAt = acc.first.card.publishedAt - COURSE_LEAD_MS;
    // Course v2's facts the files do not hold (direction, operator, shape, lengths, starts) stay unknown.
    const course: Course = {
      courseId,
      publishedAt,
      name,
      country: ident.country,
      region: ident.region,
      trackVariant: ident.trackVariant,
      siblingCourseIds: venues
        .get(venueKey(name))!
        .filter((id) => id !== courseId)
        .sort(cmp),
      operator: '',
      surfaceKind,
      direction: 'unknown',
      shape: '',
      circuitLengthYards: null,
      straightLengthYards: null,
      startPositions: [],
      disciplines: (DISCIPLINES as readonly string[]).filter((d) => acc.disciplines.has(d as Discipline)),
      surfaceHistory: [
        {
          from: acc.first.card.meetingDate,
          surface: acc.first.card.surface,
          description: `first seen in the results files on ${acc.first.card.meetingDate}; Surface seen: ${[...acc.surfaceTexts].sort().join(', ')}`,
        },
      ],
      topology: null,
    };
    const errors = validateCourse(course);
    // Unreachable: the id comes from makeId and a blank CourseName is rejected per row.
    if (errors.length > 0) throw new Error(`course ${acc.courseSourceId}: ${errors.join('; ')}`);
    out.push({ kind: 'course', publishedAt, value: course });
  }
  return out;
}

/**
 * The venue of a course name: the name without its parenthesised suffixes, and the country without
 * `-ARAB` (an Arabian card at a track is the same venue). `Newcastle`, `Newcastle (AW)` share one;
 * `Newcastle (AUS)` is another.
 */
export function venueKey(courseName: string): string {
  const base = courseName.replace(/(\s*\([^()]*\))+\s*$/, '').trim();
  return `${base}|${courseIdentity(courseName).country.replace(/-ARAB$/, '')}`;
}

const KIND_RANK = { course: 0, card: 1, result: 2 } as const;

function eventKey(e: PublishableEvent): string {
  return e.kind === 'course' ? e.value.courseId : e.value.raceId;
}

/** Feed order: publishedAt, then course < card < result, then raceId (courseId for courses). */
export function compareEvents(a: PublishableEvent, b: PublishableEvent): number {
  return a.publishedAt - b.publishedAt || KIND_RANK[a.kind] - KIND_RANK[b.kind] || cmp(eventKey(a), eventKey(b));
}
