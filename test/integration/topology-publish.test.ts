/**
 * `racing topology build`: measured from a hand-made GeoJSON line (and a hand-made OSM XML oval) over a
 * real OS Terrain 50 tile, published as a new version of a course, and then served: the profile endpoint
 * shows the measured block with exactly the attribution of the sources used (OS always, OpenStreetMap
 * only for the OSM geometry), the open dataset lists it as measured. Embedded mode, both ways it
 * publishes: straight into the data dir, and through a running service's admin endpoint.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAdminApp } from '../../api/admin-app.js';
import { buildApp } from '../../api/app.js';
import { apiConfig } from '../../api/config.js';
import { startServer } from '../../api/server.js';
import { parseTopologyArgs, topologyCommand } from '../../cli/commands/topology-build.js';
import { type ServiceConfig, serviceConfigFromEnv } from '../../cli/config.js';
import { openRuntime, type Runtime } from '../../cli/runtime.js';
import { removeServiceFile, writeServiceFile } from '../../cli/service-file.js';
import { courseRecord } from '../../domain/course-records.js';
import { courseByCode, courseIdOf } from '../../domain/courses.js';
import { silentLogger } from '../../domain/logger.js';
import { OSM_ATTRIBUTION } from '../../domain/topology/index.js';
import { publishCourseTopology } from '../../streams/course-versions.js';
import { runViewMaterializer } from '../../streams/processors/view-materializer.js';
import { publishEvents } from '../../streams/publisher.js';
import { fixturePath, HAVE_TILES, tilePath } from '../fixtures/topology/helpers.js';

/** A parsed JSON body, navigated freely (the test asserts its shape). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = Record<string, any>;

const OS = 'Contains OS data © Crown copyright and database right 2013';
const EPSOM = courseIdOf('epsom');
const BATH = courseIdOf('bath');
const logger = silentLogger();
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..', '..');

/** Applies what is on the log to the view, then reads the API over it. */
async function served(rt: Runtime) {
  await runViewMaterializer({
    log: rt.log,
    codecs: rt.codecs,
    view: rt.view,
    logger,
    group: rt.groups.view,
    untilCaughtUp: true,
  });
  const app = buildApp({ readModel: rt.view, keys: rt.keys, config: apiConfig({}), logger });
  await app.ready();
  const { key } = await rt.keys.create('topology test');
  const get = async (url: string, withKey = true) => {
    const res = await app.inject({ method: 'GET', url, headers: withKey ? { 'x-api-key': key } : {} });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Body;
  };
  return { app, get };
}

describe.skipIf(!HAVE_TILES)('racing topology build --course: measured, published, served', () => {
  let dir: string;
  let config: ServiceConfig;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'topology-publish-'));
    config = serviceConfigFromEnv({ RACING_DATA_DIR: dir, LOG_LEVEL: 'silent' });
    // The demo's course versions of Epsom and Bath (generated topology).
    const rt = await openRuntime(config, logger);
    try {
      const events = ['epsom', 'bath'].map((code) => {
        const value = courseRecord(courseByCode(code)!);
        return { kind: 'course' as const, value, publishedAt: value.publishedAt };
      });
      await publishEvents(rt.log, rt.codecs, events);
    } finally {
      await rt.close();
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('publishes into the data dir when no service runs; the profile shows the measured block with the OS attribution only', async () => {
    const lines: string[] = [];
    const t0 = Date.now();
    const code = await topologyCommand(
      [
        'build',
        '--geometry',
        fixturePath('epsom-hand-made-line.geojson'),
        '--dem',
        tilePath('tq25'),
        tilePath('st76'),
        '--course',
        'epsom',
        '--measured-on',
        '2024-05-01',
      ],
      config,
      logger,
      (s) => lines.push(s),
    );
    expect(code).toBe(0);
    expect(lines.join('')).toMatch(/^published a version of Epsom \(crs_[0-9a-z]+\) at .* via the data dir:/);
    expect(lines.join('')).toContain(`attribution: ${OS}`);

    const rt = await openRuntime(config, logger);
    try {
      const { app, get } = await served(rt);
      const before = await get(`/api/v1/courses/${EPSOM}?asOf=2000-01-01`);
      expect(before['topology']).toMatchObject({ kind: 'generated', attribution: [] });
      const profile = await get(`/api/v1/courses/${EPSOM}`);
      expect(Date.parse(profile['publishedAt'])).toBeGreaterThanOrEqual(t0 - 1);
      expect(profile['hasMeasuredTopology']).toBe(true);
      expect(profile['topology']).toMatchObject({
        kind: 'measured',
        note: null,
        closed: false,
        attribution: [OS],
        provenance: {
          geometrySource: 'file',
          osmWays: [],
          elevationSource: 'dem',
          demProducts: ['OS Terrain 50'],
          demTiles: ['TQ25'],
          measuredOn: '2024-05-01',
        },
      });
      // The figures of docs/topology.md "Verification" for the hand-made line on TQ25.
      expect(profile['topology'].circuitLengthM).toBeCloseTo(1267, 0);
      expect(profile['topology'].totalClimbM).toBe(19);
      expect(profile['topology'].centreline).toHaveLength(3);
      // Everything else is the latest version's.
      expect(profile['identity'].name).toBe('Epsom');
      expect(profile['layout'].direction).toBe('left');

      const list = (await get('/api/v1/courses'))['courses'] as Record<string, unknown>[];
      expect(list.find((c) => c['courseId'] === EPSOM)).toMatchObject({
        hasMeasuredTopology: true,
        topology: 'measured',
      });
      expect(list.find((c) => c['courseId'] === BATH)).toMatchObject({
        hasMeasuredTopology: false,
        topology: 'generated',
      });

      const open = await get('/api/v1/open-data/course-topology', false);
      expect(open['attribution']).toEqual([OS]);
      expect(open['measuredCourses']).toBe(1);
      expect(open['generatedCourses']).toBe(1);
      const feature = (open['features'] as Body[]).find((f) => f['id'] === EPSOM)!;
      expect(feature['properties']).toMatchObject({ topology: 'measured', attribution: [OS] });
      expect(feature['geometry'].coordinates).toEqual(profile['topology'].centreline);
      await app.close();
    } finally {
      await rt.close();
    }
  });

  it('publishes through the running service (admin endpoint); OSM geometry adds the OpenStreetMap attribution', async () => {
    const rt = await openRuntime(config, logger);
    const token = 'topology-test-admin-token-0123456789';
    const admin = buildAdminApp({
      token,
      keys: rt.keys,
      accounts: rt.accounts,
      readModel: rt.view,
      logger,
      publishTopology: (courseId, topology) => publishCourseTopology(rt, courseId, topology, Date.now()),
    });
    const adminUrl = await startServer(admin, { host: '127.0.0.1', port: 0 });
    // This process plays the service: `racing` finds it in service.json as it would find `racing serve`.
    writeServiceFile(dir, { pid: process.pid, adminUrl, token });
    try {
      const lines: string[] = [];
      const args = ['build', '--geometry', fixturePath('test-oval-two-ways.osm'), '--dem', tilePath('tq25')];
      expect(await topologyCommand([...args, '--course', BATH, '--json'], config, logger, (s) => lines.push(s))).toBe(
        0,
      );
      const out = JSON.parse(lines.join('')) as { courseId: string; via: string; block: { attribution: string[] } };
      expect(out).toMatchObject({ courseId: BATH, via: 'service' });
      expect(out.block.attribution).toEqual([OSM_ATTRIBUTION, OS]);

      // Refused by the service: an unknown course (404) and a block validateCourse refuses (400).
      await expect(
        topologyCommand([...args, '--course', 'crs_nosuchcourse0000'], config, logger, () => {}),
      ).rejects.toMatchObject({ code: 'not_found' });
      const res = await admin.inject({
        method: 'POST',
        url: `/admin/v1/courses/${BATH}/topology`,
        headers: { 'x-admin-token': token },
        payload: { topology: { bad: true } },
      });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'validation_failed' });

      const { app, get } = await served(rt);
      const profile = await get(`/api/v1/courses/${BATH}`);
      expect(profile['topology']).toMatchObject({
        kind: 'measured',
        closed: true,
        attribution: [OSM_ATTRIBUTION, OS],
        provenance: {
          geometrySource: 'openstreetmap',
          osmWays: [
            { id: 1001, version: 3 },
            { id: 1002, version: 7 },
          ],
        },
      });
      expect(profile['topology'].licence).toMatchObject({ id: 'ODbL-1.0' });
      const open = await get('/api/v1/open-data/course-topology', false);
      expect(open['attribution']).toEqual([OSM_ATTRIBUTION, OS]);
      expect(open['measuredCourses']).toBe(2);
      await app.close();
    } finally {
      removeServiceFile(dir);
      await admin.close();
      await rt.close();
    }
  });

  it('refuses bad input clearly', async () => {
    const bad = (args: string[]) => () => parseTopologyArgs(['build', ...args]);
    expect(bad([])).toThrow(/--geometry FILE/);
    expect(bad(['--geometry', 'x.geojson'])).toThrow(/--dem FILE/);
    expect(bad(['--geometry', 'x.geojson', '--dem', 'a.zip', '--measured-on', '2024-02-30'])).toThrow(/--measured-on/);
    expect(bad(['--geometry', 'x.geojson', '--dem', 'a.zip', '--course', 'nowhere'])).toThrow(/--course must be/);
    expect(bad(['--geometry', 'x.geojson', '--dem', 'a.zip', '--winning-post', '1,91'])).toThrow(/--winning-post/);
    expect(bad(['--geometry', 'x.geojson', '--dem', 'a.zip', '--direction', 'up'])).toThrow(/--direction/);
    expect(() => parseTopologyArgs(['measure'])).toThrow(/topology needs: topology build/);
    expect(parseTopologyArgs(['build', '--geometry', 'g.osm', '--dem', 'a.zip', 'b.zip', '--course', 'epsom'])).toEqual(
      {
        build: { geometry: 'g.osm', dem: ['a.zip', 'b.zip'], course: 'epsom' },
        courseId: EPSOM,
        json: false,
      },
    );
    // The line lies outside the tile given: the library's typed error, with its reason.
    await expect(
      topologyCommand(
        ['build', '--geometry', fixturePath('epsom-hand-made-line.geojson'), '--dem', tilePath('st76')],
        config,
        logger,
        () => {},
      ),
    ).rejects.toMatchObject({ code: 'validation_failed', reason: 'dem_no_coverage' });
  });

  it('the racing command: without --course it prints the measured blocks as JSON; bad input exits 1 with the reason', async () => {
    const cli = [join(ROOT, 'cli', 'racing.ts'), 'topology', 'build', '--geometry'];
    const env = { ...process.env, RACING_DATA_DIR: dir, LOG_LEVEL: 'warn' };
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', ...cli, fixturePath('epsom-hand-made-line.geojson'), '--dem', tilePath('tq25')],
      { cwd: ROOT, env },
    );
    const blocks = JSON.parse(stdout) as { courseId: null; block: { attribution: string[]; totalClimbM: number } }[];
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({
      courseId: null,
      courseCode: null,
      block: { attribution: [OS], totalClimbM: 19 },
    });
    const failed = await run(
      process.execPath,
      ['--import', 'tsx', ...cli, fixturePath('no-line.geojson'), '--dem', tilePath('tq25')],
      { cwd: ROOT, env },
    ).then(
      () => undefined,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toMatch(/^racing: .*\(validation_failed\)/);
  });
});
