/**
 * `racing topology build --geometry FILE --dem FILE... [--course ID] [--measured-on YYYY-MM-DD]
 * [--winning-post LON,LAT]`: reads a course centreline (GeoJSON, OSM XML) and elevation files (.asc
 * with its .prj, .hgt, GeoTIFF, or zips of them) and measures one topology block per course line
 * (domain/topology, docs/topology.md). This module only reads files; it publishes nothing.
 *
 * The command line (`racing topology build`) and the publishing of a new Course version with the
 * block are in cli/commands/topology-build.ts and streams/course-versions.ts.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { fromFile } from 'geotiff';
import { COURSES, courseByCode, courseIdOf, type CourseInfo } from '../../domain/courses.js';
import type { CourseTopology } from '../../domain/avro-types.generated.js';
import {
  courseTopologyOf,
  type CourseLine,
  type DemProduct,
  type ElevationGrid,
  type LonLat,
  type LonLatBox,
  measureTopologyDetailed,
  readDem,
  readGeometry,
  readGeoTiffSource,
  type RunningDirection,
  type TopologyBlock,
  TopologyError,
} from '../../domain/topology/index.js';

export interface TopologyBuildOptions {
  /** a .geojson/.json or .osm/.xml file */
  geometry: string;
  /** elevation files: .asc (its .prj is read from beside it), .hgt, .tif/.tiff, .zip */
  dem: string[];
  /** a generator course code or course id; its direction orients the line */
  course?: string;
  /** YYYY-MM-DD; default today (UTC) */
  measuredOn?: string;
  /** the winning post as [lon, lat] (WGS84) */
  winningPost?: [number, number];
  /** the running direction when the course is not in the course list */
  direction?: RunningDirection;
  /** only these OSM way ids */
  wayIds?: number[];
  /** reference system for grids that carry none */
  demCrs?: string;
  /** the elevation product, when the files do not make it recognisable */
  demProduct?: DemProduct;
  /** GeoJSON without OSM ids that nevertheless comes from OpenStreetMap */
  geometrySource?: 'openstreetmap' | 'file';
}

export interface TopologyBuildResult {
  /** the course id, when --course was given */
  courseId: string | null;
  /** the generator course code, when the course is one */
  courseCode: string | null;
  /** the centreline as measured: oriented, starting at the start (WGS84), for the open-data GeoJSON */
  centreline: LonLat[];
  block: TopologyBlock;
  /** the block as the Course record's `topology` */
  topology: CourseTopology;
}

export async function topologyBuild(opts: TopologyBuildOptions): Promise<TopologyBuildResult[]> {
  if (opts.dem.length === 0) throw new TopologyError('option_invalid', 'topology build needs at least one --dem FILE');
  const lines = await loadGeometry(opts.geometry, opts);
  const grids = await loadDems(opts.dem, { ...opts, window: surroundings(lines) });
  const info = opts.course === undefined ? undefined : findCourse(opts.course);
  if (opts.course !== undefined && lines.length > 1) {
    throw new TopologyError(
      'geometry_branched',
      `${opts.geometry} holds ${lines.length} separate lines; choose the ways of course ${opts.course} (wayIds)`,
    );
  }
  const measuredOn = opts.measuredOn ?? new Date().toISOString().slice(0, 10);
  const direction = info?.direction ?? opts.direction ?? null;
  return lines.map((line) => {
    const m = measureTopologyDetailed(line, grids, { measuredOn, direction, winningPost: opts.winningPost ?? null });
    return {
      courseId: info ? courseIdOf(info.code) : (opts.course ?? null),
      courseCode: info?.code ?? null,
      centreline: m.line,
      block: m.block,
      topology: courseTopologyOf(m.block, m.line),
    };
  });
}

export async function loadGeometry(
  path: string,
  opts: { wayIds?: number[]; geometrySource?: 'openstreetmap' | 'file' } = {},
): Promise<CourseLine[]> {
  return readGeometry(path, await readFile(path), { wayIds: opts.wayIds, source: opts.geometrySource });
}

/**
 * Reads elevation files. A GeoTIFF is opened lazily and, given a window, only the cells around it are
 * read (an EU-DEM tile is several GB); a GeoTIFF that does not reach the window is left out.
 */
export async function loadDems(
  paths: readonly string[],
  opts: { demCrs?: string; demProduct?: DemProduct; window?: LonLatBox } = {},
): Promise<ElevationGrid[]> {
  const grids: ElevationGrid[] = [];
  for (const path of paths) {
    if (/\.tiff?$/i.test(path)) {
      const tile = basename(path).replace(/\.tiff?$/i, '');
      const tiff = await fromFile(path);
      try {
        const grid = await readGeoTiffSource(tiff, {
          tile,
          crs: opts.demCrs,
          product: opts.demProduct,
          window: opts.window,
        });
        if (grid) grids.push(grid);
      } finally {
        await tiff.close();
      }
      continue;
    }
    const prjPath = path.replace(/\.asc$/i, '.prj');
    const prj = prjPath !== path && existsSync(prjPath) ? await readFile(prjPath, 'utf8') : undefined;
    grids.push(...(await readDem(path, await readFile(path), { crs: opts.demCrs, product: opts.demProduct, prj })));
  }
  return grids;
}

/** The lines' bounding box with about 1 km to spare. */
function surroundings(lines: readonly CourseLine[]): LonLatBox {
  const pts = lines.flatMap((l) => l.coordinates);
  const margin = 0.01;
  return {
    west: Math.min(...pts.map((p) => p[0])) - margin,
    south: Math.min(...pts.map((p) => p[1])) - margin,
    east: Math.max(...pts.map((p) => p[0])) + margin,
    north: Math.max(...pts.map((p) => p[1])) + margin,
  };
}

function findCourse(idOrCode: string): CourseInfo | undefined {
  return courseByCode(idOrCode) ?? COURSES.find((c) => courseIdOf(c.code) === idOrCode);
}
