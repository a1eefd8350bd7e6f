/**
 * Hand-built course versions, topology blocks and course snapshot rows for the read-model contract and
 * the course endpoint tests. Course ids come from names as in builders.ts (`course('Ascot')`).
 */
import type { Course, CourseSnapshot, CourseTopology, SurfacePeriod } from '../../domain/avro-types.generated.js';
import { OSM_ATTRIBUTION } from '../../domain/topology/index.js';
import { course } from './builders.js';

export const OS_TERRAIN_ATTRIBUTION = 'Contains OS data © Crown copyright and database right 2013';

export interface CourseSpec {
  /** course name; the id is course(name) unless `id` is given */
  c: string;
  id?: string;
  /** publishedAt, ISO instant */
  pub: string;
  /** the surface history as [from, surface, description] */
  history?: [string, 'turf' | 'aw', string][];
  topology?: CourseTopology | null;
  extra?: Partial<Course>;
}

export function courseVersion(s: CourseSpec): Course {
  const history: SurfacePeriod[] = (s.history ?? [['1988-01-01', 'turf', 'turf']]).map(([from, surface, d]) => ({
    from,
    surface,
    description: d,
  }));
  const surfaces = new Set(history.map((p) => p.surface));
  return {
    courseId: s.id ?? course(s.c),
    publishedAt: Date.parse(s.pub),
    name: s.c,
    country: 'GB',
    region: 'GB',
    trackVariant: null,
    siblingCourseIds: [],
    operator: '',
    surfaceKind: surfaces.size > 1 ? 'mixed' : surfaces.has('aw') ? 'aw' : 'turf',
    direction: 'left',
    shape: 'oval',
    circuitLengthYards: 2200,
    straightLengthYards: 440,
    startPositions: [],
    disciplines: ['flat'],
    surfaceHistory: history,
    topology: s.topology ?? null,
    ...s.extra,
  };
}

/** A small valid topology block; `kind` sets its provenance (and attribution) like the real sources. */
export function topologyBlock(kind: 'generated' | 'osm-os' | 'file-os', climb = 10): CourseTopology {
  const generated = kind === 'generated';
  return {
    totalClimbM: climb,
    undulationIndex: 8.5,
    elevationRangeM: 6.2,
    circuitLengthM: 2400,
    totalDescentM: climb,
    closed: true,
    centreline: generated
      ? [
          [0, 0],
          [0.001, 0],
          [0.001, 0.001],
          [0, 0],
        ]
      : [
          [-0.2582871, 51.3081568],
          [-0.2509808, 51.311645],
          [-0.2464902, 51.3165238],
          [-0.2582871, 51.3081568],
        ],
    turns: [{ startM: 300, endM: 520, headingChangeDeg: 180, minRadiusM: 116.4, severity: 2 }],
    profile: [
      { distanceM: 0, heightM: 50 },
      { distanceM: 50, heightM: 51.2 },
    ],
    provenance: {
      geometrySource: generated ? 'generated' : kind === 'osm-os' ? 'openstreetmap' : 'file',
      osmWays: kind === 'osm-os' ? [{ id: 1001, version: 3 }] : [],
      elevationSource: generated ? 'generated' : 'dem',
      demProducts: generated ? ['generated'] : ['OS Terrain 50'],
      demTiles: generated ? ['generated:x'] : ['TQ25'],
      measuredOn: '2024-05-01',
      method: 'courses.md definitions',
    },
    attribution: generated
      ? []
      : kind === 'osm-os'
        ? [OSM_ATTRIBUTION, OS_TERRAIN_ATTRIBUTION]
        : [OS_TERRAIN_ATTRIBUTION],
  };
}

/** The end (exclusive) of a period label, as the snapshot calendar ends it. */
function periodEndIso(period: string): string {
  const [y, m, d] = period.split('-').map(Number) as [number, number, number | undefined];
  return new Date(d === undefined ? Date.UTC(y, m, 1) : Date.UTC(y, m - 1, d + 1)).toISOString();
}

export interface SnapshotSpec {
  c: string;
  id?: string;
  /** YYYY-MM or YYYY-MM-DD */
  period: string;
  d?: string;
  b?: string;
  s?: string;
  races?: number;
}

export function snapshotRow(x: SnapshotSpec): CourseSnapshot {
  const races = x.races ?? 10;
  return {
    courseId: x.id ?? course(x.c),
    period: x.period,
    periodEndUtc: periodEndIso(x.period),
    discipline: x.d ?? 'flat',
    distanceBucket: x.b ?? 'mile',
    surface: x.s ?? 'turf',
    races,
    runners: races * 9,
    favouriteRaces: races,
    favouriteWinRate: 0.3,
    favouritePlaceRate: 0.6,
    drawRaces: races,
    drawLowWinRate: 0.4,
    drawMiddleWinRate: 0.3,
    drawHighWinRate: 0.3,
    drawBias: 0.1,
    drawBiasStrength: 0.1,
    computedAtUtc: periodEndIso(x.period),
  };
}

/** The topic key of a snapshot row. */
export const snapshotKey = (s: CourseSnapshot): string =>
  `${s.courseId}:${s.period}:${s.discipline}:${s.distanceBucket}:${s.surface}`;
