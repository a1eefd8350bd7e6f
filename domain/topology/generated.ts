/**
 * Generated topology for the demo courses (courses.md): a centreline of a plausible shape that runs
 * the course's way round, laid on a synthetic hill field, measured by measureTopology like real data.
 * Everything is a function of the course code (and the optional shape and length), so the demo is
 * reproducible. Provenance says `generated` for both geometry and elevation, and no attribution is
 * claimed. The line is placed at 0°N 0°E (in the Gulf of Guinea) so that it cannot pass for a real place.
 */
import type { CourseInfo } from '../courses.js';
import { converter, localProjection, WGS84 } from './crs.js';
import { gridFromFunction } from './dem-grid.js';
import { TopologyError } from './errors.js';
import { measureTopologyDetailed, type TopologyMeasurement } from './measure.js';
import {
  belt,
  COURSE_SHAPES,
  type CourseShape,
  figureOfEight,
  horseshoe,
  type Pulley,
  polylineLength,
  straight,
} from './shapes.js';
import type { CourseLine, ElevationGrid, TopologyBlock, XY } from './types.js';

export type { CourseShape } from './shapes.js';

export const YARD_M = 0.9144;
/** Where generated courses are placed: not a racecourse, not land. */
export const GENERATED_ORIGIN = [0, 0] as const;
const GRID_CELL_M = 20;
const GRID_MARGIN_M = 200;

/**
 * A course from the course list, or the least of one. Shape and lengths, when the list has them, are
 * used unless the options override them.
 */
export type GeneratedCourseInput = Pick<CourseInfo, 'code' | 'direction'> & {
  readonly name?: string;
  readonly open?: CourseInfo['open'];
  readonly shape?: string;
  readonly circuitLengthYards?: number | null;
  /** used as the length of a straight-only course */
  readonly straightLengthYards?: number | null;
};

export interface GeneratedCourseOptions {
  /** the course's shape; default the course list's, else derived from the code and direction */
  readonly shape?: CourseShape;
  /**
   * circuit length (the line's length for open shapes); default the course list's circuit length (its
   * straight length for a straight course), else derived from the code and shape
   */
  readonly circuitLengthM?: number;
  readonly circuitLengthYards?: number;
  /** YYYY-MM-DD; default the course's first open day, so the generated version is in force from the start */
  readonly measuredOn?: string;
}

export interface GeneratedCourse {
  readonly line: CourseLine;
  readonly dem: ElevationGrid;
  readonly shape: CourseShape;
  readonly circuitLengthM: number;
  readonly seed: string;
  /** the relief scale of the hill field (m) */
  readonly reliefM: number;
}

/** The generated line and elevation grid of a course (before measuring). */
export function generatedCourse(course: GeneratedCourseInput, options: GeneratedCourseOptions = {}): GeneratedCourse {
  const seed = `racing-topology:${course.code}`;
  const rng = mulberry32(fnv1a(seed));
  // Both draws are always made, so a given shape or length does not shift the rest of the course.
  const [uShape, uLength] = [rng(), rng()];
  const listed = COURSE_SHAPES.find((s) => s === course.shape);
  const shape = options.shape ?? listed ?? defaultShape(course.direction, uShape);
  const listedYards = shape === 'straight' ? course.straightLengthYards : course.circuitLengthYards;
  const length =
    requestedLength(options) ??
    (listedYards ? requestedLength({ circuitLengthYards: listedYards }) : undefined) ??
    defaultLengthM(shape, uLength);
  const closed = shape !== 'horseshoe' && shape !== 'straight';

  let outline = unitOutline(shape, rng, length);
  const scale = length / polylineLength(outline, closed);
  outline = outline.map(([x, y]) => [x * scale, y * scale] as const);
  // Shapes are built left-handed; a mirror image runs the other way round from the same start.
  if (course.direction === 'right') outline = outline.map(([x, y]) => [x, -y] as const);

  const crs = localProjection(GENERATED_ORIGIN);
  const toWgs = converter(crs, WGS84);
  const line: CourseLine = {
    coordinates: outline.map((p) => toWgs.forward(p)),
    closed,
    name: course.name ?? course.code,
    geometry: { source: 'generated', ways: [], description: `generated ${shape}, seed ${seed}` },
  };

  const relief = reliefOf(shape, rng());
  const dem = hillField(outline, crs, relief, rng, course.code);
  return { line, dem, shape, circuitLengthM: length, seed, reliefM: relief };
}

/** Generated topology of a course, measured by the same pipeline as real data. */
export function generatedTopology(course: GeneratedCourseInput, options: GeneratedCourseOptions = {}): TopologyBlock {
  return generatedMeasurement(course, options).block;
}

/** The same, with the measured centreline and samples (for the Course record: courseTopologyOf). */
export function generatedMeasurement(
  course: GeneratedCourseInput,
  options: GeneratedCourseOptions = {},
): TopologyMeasurement {
  const g = generatedCourse(course, options);
  const measuredOn = options.measuredOn ?? course.open?.[0]?.[0];
  if (measuredOn === undefined) throw new TopologyError('option_invalid', 'generatedTopology needs measuredOn');
  return measureTopologyDetailed(g.line, [g.dem], { measuredOn, direction: course.direction });
}

export function defaultShape(direction: CourseInfo['direction'], u: number): CourseShape {
  if (direction === 'straight') return 'straight';
  if (direction === 'figure-of-eight') return 'figure-of-eight';
  const choices: CourseShape[] = [
    'oval',
    'oval',
    'oval',
    'pear',
    'pear',
    'triangle',
    'undulating-circuit',
    'horseshoe',
  ];
  return choices[Math.floor(u * choices.length)]!;
}

function requestedLength(o: GeneratedCourseOptions): number | undefined {
  if (o.circuitLengthM !== undefined && o.circuitLengthYards !== undefined) {
    throw new TopologyError('option_invalid', 'give circuitLengthM or circuitLengthYards, not both');
  }
  const m = o.circuitLengthM ?? (o.circuitLengthYards === undefined ? undefined : o.circuitLengthYards * YARD_M);
  if (m !== undefined && !(m >= 200 && m <= 10_000)) {
    throw new TopologyError('option_invalid', `a circuit length of ${m} m is not plausible (200-10000 m)`);
  }
  return m;
}

/** Round figures in the range of real courses: a 5-7 furlong straight, a 1-1.75 mile circuit. */
function defaultLengthM(shape: CourseShape, u: number): number {
  const [lo, hi] = shape === 'straight' ? [1000, 1400] : shape === 'horseshoe' ? [2000, 2600] : [1600, 2800];
  return Math.round((lo + (hi - lo) * u) / 10) * 10;
}

function unitOutline(shape: CourseShape, rng: () => number, length: number): XY[] {
  switch (shape) {
    case 'oval': {
      const a = 1.2 + 1.3 * rng();
      return belt([p(-a, 0, 1), p(a, 0, 1)]);
    }
    case 'pear': {
      const a = 1.3 + rng();
      return belt([p(-a, 0, 1), p(a, 0, 0.5 + 0.15 * rng())]);
    }
    case 'triangle': {
      const pulleys: Pulley[] = [-90, 30, 150].map((deg) => {
        const t = ((deg + 20 * (rng() - 0.5)) * Math.PI) / 180;
        const d = 2.2 * (0.9 + 0.2 * rng());
        return p(d * Math.cos(t), d * Math.sin(t), 0.7 + 0.3 * rng());
      });
      return belt(pulleys);
    }
    case 'undulating-circuit': {
      const a = 1.6 + rng();
      const b = 0.8 + 0.4 * rng();
      return belt([p(-a, -b, 0.8), p(a, -b * 0.8, 0.6 + 0.3 * rng()), p(a * 0.9, b, 0.7), p(-a, b, 0.6 + 0.3 * rng())]);
    }
    case 'horseshoe': {
      // The bend keeps a real course's radius (110-220 m) however long the straights are.
      const r = Math.min(220, Math.max(110, length / 10));
      const straights = length / r - Math.PI;
      const back = straights * (0.45 + 0.15 * rng());
      return horseshoe(1, back, straights - back);
    }
    case 'straight':
      return straight(1, 0.01 * rng());
    case 'figure-of-eight': {
      // Start a sixth of the way round, not on the crossing.
      const pts = figureOfEight(1, 0.4 + 0.1 * rng());
      return [...pts.slice(60), ...pts.slice(0, 60)];
    }
  }
}

function p(x: number, y: number, r: number): Pulley {
  return { c: [x, y], r };
}

/** Relief scale in metres: most courses gentle, a few stiff; undulating circuits more, straights less. */
function reliefOf(shape: CourseShape, u: number): number {
  const base = 3 + 13 * u * u;
  return shape === 'undulating-circuit' ? base * 1.8 : shape === 'straight' ? base * 0.7 : base;
}

/** A slope plus three broad hills or hollows (widths of 130 m and more), sampled on a 20 m grid. */
function hillField(
  outline: readonly XY[],
  crs: string,
  relief: number,
  rng: () => number,
  code: string,
): ElevationGrid {
  const xs = outline.map((q) => q[0]);
  const ys = outline.map((q) => q[1]);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const extent = Math.max(maxX - minX, maxY - minY);
  const base = 20 + 130 * rng();
  const dir = 2 * Math.PI * rng();
  const grade = (relief * (0.2 + 0.4 * rng())) / extent;
  const hills = [0, 1, 2].map(() => ({
    x: minX + (maxX - minX) * rng(),
    y: minY + (maxY - minY) * rng(),
    a: relief * (0.25 + 0.45 * rng()) * (rng() < 0.7 ? 1 : -1),
    s: extent * (0.15 + 0.2 * rng()),
  }));
  const x0 = Math.floor((minX - GRID_MARGIN_M) / GRID_CELL_M) * GRID_CELL_M;
  const y0 = Math.ceil((maxY + GRID_MARGIN_M) / GRID_CELL_M) * GRID_CELL_M;
  const ncols = Math.ceil((maxX + GRID_MARGIN_M - x0) / GRID_CELL_M) + 1;
  const nrows = Math.ceil((y0 - (minY - GRID_MARGIN_M)) / GRID_CELL_M) + 1;
  return gridFromFunction(
    { product: 'generated', tile: `generated:${code}`, crs, ncols, nrows, x0, y0, dx: GRID_CELL_M, dy: GRID_CELL_M },
    (x, y) => {
      let h = base + grade * (x * Math.cos(dir) + y * Math.sin(dir));
      for (const k of hills) h += k.a * Math.exp(-((x - k.x) ** 2 + (y - k.y) ** 2) / (2 * k.s * k.s));
      return h;
    },
  );
}

/** 32-bit FNV-1a of a string's UTF-16 code units. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A small, well-known 32-bit PRNG; deterministic from its seed. */
function mulberry32(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
