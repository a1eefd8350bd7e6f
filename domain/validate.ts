/**
 * Validation of input events by rule. An invalid event is never applied: it goes to the dead-letter
 * topic with the reasons, and processing continues.
 */
import type { Course, RaceCard, RaceResult } from './avro-types.generated.js';
import { DISCIPLINES, SURFACES } from './codes.js';
import { isId } from './ids.js';
import { parseDate } from './time.js';

const isInt = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x);
const isInstant = (x: unknown): boolean => isInt(x) && x > 0 && x < 8.64e15;

export function validateCard(c: RaceCard): string[] {
  const e: string[] = [];
  if (!isId('race', c.raceId)) e.push(`raceId ${JSON.stringify(c.raceId)} is not a race id`);
  if (!isInt(c.version) || c.version < 1) e.push('version must be an integer >= 1');
  if (!isInstant(c.publishedAt)) e.push('publishedAt is not a valid instant');
  if (!isInstant(c.offTime)) e.push('offTime is not a valid instant');
  if (parseDate(c.meetingDate) === undefined) e.push(`meetingDate ${JSON.stringify(c.meetingDate)} is not YYYY-MM-DD`);
  if (!isId('course', c.courseId)) e.push(`courseId ${JSON.stringify(c.courseId)} is not a course id`);
  if (!(DISCIPLINES as readonly string[]).includes(c.discipline))
    e.push(`discipline must be one of ${DISCIPLINES.join(', ')}`);
  if (!(SURFACES as readonly string[]).includes(c.surface)) e.push(`surface must be one of ${SURFACES.join(', ')}`);
  if (!isInt(c.distanceYards) || c.distanceYards < 100 || c.distanceYards > 12_000)
    e.push('distanceYards out of range');
  if (!isInt(c.raceClass) || c.raceClass < 0 || c.raceClass > 7) e.push('raceClass must be 0..7');
  if (c.runners.length === 0) e.push('a card has at least one runner');
  const seen = new Set<string>();
  c.runners.forEach((r, i) => {
    const at = `runners[${i}]`;
    if (!isId('horse', r.horseId)) e.push(`${at}.horseId is not a horse id`);
    if (seen.has(r.horseId)) e.push(`${at}.horseId ${r.horseId} is declared twice`);
    seen.add(r.horseId);
    if (!isId('jockey', r.jockeyId)) e.push(`${at}.jockeyId is not a jockey id`);
    if (!isId('trainer', r.trainerId)) e.push(`${at}.trainerId is not a trainer id`);
    if (r.sireId !== null && !isId('sire', r.sireId)) e.push(`${at}.sireId is not a sire id`);
    if (!isInt(r.draw) || r.draw < 0) e.push(`${at}.draw must be an integer >= 0`);
    if (!isInt(r.weightLbs) || r.weightLbs < 0 || r.weightLbs > 400) e.push(`${at}.weightLbs out of range`);
    if (!isInt(r.officialRating) || r.officialRating < 0) e.push(`${at}.officialRating must be >= 0`);
  });
  return e;
}

export function validateResult(r: RaceResult): string[] {
  const e: string[] = [];
  if (!isId('race', r.raceId)) e.push(`raceId ${JSON.stringify(r.raceId)} is not a race id`);
  if (!isInstant(r.publishedAt)) e.push('publishedAt is not a valid instant');
  if (r.runners.length === 0) e.push('a result has at least one runner');
  const seen = new Set<string>();
  r.runners.forEach((x, i) => {
    const at = `runners[${i}]`;
    if (!isId('horse', x.horseId)) e.push(`${at}.horseId is not a horse id`);
    if (seen.has(x.horseId)) e.push(`${at}.horseId ${x.horseId} appears twice`);
    seen.add(x.horseId);
    if (!isInt(x.position) || x.position < 0) e.push(`${at}.position must be an integer >= 0`);
    if (!Number.isFinite(x.beatenLengths) || x.beatenLengths < 0) e.push(`${at}.beatenLengths must be >= 0`);
  });
  return e;
}

export function validateCourse(c: Course): string[] {
  const e: string[] = [];
  if (!isId('course', c.courseId)) e.push(`courseId ${JSON.stringify(c.courseId)} is not a course id`);
  if (c.name.trim() === '') e.push('name is empty');
  return e;
}
