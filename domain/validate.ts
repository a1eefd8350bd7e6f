/**
 * Validation of input events by rule. An invalid event is never applied: it goes to the dead-letter
 * topic with the reasons, and processing continues.
 */
import type { Course, CourseTopology, RaceCard, RaceResult } from './avro-types.generated.js';
import { canonicalHeadgear, DIRECTIONS, DISCIPLINES, PATTERNS, SEXES, SURFACES } from './codes.js';
import { TRACK_SHAPES } from './course-facts.js';
import { isId } from './ids.js';
import { parseDate } from './time.js';
import { PRODUCTS } from './topology/dem-grid.js';
import { OSM_ATTRIBUTION } from './topology/measure.js';

const isInt = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x);
const isInstant = (x: unknown): boolean => isInt(x) && x > 0 && x < 8.64e15;

/** The largest rider's allowance accepted: 10 lb (a conditional's claim in Ireland; apprentices claim 3/5/7). */
export const MAX_JOCKEY_CLAIM_LBS = 10;

/** Whether `value` is '' (unknown) or one of `table`. */
function oneOfOrEmpty(value: unknown, table: readonly string[]): boolean {
  return value === '' || (typeof value === 'string' && table.includes(value));
}

/** What `oneOfOrEmpty` rejected, naming the accepted values. */
function notOneOf(value: unknown, table: readonly string[], what: string): string {
  return `${what} ${JSON.stringify(value)} must be one of ${table.join(', ')} or "" (unknown)`;
}

/**
 * The label of runner i in a message, made only for a message: every card's runners are checked twice
 * (the processor and the view), and labels made up front were allocated for every runner of every card.
 */
const runnerLabel = (i: number): string => `runners[${i}]`;

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
  if (typeof c.isHandicap !== 'boolean') e.push('isHandicap must be a boolean');
  if (!oneOfOrEmpty(c.pattern, PATTERNS)) e.push(notOneOf(c.pattern, PATTERNS, 'pattern'));
  if (c.runners.length === 0) e.push('a card has at least one runner');
  const seen = new Set<string>();
  for (let i = 0; i < c.runners.length; i++) {
    const r = c.runners[i]!;
    if (!isId('horse', r.horseId)) e.push(`${runnerLabel(i)}.horseId is not a horse id`);
    if (seen.has(r.horseId)) e.push(`${runnerLabel(i)}.horseId ${r.horseId} is declared twice`);
    seen.add(r.horseId);
    if (!isId('jockey', r.jockeyId)) e.push(`${runnerLabel(i)}.jockeyId is not a jockey id`);
    if (!isId('trainer', r.trainerId)) e.push(`${runnerLabel(i)}.trainerId is not a trainer id`);
    if (r.sireId !== null && !isId('sire', r.sireId)) e.push(`${runnerLabel(i)}.sireId is not a sire id`);
    if (!isInt(r.draw) || r.draw < 0) e.push(`${runnerLabel(i)}.draw must be an integer >= 0`);
    if (!isInt(r.weightLbs) || r.weightLbs < 0 || r.weightLbs > 400) e.push(`${runnerLabel(i)}.weightLbs out of range`);
    if (!isInt(r.officialRating) || r.officialRating < 0) e.push(`${runnerLabel(i)}.officialRating must be >= 0`);
    if (!oneOfOrEmpty(r.sex, SEXES)) e.push(notOneOf(r.sex, SEXES, `${runnerLabel(i)}.sex`));
    // ('' is canonical: no headgear)
    if (r.headgear !== '' && (typeof r.headgear !== 'string' || canonicalHeadgear(r.headgear) !== r.headgear))
      e.push(
        `${runnerLabel(i)}.headgear ${JSON.stringify(r.headgear)} is not canonical headgear: distinct codes in the order b, v, h, p, t, e` +
          (typeof r.headgear === 'string' ? ` (expected ${JSON.stringify(canonicalHeadgear(r.headgear))})` : ''),
      );
    if (!isInt(r.jockeyClaimLbs) || r.jockeyClaimLbs < 0 || r.jockeyClaimLbs > MAX_JOCKEY_CLAIM_LBS)
      e.push(`${runnerLabel(i)}.jockeyClaimLbs must be an integer 0..${MAX_JOCKEY_CLAIM_LBS}`);
    if (r.ownerId !== '' && !isId('owner', r.ownerId))
      e.push(`${runnerLabel(i)}.ownerId is not an owner id (own_...) or ""`);
    if (r.damId !== '' && !isId('dam', r.damId)) e.push(`${runnerLabel(i)}.damId is not a dam id (dam_...) or ""`);
    if (r.damSireId !== '' && !isId('sire', r.damSireId))
      e.push(`${runnerLabel(i)}.damSireId is not a sire id (sir_...) or ""`);
  }
  return e;
}

export function validateResult(r: RaceResult): string[] {
  const e: string[] = [];
  if (!isId('race', r.raceId)) e.push(`raceId ${JSON.stringify(r.raceId)} is not a race id`);
  if (!isInstant(r.publishedAt)) e.push('publishedAt is not a valid instant');
  if (r.runners.length === 0) e.push('a result has at least one runner');
  const seen = new Set<string>();
  for (let i = 0; i < r.runners.length; i++) {
    const x = r.runners[i]!;
    if (!isId('horse', x.horseId)) e.push(`${runnerLabel(i)}.horseId is not a horse id`);
    if (seen.has(x.horseId)) e.push(`${runnerLabel(i)}.horseId ${x.horseId} appears twice`);
    seen.add(x.horseId);
    if (!isInt(x.position) || x.position < 0) e.push(`${runnerLabel(i)}.position must be an integer >= 0`);
    if (!Number.isFinite(x.beatenLengths) || x.beatenLengths < 0)
      e.push(`${runnerLabel(i)}.beatenLengths must be >= 0`);
  }
  return e;
}

const COURSE_REGIONS = ['GB', 'IRE', 'INT'];
const SURFACE_KINDS = ['turf', 'aw', 'mixed'];
const GEOMETRY_SOURCES = ['openstreetmap', 'file', 'generated'];
const ELEVATION_SOURCES = ['dem', 'generated'];
/** No course is longer than this (Aintree's National course is about 4,000 yards round). */
const MAX_COURSE_YARDS = 12_000;

/** null, or a whole number of yards in 1..MAX_COURSE_YARDS. */
function badYards(x: unknown, what: string): string | undefined {
  if (x === null || (isInt(x) && x > 0 && x <= MAX_COURSE_YARDS)) return undefined;
  return `${what} ${JSON.stringify(x)} must be null (unknown) or a whole number of yards in 1..${MAX_COURSE_YARDS}`;
}

export function validateCourse(c: Course): string[] {
  const e: string[] = [];
  if (!isId('course', c.courseId)) e.push(`courseId ${JSON.stringify(c.courseId)} is not a course id`);
  // 0 is the default a version written before versions carried publishedAt decodes with.
  if (c.publishedAt !== 0 && !isInstant(c.publishedAt)) e.push('publishedAt is not a valid instant (or 0)');
  if (c.name.trim() === '') e.push('name is empty');
  if (!COURSE_REGIONS.includes(c.region)) e.push(`region ${JSON.stringify(c.region)} must be one of GB, IRE, INT`);
  if (!SURFACE_KINDS.includes(c.surfaceKind))
    e.push(`surfaceKind ${JSON.stringify(c.surfaceKind)} must be one of ${SURFACE_KINDS.join(', ')}`);
  if (c.direction !== 'unknown' && !(DIRECTIONS as readonly string[]).includes(c.direction))
    e.push(`direction ${JSON.stringify(c.direction)} must be one of ${DIRECTIONS.join(', ')} or unknown`);
  if (c.shape !== '' && !(TRACK_SHAPES as readonly string[]).includes(c.shape))
    e.push(`shape ${JSON.stringify(c.shape)} must be one of ${TRACK_SHAPES.join(', ')} or "" (unknown)`);
  for (const bad of [
    badYards(c.circuitLengthYards, 'circuitLengthYards'),
    badYards(c.straightLengthYards, 'straightLengthYards'),
  ])
    if (bad) e.push(bad);
  c.siblingCourseIds.forEach((id, i) => {
    if (!isId('course', id)) e.push(`siblingCourseIds[${i}] ${JSON.stringify(id)} is not a course id`);
    else if (id === c.courseId) e.push(`siblingCourseIds[${i}] is the course itself`);
    else if (i > 0 && !(c.siblingCourseIds[i - 1]! < id)) e.push('siblingCourseIds must be sorted and distinct');
  });
  c.startPositions.forEach((p, i) => {
    if (!(isInt(p.distanceYards) && p.distanceYards > 0 && p.distanceYards <= MAX_COURSE_YARDS))
      e.push(`startPositions[${i}].distanceYards must be a whole number of yards in 1..${MAX_COURSE_YARDS}`);
  });
  c.disciplines.forEach((d, i) => {
    if (!(DISCIPLINES as readonly string[]).includes(d))
      e.push(`disciplines[${i}] ${JSON.stringify(d)} must be one of ${DISCIPLINES.join(', ')}`);
  });
  c.surfaceHistory.forEach((p, i) => {
    const at = `surfaceHistory[${i}]`;
    if (parseDate(p.from) === undefined) e.push(`${at}.from ${JSON.stringify(p.from)} is not a YYYY-MM-DD date`);
    else if (i > 0 && p.from < c.surfaceHistory[i - 1]!.from)
      e.push(`${at}.from ${p.from} is before the previous entry's ${c.surfaceHistory[i - 1]!.from}: dates must ascend`);
    if (!(SURFACES as readonly string[]).includes(p.surface))
      e.push(`${at}.surface ${JSON.stringify(p.surface)} must be one of ${SURFACES.join(', ')}`);
  });
  if (c.topology !== null) e.push(...topologyProblems(c.topology));
  return e;
}

const finite = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

function topologyProblems(t: CourseTopology): string[] {
  const e: string[] = [];
  for (const k of ['totalClimbM', 'undulationIndex', 'elevationRangeM'] as const)
    if (!finite(t[k]) || t[k] < 0) e.push(`topology.${k} must be a finite number >= 0`);
  if (t.circuitLengthM !== null && !(finite(t.circuitLengthM) && t.circuitLengthM > 0))
    e.push('topology.circuitLengthM must be null or a finite number > 0');
  if (t.totalDescentM !== null && !(finite(t.totalDescentM) && t.totalDescentM >= 0))
    e.push('topology.totalDescentM must be null or a finite number >= 0');
  // One message per list: a broken centreline of 400 points is one problem.
  const badPoint = t.centreline.findIndex(
    (q) => q.length !== 2 || !finite(q[0]) || !finite(q[1]) || Math.abs(q[0]) > 180 || Math.abs(q[1]) > 90,
  );
  if (badPoint >= 0) e.push(`topology.centreline[${badPoint}] must be [lon, lat] in degrees (finite, WGS84 range)`);
  const badTurn = t.turns.findIndex(
    (x) =>
      !finite(x.startM) ||
      !finite(x.endM) ||
      x.endM < x.startM ||
      !finite(x.headingChangeDeg) ||
      !(finite(x.minRadiusM) && x.minRadiusM > 0) ||
      ![1, 2, 3].includes(x.severity),
  );
  if (badTurn >= 0)
    e.push(
      `topology.turns[${badTurn}] needs finite startM <= endM, a finite headingChangeDeg, minRadiusM > 0 and severity 1..3`,
    );
  const badProfile = t.profile.findIndex(
    (q, i) => !finite(q.distanceM) || !finite(q.heightM) || (i > 0 && q.distanceM < t.profile[i - 1]!.distanceM),
  );
  if (badProfile >= 0) e.push(`topology.profile[${badProfile}] needs finite numbers, distances ascending`);
  const p = t.provenance;
  if (p !== null) {
    if (!GEOMETRY_SOURCES.includes(p.geometrySource))
      e.push(`topology.provenance.geometrySource must be one of ${GEOMETRY_SOURCES.join(', ')}`);
    if (!ELEVATION_SOURCES.includes(p.elevationSource))
      e.push(`topology.provenance.elevationSource must be one of ${ELEVATION_SOURCES.join(', ')}`);
    if (parseDate(p.measuredOn) === undefined)
      e.push(`topology.provenance.measuredOn ${JSON.stringify(p.measuredOn)} is not a YYYY-MM-DD date`);
    // Attribution of exactly the sources used (courses.md): the ODbL credit for OSM geometry, the
    // product's credit for a named elevation model, none for generated data.
    if (p.geometrySource === 'openstreetmap' && !t.attribution.includes(OSM_ATTRIBUTION))
      e.push(`topology.attribution must include "${OSM_ATTRIBUTION}" when geometrySource is openstreetmap`);
    for (const product of p.demProducts) {
      const credit = Object.values(PRODUCTS).find((x) => x.name === product)?.attribution;
      if (credit && !t.attribution.includes(credit))
        e.push(`topology.attribution must include the ${product} credit "${credit}"`);
    }
    if (p.geometrySource === 'generated' && p.elevationSource === 'generated' && t.attribution.length > 0)
      e.push('topology.attribution must be empty for generated geometry and elevation (no source to credit)');
  }
  return e;
}
