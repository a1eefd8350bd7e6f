/**
 * `racing topology build --geometry FILE --dem FILE... [--course ID] [--measured-on YYYY-MM-DD]
 * [--winning-post LON,LAT] [--direction D] [--way ID]... [--dem-crs CRS] [--dem-product P]
 * [--geometry-source openstreetmap|file] [--json]`
 *
 * Measures the lines of the geometry file over the elevation files (cli/commands/topology.ts,
 * domain/topology). Without --course it prints the measured blocks as JSON and publishes nothing. With
 * --course (a course id, or a generator course code) it publishes a new version of that course: its
 * latest version with the topology block replaced and publishedAt = now, to racing.courses.v1:
 *   - Kafka mode: straight to the topic (no data dir store needed);
 *   - embedded mode, service running: through its admin endpoint (POST /admin/v1/courses/{id}/topology),
 *     since the running service holds the store the embedded log lives in;
 *   - embedded mode, no service: into the data dir's log directly.
 * The processor and the view pick the version up like any other; the profile endpoint shows the block.
 */
import { parseArgs } from 'node:util';
import type { Course, CourseTopology } from '../../domain/avro-types.generated.js';
import { courseByCode, courseIdOf } from '../../domain/courses.js';
import { RacingError } from '../../domain/errors.js';
import { isId } from '../../domain/ids.js';
import type { Logger } from '../../domain/logger.js';
import { parseDate } from '../../domain/time.js';
import type { DemProduct, RunningDirection } from '../../domain/topology/index.js';
import { publishCourseTopology, type PublishedTopology } from '../../streams/course-versions.js';
import type { ServiceConfig } from '../config.js';
import { openRuntime } from '../runtime.js';
import { runningService } from '../service-file.js';
import { callAdmin } from './admin-client.js';
import { withPublisher } from './pipeline.js';
import { type TopologyBuildOptions, type TopologyBuildResult, topologyBuild } from './topology.js';

export const TOPOLOGY_USAGE =
  'topology build --geometry FILE --dem FILE... [--course ID] [--measured-on YYYY-MM-DD] [--winning-post LON,LAT]\n' +
  '               [--direction left|right|straight|figure-of-eight] [--way ID]... [--dem-crs CRS]\n' +
  '               [--dem-product os-terrain-50|eu-dem|srtm|other] [--geometry-source openstreetmap|file] [--json]';

const DIRECTIONS: readonly RunningDirection[] = ['left', 'right', 'straight', 'figure-of-eight'];
const PRODUCTS: readonly DemProduct[] = ['os-terrain-50', 'eu-dem', 'srtm', 'other'];

const bad = (message: string) => new RacingError('validation_failed', message);

export interface TopologyCommand {
  build: TopologyBuildOptions;
  /** the course id to publish to (resolved from a generator course code) */
  courseId?: string;
  json: boolean;
}

/** Parses and checks the arguments after `topology`; every mistake is a validation_failed naming the option. */
export function parseTopologyArgs(args: readonly string[]): TopologyCommand {
  const [sub, ...rest] = args;
  if (sub !== 'build') throw bad(`topology needs: ${TOPOLOGY_USAGE}`);
  let parsed;
  try {
    parsed = parseArgs({
      args: [...rest],
      allowPositionals: true,
      options: {
        geometry: { type: 'string' },
        dem: { type: 'string', multiple: true },
        course: { type: 'string' },
        'measured-on': { type: 'string' },
        'winning-post': { type: 'string' },
        direction: { type: 'string' },
        way: { type: 'string', multiple: true },
        'dem-crs': { type: 'string' },
        'dem-product': { type: 'string' },
        'geometry-source': { type: 'string' },
        json: { type: 'boolean', default: false },
      },
    });
  } catch (e) {
    throw bad(`topology build: ${(e as Error).message}`);
  }
  const { values: v, positionals } = parsed;
  if (!v.geometry) throw bad('topology build needs --geometry FILE (GeoJSON or OSM XML)');
  // `--dem a.zip b.zip`: the files after the first --dem arrive as positionals.
  const dem = [...(v.dem ?? []), ...positionals];
  if (v.dem === undefined || dem.length === 0)
    throw bad('topology build needs --dem FILE... (.asc with its .prj, .hgt, GeoTIFF, or zips of them)');
  const build: TopologyBuildOptions = { geometry: v.geometry, dem };
  if (v['measured-on'] !== undefined) {
    if (parseDate(v['measured-on']) === undefined) throw bad('--measured-on must be a real date, YYYY-MM-DD');
    build.measuredOn = v['measured-on'];
  }
  if (v['winning-post'] !== undefined) {
    const m = /^(-?\d+(?:\.\d+)?),(-?\d+(?:\.\d+)?)$/.exec(v['winning-post']);
    const lon = m ? Number(m[1]) : NaN;
    const lat = m ? Number(m[2]) : NaN;
    if (!(Math.abs(lon) <= 180 && Math.abs(lat) <= 90))
      throw bad('--winning-post must be LON,LAT in WGS84 degrees, e.g. -0.2583,51.3082');
    build.winningPost = [lon, lat];
  }
  if (v.direction !== undefined) {
    if (!(DIRECTIONS as readonly string[]).includes(v.direction))
      throw bad(`--direction must be one of ${DIRECTIONS.join(', ')}`);
    build.direction = v.direction as RunningDirection;
  }
  if (v.way !== undefined) {
    const ids = v.way.map(Number);
    if (!ids.every((x) => Number.isSafeInteger(x) && x > 0))
      throw bad('--way must be an OSM way id (a positive integer)');
    build.wayIds = ids;
  }
  if (v['dem-crs'] !== undefined) build.demCrs = v['dem-crs'];
  if (v['dem-product'] !== undefined) {
    if (!(PRODUCTS as readonly string[]).includes(v['dem-product']))
      throw bad(`--dem-product must be one of ${PRODUCTS.join(', ')}`);
    build.demProduct = v['dem-product'] as DemProduct;
  }
  if (v['geometry-source'] !== undefined) {
    if (v['geometry-source'] !== 'openstreetmap' && v['geometry-source'] !== 'file')
      throw bad('--geometry-source must be openstreetmap or file');
    build.geometrySource = v['geometry-source'];
  }
  let courseId: string | undefined;
  if (v.course !== undefined) {
    const info = courseByCode(v.course);
    if (info) courseId = courseIdOf(info.code);
    else if (isId('course', v.course)) courseId = v.course;
    else
      throw bad(`--course must be a course id (crs_...) or a generator course code, not ${JSON.stringify(v.course)}`);
    build.course = v.course;
  }
  return { build, ...(courseId !== undefined ? { courseId } : {}), json: v.json ?? false };
}

/** Publishes the block as a new version of the course, wherever the log is (see the head of this file). */
export async function publishTopology(
  config: ServiceConfig,
  logger: Logger,
  courseId: string,
  topology: CourseTopology,
  now: number = Date.now(),
): Promise<PublishedTopology & { via: 'kafka' | 'service' | 'data dir' }> {
  if (config.mode === 'kafka') {
    const r = await withPublisher(config, logger, (p) => publishCourseTopology(p, courseId, topology, now));
    return { ...r, via: 'kafka' };
  }
  const service = runningService(config.dataDir);
  if (service) {
    const text = await callAdmin(
      service,
      'POST',
      `/courses/${encodeURIComponent(courseId)}/topology`,
      JSON.stringify({ topology }),
      'application/json',
    );
    return { ...(JSON.parse(text) as PublishedTopology), via: 'service' };
  }
  const rt = await openRuntime(config, logger);
  try {
    const r = await publishCourseTopology(rt, courseId, topology, now);
    return { ...r, via: 'data dir' };
  } finally {
    await rt.close();
  }
}

/** One line about a measured block. */
function describe(r: TopologyBuildResult): string {
  const b = r.block;
  const turns = b.turns.map((t) => t.severity).join('');
  return (
    `${b.closed ? 'circuit' : 'line'} ${b.circuitLengthM} m, climb ${b.totalClimbM} m, descent ${b.totalDescentM} m, ` +
    `range ${b.elevationRangeM} m, undulation ${b.undulationIndex} m/km, ${b.turns.length} turns` +
    (turns ? ` (severities ${turns})` : '') +
    `; geometry ${b.provenance.geometry.source}, elevation ${b.provenance.elevation.products.join(', ') || b.provenance.elevation.source}` +
    ` tiles ${b.provenance.elevation.tiles.join(', ')}; attribution: ${b.attribution.join(' | ') || 'none'}`
  );
}

/** `racing topology ...`: returns the exit code. */
export async function topologyCommand(
  args: readonly string[],
  config: ServiceConfig,
  logger: Logger,
  out: (s: string) => void = (s) => process.stdout.write(s),
): Promise<number> {
  const cmd = parseTopologyArgs(args);
  const results = await topologyBuild(cmd.build);
  if (cmd.courseId === undefined) {
    out(
      `${JSON.stringify(
        results.map((r) => ({ courseId: r.courseId, courseCode: r.courseCode, block: r.block })),
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  const [r] = results;
  if (!r) throw bad(`${cmd.build.geometry} holds no course line`);
  const published = await publishTopology(config, logger, cmd.courseId, r.topology);
  const v: Course = published.version;
  if (cmd.json) {
    out(
      `${JSON.stringify({ courseId: v.courseId, publishedAt: v.publishedAt, via: published.via, block: r.block })}\n`,
    );
  } else {
    out(
      `published a version of ${v.name} (${v.courseId}) at ${new Date(v.publishedAt).toISOString()} via the ${published.via}:\n` +
        `  ${describe(r)}\n`,
    );
  }
  if (published.laterVersions > 0) {
    process.stderr.write(
      `racing: warning: ${published.laterVersions} version(s) of ${v.courseId} are published after now and carry their own topology; ` +
        'they supersede this one when they come into force\n',
    );
  }
  return 0;
}
