/**
 * The Course records of the generator's courses (courses.md "The course record"; docs/courses.md):
 * one version per date a course's record changes, each with the facts known on that date and the
 * course's generated demo topology.
 */
import type { Course, CourseTopology } from './avro-types.generated.js';
import { courseByCode, courseDisciplines, courseIdOf, COURSES, type CourseInfo } from './courses.js';
import { MS_PER_DAY, parseDate } from './time.js';
import { courseTopologyOf, generatedMeasurement } from './topology/index.js';

/** A course version is published this many days (00:00 UTC) before the date it describes. */
export const COURSE_LEAD_DAYS = 3;

/**
 * Dates after a course's opening on which its record changes: a surface period starts, or a sibling
 * track at the venue opens. The feed publishes a new version on each (docs/courses.md).
 */
export function courseChangeDates(c: CourseInfo): string[] {
  const dates = new Set(c.surfaceHistory.map((p) => p.from));
  for (const code of c.siblingCodes) dates.add(courseByCode(code)!.open[0]![0]);
  const opening = c.open[0]![0];
  return [...dates].filter((d) => d > opening).sort();
}

/**
 * The Course version of a course as known on `asOf` (YYYY-MM-DD; default its last change, i.e. the
 * full history): surface periods and sibling tracks not yet started are left out; a date before the
 * course opened is a RangeError. `publishedAt` defaults to 00:00 UTC COURSE_LEAD_DAYS before `asOf`.
 * Every version carries the course's generated demo topology (demoTopology).
 */
export function courseRecord(c: CourseInfo, asOf?: string, publishedAt?: number): Course {
  const date = asOf ?? [c.open[0]![0], ...courseChangeDates(c)].pop()!;
  const day = parseDate(date);
  if (day === undefined) throw new RangeError(`asOf is not a YYYY-MM-DD date: ${date}`);
  const history = c.surfaceHistory.filter((p) => p.from <= date);
  if (history.length === 0)
    throw new RangeError(`${c.name} has no record before ${c.surfaceHistory[0]!.from}: ${date}`);
  const surfaces = new Set(history.map((p) => p.surface));
  const siblings = c.siblingCodes.filter((code) => courseByCode(code)!.open[0]![0] <= date);
  return {
    courseId: courseIdOf(c.code),
    publishedAt: publishedAt ?? day - COURSE_LEAD_DAYS * MS_PER_DAY,
    name: c.name,
    country: c.country,
    region: c.region,
    trackVariant: c.trackVariant,
    siblingCourseIds: siblings.map(courseIdOf).sort(),
    operator: c.operator,
    surfaceKind: surfaces.size > 1 ? 'mixed' : surfaces.has('aw') ? 'aw' : 'turf',
    direction: c.direction,
    shape: c.shape,
    circuitLengthYards: c.circuitLengthYards,
    straightLengthYards: c.straightLengthYards,
    startPositions: c.startPositions.map((p) => ({ distanceYards: p.distanceYards, description: p.description })),
    disciplines: courseDisciplines(c),
    surfaceHistory: history.map((p) => ({ from: p.from, surface: p.surface, description: p.description })),
    topology: demoTopology(c),
  };
}

/** Course versions of every generator course, each with its full history. */
export function courseRecords(): Course[] {
  return COURSES.map((c) => courseRecord(c));
}

const TOPOLOGY = new Map<string, CourseTopology>();

/**
 * The demo topology of a generator course (courses.md): generated geometry of the course's shape,
 * direction and length on generated hills, measured by the topology pipeline; seeded by the course
 * code and dated on its first day in the table, so every run gives the same block. Computed once per
 * course and shared by its versions (treat it as read-only).
 */
export function demoTopology(c: CourseInfo): CourseTopology {
  let t = TOPOLOGY.get(c.code);
  if (t === undefined) {
    const yards = c.shape === 'straight' ? c.straightLengthYards : c.circuitLengthYards;
    const m = generatedMeasurement(c, {
      shape: c.shape,
      measuredOn: c.open[0]![0],
      ...(yards === null ? {} : { circuitLengthYards: yards }),
    });
    t = courseTopologyOf(m.block, m.line);
    TOPOLOGY.set(c.code, t);
  }
  return t;
}
