/**
 * The course endpoints (docs/courses.md "Endpoints"): the course collection, a course's profile on a
 * date, its snapshot rows (keyed), and the open topology dataset (no key, limited per client address).
 * Lists are sorted here as well as by the read model: the order is part of the API contract.
 */
import type { FastifyInstance } from 'fastify';
import type { Course, CourseSnapshot, CourseTopology } from '../domain/avro-types.generated.js';
import {
  apiSurfaceKind,
  periodEndOfLabel,
  snapshotKeyOf,
  topologyKind,
  type TopologyKind,
} from '../domain/course-profile.js';
import { RacingError } from '../domain/errors.js';
import { isId } from '../domain/ids.js';
import { isoUtc, MS_PER_DAY, parseDate, utcDate } from '../domain/time.js';
import { OSM_ATTRIBUTION } from '../domain/topology/index.js';
import type { CourseInForce, ReadModel, SnapshotPosition } from '../state/read-model-port.js';
import {
  COURSE_DIRECTIONS,
  CourseIdParams,
  CourseProfileSchema,
  CourseSnapshotsQuery,
  CourseSnapshotsResponse,
  CoursesResponse,
  TopologyDatasetSchema,
} from './course-schemas.js';
import { invalidParam } from './errors.js';
import type { ResponseCache } from './response-cache.js';
import { DateString } from './schemas.js';
import { Type } from '@sinclair/typebox';

/** Longest inclusive range of period ends per snapshot request (design.md: over 366 days is range_too_large). */
export const MAX_SNAPSHOT_RANGE_DAYS = 366;
/** Snapshot rows per page; `next` continues. */
export const SNAPSHOT_PAGE_SIZE = 1000;

/** The open topology dataset's licence (interface-spec.md "Data licensing"). */
export const ODBL = {
  name: 'Open Database License (ODbL) v1.0',
  id: 'ODbL-1.0',
  url: 'https://opendatacommons.org/licenses/odbl/1-0/',
} as const;

/** Said of every generated block, wherever it is served. */
export const GENERATED_NOTE =
  'generated demo topology: synthetic geometry on synthetic hills, measured by the same pipeline; ' +
  'not measured, not OpenStreetMap data, not a real place';

const DATASET_NOTE =
  'Course topology measured from course centrelines and elevation models by the definitions of docs/topology.md. ' +
  "Records whose properties.topology is 'measured' are open data under the ODbL with the attribution given; " +
  "records whose properties.topology is 'generated' are synthetic demo topology, listed (and labelled) so the " +
  'format can be seen end to end, never measured data.';

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export const byNameThenId = (a: Course, b: Course): number =>
  compare(a.name, b.name) || compare(a.courseId, b.courseId);

const bySnapshotOrder = (a: CourseSnapshot, b: CourseSnapshot): number =>
  Date.parse(a.periodEndUtc) - Date.parse(b.periodEndUtc) || compare(snapshotKeyOf(a), snapshotKeyOf(b));

function dateParam(name: string, value: string): number {
  const t = parseDate(value);
  if (t === undefined) throw invalidParam('query', name, 'must be a real calendar date in YYYY-MM-DD form');
  return t;
}

function courseIdParam(value: string): string {
  if (!isId('course', value))
    throw invalidParam('path', 'courseId', 'must be a course id: crs_ followed by an opaque token');
  return value;
}

const direction = (d: string): (typeof COURSE_DIRECTIONS)[number] =>
  (COURSE_DIRECTIONS as readonly string[]).includes(d) ? (d as (typeof COURSE_DIRECTIONS)[number]) : 'unknown';

/** One line of GET /courses. */
export function courseSummary(c: Course) {
  const kind = topologyKind(c.topology);
  return {
    courseId: c.courseId,
    name: c.name,
    country: c.country,
    region: c.region,
    trackVariant: c.trackVariant,
    surfaceKind: apiSurfaceKind(c.surfaceKind),
    direction: direction(c.direction),
    hasMeasuredTopology: kind === 'measured',
    topology: kind,
  };
}

function metricsOf(t: CourseTopology) {
  return {
    totalClimbM: t.totalClimbM,
    totalDescentM: t.totalDescentM,
    elevationRangeM: t.elevationRangeM,
    undulationIndex: t.undulationIndex,
    circuitLengthM: t.circuitLengthM,
    closed: t.closed,
  };
}

function provenanceOf(t: CourseTopology) {
  const p = t.provenance;
  if (p === null) return null;
  return {
    geometrySource: p.geometrySource,
    osmWays: p.osmWays.map((w) => ({ id: w.id, version: w.version })),
    elevationSource: p.elevationSource,
    demProducts: [...p.demProducts],
    demTiles: [...p.demTiles],
    measuredOn: p.measuredOn,
    method: p.method,
  };
}

const noteOf = (kind: TopologyKind): string | null => (kind === 'generated' ? GENERATED_NOTE : null);

/** A course's topology block as the profile serves it, labelled measured or generated. */
export function topologyBody(t: CourseTopology) {
  const kind = topologyKind(t)!;
  return {
    kind,
    note: noteOf(kind),
    ...metricsOf(t),
    centreline: t.centreline.map((q) => [q[0]!, q[1]!]),
    turns: t.turns.map((x) => ({ ...x })),
    profile: t.profile.map((x) => ({ ...x })),
    provenance: provenanceOf(t),
    attribution: [...t.attribution],
    licence: { ...ODBL },
  };
}

/** The profile of the version in force on `asOf`. */
export function courseProfile(r: CourseInForce, asOf: string) {
  const c = r.version;
  const kind = topologyKind(c.topology);
  return {
    courseId: c.courseId,
    asOf,
    publishedAt: c.publishedAt > 0 ? isoUtc(c.publishedAt) : null,
    identity: {
      name: c.name,
      country: c.country,
      region: c.region,
      trackVariant: c.trackVariant,
      siblingCourseIds: [...c.siblingCourseIds].sort(compare),
      operator: c.operator === '' ? null : c.operator,
    },
    layout: {
      direction: direction(c.direction),
      shape: c.shape === '' ? null : c.shape,
      circuitLengthYards: c.circuitLengthYards,
      straightLengthYards: c.straightLengthYards,
      disciplines: [...c.disciplines],
      startPositions: c.startPositions.map((p) => ({ distanceYards: p.distanceYards, description: p.description })),
    },
    surfaceKind: apiSurfaceKind(c.surfaceKind),
    surfaceHistory: c.surfaceHistory.map((p) => ({ from: p.from, surface: p.surface, description: p.description })),
    surfaceInForce: r.surfaceInForce.map((p) => ({ from: p.from, surface: p.surface, description: p.description })),
    hasMeasuredTopology: kind === 'measured',
    topology: c.topology === null ? null : topologyBody(c.topology),
  };
}

/** The attribution texts of a set of records: the OpenStreetMap credit first, then the others by text. */
export function attributionOf(lists: readonly (readonly string[])[]): string[] {
  const all = [...new Set(lists.flat())];
  return all.sort((a, b) => (a === OSM_ATTRIBUTION ? -1 : b === OSM_ATTRIBUTION ? 1 : compare(a, b)));
}

/** The open topology dataset: a GeoJSON FeatureCollection, one Feature per course with topology. */
export function topologyDataset(courses: readonly Course[]) {
  const withTopology = [...courses].filter((c) => c.topology !== null).sort(byNameThenId);
  const features = withTopology.map((c) => {
    const t = c.topology!;
    const kind = topologyKind(t)!;
    const line = t.centreline.map((q) => [q[0]!, q[1]!]);
    return {
      type: 'Feature' as const,
      id: c.courseId,
      geometry: line.length >= 2 ? { type: 'LineString' as const, coordinates: line } : null,
      properties: {
        courseId: c.courseId,
        name: c.name,
        topology: kind,
        note: noteOf(kind),
        metrics: metricsOf(t),
        turns: t.turns.map((x) => ({ ...x })),
        profile: t.profile.map((x) => ({ ...x })),
        provenance: provenanceOf(t),
        attribution: [...t.attribution],
      },
    };
  });
  const measured = features.filter((f) => f.properties.topology === 'measured').length;
  return {
    type: 'FeatureCollection' as const,
    licence: { ...ODBL },
    attribution: attributionOf(withTopology.map((c) => c.topology!.attribution)),
    measuredCourses: measured,
    generatedCourses: features.length - measured,
    note: DATASET_NOTE,
    features,
  };
}

/** The cursor of a row: its topic key without the course id. */
const cursorOf = (s: CourseSnapshot): string => `${s.period}:${s.discipline}:${s.distanceBucket}:${s.surface}`;

function positionOf(courseId: string, cursor: string): SnapshotPosition {
  const end = periodEndOfLabel(cursor.slice(0, cursor.indexOf(':')));
  if (end === undefined) throw invalidParam('query', 'cursor', 'must be the nextCursor of a previous page');
  return { periodEnd: end, key: `${courseId}:${cursor}` };
}

interface SnapshotQuery {
  from: string;
  to: string;
  discipline?: string;
  distanceBucket?: string;
  surface?: string;
  cursor?: string;
}

export function courseRoutes(readModel: ReadModel, clock: () => number, cache: ResponseCache) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get(
      '/courses',
      {
        config: { access: 'key' },
        schema: {
          summary: 'Every course',
          description:
            "Ordered by name, then courseId; each course's latest version. surfaceKind 'both' is turf and all-weather; " +
            "topology 'measured' only for real geometry and elevation, 'generated' for synthetic demo topology.",
          tags: ['courses'],
          response: { 200: CoursesResponse },
        },
      },
      async (request, reply) =>
        cache.send(
          request,
          reply,
          'courses',
          async () => ({ courses: [...(await readModel.courses())].sort(byNameThenId).map(courseSummary) }),
          // the key follows from the URL alone (ResponseCache.sendHot)
          { byUrl: true },
        ),
    );

    app.get<{ Params: { courseId: string }; Querystring: { asOf?: string } }>(
      '/courses/:courseId',
      {
        config: { access: 'key' },
        schema: {
          summary: "A course's full profile on a date",
          description:
            'Identity, layout, dated surface history, the surface periods in force on asOf (default today, UTC) and the ' +
            'topology block. The version served is the latest published before the end of asOf (UTC), else the ' +
            "earliest. Before the first day of the course's surface history no surface is in force (surfaceInForce []).",
          tags: ['courses'],
          params: CourseIdParams,
          querystring: Type.Object({ asOf: Type.Optional(DateString) }),
          response: { 200: CourseProfileSchema },
        },
      },
      async (request, reply) => {
        const courseId = courseIdParam(request.params.courseId);
        const asOf = request.query.asOf ?? utcDate(clock());
        dateParam('asOf', asOf);
        return cache.send(
          request,
          reply,
          `course:${courseId}:${asOf}`,
          async () => {
            const r = await readModel.course(courseId, asOf);
            if (!r) throw new RacingError('not_found', `no course ${courseId}`);
            return courseProfile(r, asOf);
          },
          // by URL (ResponseCache.sendHot) only with asOf: without, the key is the clock's day
          { byUrl: request.query.asOf !== undefined },
        );
      },
    );

    app.get<{ Params: { courseId: string }; Querystring: SnapshotQuery }>(
      '/courses/:courseId/analytics',
      {
        config: { access: 'key' },
        schema: {
          summary: "A course's snapshots (draw bias, favourite rates, draw-third win rates)",
          description:
            'The course snapshot rows that runner analytics join (racing.course-snapshots.v1): monthly periods, daily once ' +
            'live. A period is included when its last day is within from..to (inclusive; at most ' +
            `${MAX_SNAPSHOT_RANGE_DAYS} days). Ordered by periodEndUtc, then topic key; ${SNAPSHOT_PAGE_SIZE} rows per ` +
            'page, `next` continues.',
          tags: ['courses'],
          params: CourseIdParams,
          querystring: CourseSnapshotsQuery,
          response: { 200: CourseSnapshotsResponse },
        },
      },
      async (request, reply) => {
        const courseId = courseIdParam(request.params.courseId);
        const { from, to, discipline, distanceBucket, surface, cursor } = request.query;
        const fromMs = dateParam('from', from);
        const toMs = dateParam('to', to);
        if (toMs < fromMs) throw invalidParam('query', 'to', `must not be before from (${from})`);
        const days = (toMs - fromMs) / MS_PER_DAY + 1;
        if (days > MAX_SNAPSHOT_RANGE_DAYS) {
          throw new RacingError(
            'range_too_large',
            `the range ${from}..${to} spans ${days} days; at most ${MAX_SNAPSHOT_RANGE_DAYS} are allowed (page through longer histories a range at a time)`,
          );
        }
        const after = cursor === undefined ? undefined : positionOf(courseId, cursor);
        const filters = {
          ...(discipline !== undefined ? { discipline } : {}),
          ...(distanceBucket !== undefined ? { distanceBucket } : {}),
          ...(surface !== undefined ? { surface } : {}),
        };
        const key = ['snapshots', courseId, from, to, discipline, distanceBucket, surface, cursor].join('|');
        return cache.send(
          request,
          reply,
          key,
          async () => {
            if (!(await readModel.course(courseId, to))) throw new RacingError('not_found', `no course ${courseId}`);
            const page = await readModel.courseSnapshots(courseId, {
              // The period whose last day is D ends at D + 1 day, 00:00 UTC.
              fromPeriodEnd: fromMs + MS_PER_DAY,
              toPeriodEnd: toMs + MS_PER_DAY,
              ...filters,
              ...(after ? { after } : {}),
              limit: SNAPSHOT_PAGE_SIZE,
            });
            const snapshots = [...page.snapshots].sort(bySnapshotOrder);
            const nextCursor = page.hasMore && snapshots.length > 0 ? cursorOf(snapshots.at(-1)!) : null;
            const next =
              nextCursor === null
                ? null
                : `/api/v1/courses/${courseId}/analytics?${new URLSearchParams({ from, to, ...filters, cursor: nextCursor })}`;
            return {
              courseId,
              from,
              to,
              discipline: discipline ?? null,
              distanceBucket: distanceBucket ?? null,
              surface: surface ?? null,
              snapshots,
              nextCursor,
              next,
            };
          },
          { byUrl: true },
        );
      },
    );
  };
}

export function openDataRoutes(readModel: ReadModel, cache: ResponseCache) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get(
      '/open-data/course-topology',
      {
        config: { access: 'public' },
        schema: {
          summary: 'The open course-topology dataset as GeoJSON (no key)',
          description:
            'A GeoJSON FeatureCollection: one Feature per course with topology (the centreline as a LineString, the ' +
            'metrics, turns, profile, provenance and attribution as properties), with the licence (ODbL 1.0) and the ' +
            "attribution of exactly the sources used. Generated demo topology is listed with properties.topology 'generated' " +
            'and a note; it is never measured data. Limited per client address.',
          tags: ['open-data'],
          response: { 200: TopologyDatasetSchema },
        },
      },
      async (request, reply) =>
        cache.send(request, reply, 'open-data:course-topology', async () => topologyDataset(await readModel.courses())),
    );
  };
}
