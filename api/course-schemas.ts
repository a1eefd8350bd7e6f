/**
 * Schemas of the course endpoints (docs/courses.md "Endpoints"): the course collection, the course
 * profile, the course snapshot pages and the open topology dataset (GeoJSON). Fastify serialises with
 * them and the OpenAPI document publishes them; the snapshot row is derived from
 * schemas/CourseSnapshot.avsc so the API serves exactly the topic's rows.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import { DISCIPLINES, DISTANCE_BUCKETS, SURFACES } from '../domain/codes.js';
import { avroToJsonSchema, loadAvroSchema } from './avro-json-schema.js';
import { DateString } from './schemas.js';

const Nullable = <T extends TSchema>(t: T) => Type.Union([Type.Null(), t]);
const closed = { additionalProperties: false } as const;

/** A string restricted to `values`, as a JSON Schema enum (Ajv then reports the allowed values). */
export function enumString<T extends string>(values: readonly T[], description: string) {
  return Type.Unsafe<T>({ type: 'string', enum: [...values], description });
}

/** The shape isId('course', ...) accepts. */
export const COURSE_ID_PATTERN = '^crs_[0-9a-z]{1,64}$';

export const CourseIdParams = Type.Object({
  courseId: Type.String({ description: 'course id: crs_ followed by an opaque token', pattern: COURSE_ID_PATTERN }),
});

export const SURFACE_KINDS = ['turf', 'aw', 'both'] as const;
export const COURSE_DIRECTIONS = ['left', 'right', 'straight', 'figure-of-eight', 'unknown'] as const;
export const TOPOLOGY_KINDS = ['measured', 'generated'] as const;

const SurfaceKind = enumString(SURFACE_KINDS, "turf, aw, or both (turf and all-weather; the record's 'mixed')");
const Direction = enumString(COURSE_DIRECTIONS, 'running direction (left-handed = counter-clockwise seen from above)');
const TopologyKindSchema = enumString(
  TOPOLOGY_KINDS,
  'measured: real geometry and elevation (OpenStreetMap or a file, and a DEM); generated: synthetic demo topology, never measured',
);

export const CourseSummarySchema = Type.Object(
  {
    courseId: Type.String({ description: 'crs_ followed by an opaque token' }),
    name: Type.String({ description: 'as racing writes it, variant suffix included, e.g. Newcastle (AW)' }),
    country: Type.String(),
    region: Type.String({ description: 'GB, IRE or INT' }),
    trackVariant: Nullable(Type.String({ description: 'e.g. AW, July; null for the main track' })),
    surfaceKind: SurfaceKind,
    direction: Direction,
    hasMeasuredTopology: Type.Boolean({ description: 'topology present and measured (not generated)' }),
    topology: Nullable(TopologyKindSchema),
  },
  { ...closed, title: 'CourseSummary' },
);

export const CoursesResponse = Type.Object(
  { courses: Type.Array(CourseSummarySchema, { description: 'ordered by name, then courseId' }) },
  { ...closed, title: 'Courses' },
);

export const SurfacePeriodSchema = Type.Object(
  {
    from: DateString,
    surface: enumString(SURFACES, 'turf or aw'),
    description: Type.String({ description: 'e.g. turf, Polytrack, Tapeta, Fibresand' }),
  },
  { ...closed, title: 'SurfacePeriod' },
);

export const LicenceSchema = Type.Object(
  {
    name: Type.String(),
    id: Type.String({ description: 'SPDX identifier' }),
    url: Type.String({ format: 'uri' }),
  },
  { ...closed, title: 'Licence' },
);

export const TurnSchema = Type.Object(
  {
    startM: Type.Number({ description: 'distance from the start, m' }),
    endM: Type.Number(),
    headingChangeDeg: Type.Number({ description: 'signed, left positive' }),
    minRadiusM: Type.Number(),
    severity: Type.Integer({
      minimum: 1,
      maximum: 3,
      description: '1 gentle (>= 200 m), 2 moderate, 3 sharp (< 100 m)',
    }),
  },
  { ...closed, title: 'CourseTurn' },
);

export const ProfilePointSchema = Type.Object(
  { distanceM: Type.Number(), heightM: Type.Number({ description: 'smoothed height, m' }) },
  { ...closed, title: 'ProfilePoint' },
);

export const ProvenanceSchema = Type.Object(
  {
    geometrySource: Type.String({ description: 'openstreetmap | file | generated' }),
    osmWays: Type.Array(
      Type.Object({ id: Type.Integer(), version: Nullable(Type.Integer()) }, { ...closed, title: 'OsmWay' }),
    ),
    elevationSource: Type.String({ description: 'dem | generated' }),
    demProducts: Type.Array(Type.String(), { description: 'e.g. OS Terrain 50, EU-DEM; generated' }),
    demTiles: Type.Array(Type.String(), { description: 'the tiles whose cells were used' }),
    measuredOn: DateString,
    method: Type.String(),
  },
  { ...closed, title: 'TopologyProvenance' },
);

const Position = Type.Array(Type.Number(), {
  minItems: 2,
  maxItems: 2,
  description: '[lon, lat], WGS84 degrees',
});

export const TopologyMetricsSchema = Type.Object(
  {
    totalClimbM: Type.Number({ description: 'sum of the rises of the smoothed heights over one circuit, 1 dp' }),
    totalDescentM: Nullable(Type.Number()),
    elevationRangeM: Type.Number({ description: 'max - min of the smoothed heights, 1 dp' }),
    undulationIndex: Type.Number({ description: '(climb + descent) / length in km, 2 dp' }),
    circuitLengthM: Nullable(Type.Number({ description: 'one circuit (or the line when open), 1 dp' })),
    closed: Type.Boolean({ description: 'a closed circuit (else an open line, e.g. a straight course)' }),
  },
  { ...closed, title: 'TopologyMetrics' },
);

export const CourseTopologySchema = Type.Object(
  {
    kind: TopologyKindSchema,
    note: Nullable(Type.String({ description: 'why generated data is not measured data; null when measured' })),
    ...TopologyMetricsSchema.properties,
    centreline: Type.Array(Position, { description: 'the oriented running line from the start' }),
    turns: Type.Array(TurnSchema, { description: 'stretches with a radius under 400 m, from the start' }),
    profile: Type.Array(ProfilePointSchema, { description: 'smoothed height every 50 m from the start' }),
    provenance: Nullable(ProvenanceSchema),
    attribution: Type.Array(Type.String(), { description: 'attribution texts of exactly the sources used' }),
    licence: LicenceSchema,
  },
  { ...closed, title: 'CourseTopology' },
);

export const CourseProfileSchema = Type.Object(
  {
    courseId: Type.String(),
    asOf: DateString,
    publishedAt: Nullable(
      Type.String({ format: 'date-time', description: 'when the version served became known (null: not recorded)' }),
    ),
    identity: Type.Object(
      {
        name: Type.String(),
        country: Type.String(),
        region: Type.String({ description: 'GB, IRE or INT' }),
        trackVariant: Nullable(Type.String()),
        siblingCourseIds: Type.Array(Type.String(), { description: 'other variants at the same venue, sorted' }),
        operator: Nullable(Type.String({ description: 'the racecourse group; null unknown' })),
      },
      { ...closed, title: 'CourseIdentity' },
    ),
    layout: Type.Object(
      {
        direction: Direction,
        shape: Nullable(
          Type.String({
            description:
              'oval | triangle | horseshoe | pear | undulating-circuit | figure-of-eight | straight; null unknown',
          }),
        ),
        circuitLengthYards: Nullable(Type.Integer({ description: 'one circuit; null unknown or straight only' })),
        straightLengthYards: Nullable(Type.Integer({ description: 'the run-in; null unknown' })),
        disciplines: Type.Array(Type.String({ description: 'flat | hurdle | chase | nh-flat' })),
        startPositions: Type.Array(
          Type.Object(
            { distanceYards: Type.Integer(), description: Type.String() },
            { ...closed, title: 'StartPosition' },
          ),
        ),
      },
      { ...closed, title: 'CourseLayout' },
    ),
    surfaceKind: SurfaceKind,
    surfaceHistory: Type.Array(SurfacePeriodSchema, { description: 'ascending by from' }),
    surfaceInForce: Type.Array(SurfacePeriodSchema, {
      description:
        'per surface, the period in force on asOf (two when turf and AW race side by side), by surface; [] before the ' +
        'first day of the surface history (the profile holds nothing earlier)',
    }),
    hasMeasuredTopology: Type.Boolean(),
    topology: Nullable(CourseTopologySchema),
  },
  { ...closed, title: 'CourseProfile' },
);

/** Derived from schemas/CourseSnapshot.avsc. */
export const CourseSnapshotSchema = avroToJsonSchema(loadAvroSchema('CourseSnapshot'));

/** The cursor: the last row's `period:discipline:distanceBucket:surface` (its topic key without the course). */
export const SNAPSHOT_CURSOR_PATTERN =
  '^[0-9]{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12][0-9]|3[01]))?' +
  `:(${DISCIPLINES.join('|')}):(${DISTANCE_BUCKETS.join('|')}):(${SURFACES.join('|')})$`;

export const CourseSnapshotsQuery = Type.Object({
  from: DateString,
  to: DateString,
  discipline: Type.Optional(enumString(DISCIPLINES, 'only this discipline')),
  distanceBucket: Type.Optional(enumString(DISTANCE_BUCKETS, 'only this distance bucket')),
  surface: Type.Optional(enumString(SURFACES, 'only this surface')),
  cursor: Type.Optional(
    Type.String({
      pattern: SNAPSHOT_CURSOR_PATTERN,
      description:
        'where the page starts: the nextCursor of the previous page (period:discipline:distanceBucket:surface)',
    }),
  ),
});

export const CourseSnapshotsResponse = Type.Object(
  {
    courseId: Type.String(),
    from: DateString,
    to: DateString,
    discipline: Nullable(Type.String({ description: 'the filter, null when absent' })),
    distanceBucket: Nullable(Type.String()),
    surface: Nullable(Type.String()),
    snapshots: Type.Array(CourseSnapshotSchema, { description: 'ordered by periodEndUtc, then topic key' }),
    nextCursor: Nullable(Type.String({ description: 'cursor of the next page; null on the last page' })),
    next: Nullable(Type.String({ description: 'path and query of the next page; null on the last page' })),
  },
  { ...closed, title: 'CourseSnapshots' },
);

export const TopologyFeatureSchema = Type.Object(
  {
    type: Type.Literal('Feature'),
    id: Type.String({ description: 'the courseId' }),
    geometry: Nullable(
      Type.Object(
        { type: Type.Literal('LineString'), coordinates: Type.Array(Position, { minItems: 2 }) },
        { ...closed, title: 'LineString' },
      ),
    ),
    properties: Type.Object(
      {
        courseId: Type.String(),
        name: Type.String(),
        topology: TopologyKindSchema,
        note: Nullable(Type.String()),
        metrics: TopologyMetricsSchema,
        turns: Type.Array(TurnSchema),
        profile: Type.Array(ProfilePointSchema),
        provenance: Nullable(ProvenanceSchema),
        attribution: Type.Array(Type.String(), { description: 'attribution of exactly the sources this record used' }),
      },
      { ...closed, title: 'TopologyProperties' },
    ),
  },
  { ...closed, title: 'TopologyFeature' },
);

export const TopologyDatasetSchema = Type.Object(
  {
    type: Type.Literal('FeatureCollection'),
    licence: LicenceSchema,
    attribution: Type.Array(Type.String(), { description: 'attribution of exactly the sources used across records' }),
    measuredCourses: Type.Integer(),
    generatedCourses: Type.Integer(),
    note: Type.String(),
    features: Type.Array(TopologyFeatureSchema, { description: 'one per course with topology, by name then courseId' }),
  },
  { ...closed, title: 'CourseTopologyDataset' },
);

/** Published under components.schemas (api/app.ts adds them to the OpenAPI document). */
export const COURSE_SCHEMAS: Readonly<Record<string, TSchema>> = {
  CourseSummary: CourseSummarySchema,
  CourseProfile: CourseProfileSchema,
  CourseTopology: CourseTopologySchema,
  SurfacePeriod: SurfacePeriodSchema,
  CourseSnapshot: CourseSnapshotSchema,
  TopologyFeature: TopologyFeatureSchema,
  TopologyProvenance: ProvenanceSchema,
  Licence: LicenceSchema,
};
