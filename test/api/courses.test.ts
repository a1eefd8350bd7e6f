/**
 * The course endpoints over the fake read model: the collection, the profile on a date, the snapshot
 * pages and the open topology dataset (docs/courses.md "Endpoints").
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Course, CourseSnapshot } from '../../domain/avro-types.generated.js';
import { OSM_ATTRIBUTION } from '../../domain/topology/index.js';
import { course } from '../support/builders.js';
import {
  courseVersion,
  OS_TERRAIN_ATTRIBUTION,
  snapshotKey,
  snapshotRow,
  topologyBlock,
} from '../support/course-builders.js';
import { FakeReadModel } from '../support/fake-read-model.js';
import { type Harness, harness, problemOf } from './harness.js';

/** A parsed JSON body, navigated freely (the test asserts its shape). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = Record<string, any>;

const ASCOT = course('Ascot');
const ASCOT_TWIN = course('Ascot-arabian');
const WOLVES = course('Wolverhampton (AW)');
const MEYDAN = course('Meydan');
const EPSOM = course('Epsom');
const BATH = course('Bath');
const BARE = course('Bare');
const BUSY = course('Busy');

const wolves = (pub: string, tapeta: boolean): Course =>
  courseVersion({
    c: 'Wolverhampton (AW)',
    pub,
    history: [
      ['1993-12-27', 'aw', 'Fibresand'],
      ['2004-08-21', 'aw', 'Polytrack'],
      ...(tapeta ? [['2014-08-11', 'aw', 'Tapeta'] as ['2014-08-11', 'aw', string]] : []),
    ],
    extra: { trackVariant: 'AW', direction: 'left', operator: 'Arena Racing Company' },
  });

function courses(): Course[] {
  return [
    courseVersion({ c: 'Ascot', pub: '2020-01-01T00:00:00.000Z', topology: topologyBlock('generated') }),
    courseVersion({
      c: 'Ascot',
      id: ASCOT_TWIN,
      pub: '2020-01-01T00:00:00.000Z',
      extra: { direction: 'right', region: 'GB', siblingCourseIds: [ASCOT].sort() },
    }),
    wolves('2010-01-01T00:00:00.000Z', false),
    wolves('2014-08-08T00:00:00.000Z', true),
    courseVersion({
      c: 'Meydan',
      pub: '2009-12-01T00:00:00.000Z',
      history: [
        ['2010-01-28', 'turf', 'turf'],
        ['2010-01-28', 'aw', 'Tapeta'],
        ['2014-11-01', 'aw', 'dirt'],
      ],
      extra: { country: 'UAE', region: 'INT', direction: 'unknown', shape: '' },
    }),
    courseVersion({ c: 'Epsom', pub: '2024-05-01T09:00:00.000Z', topology: topologyBlock('osm-os', 21.5) }),
    courseVersion({ c: 'Bath', pub: '2024-05-02T09:00:00.000Z', topology: topologyBlock('file-os', 30) }),
    // Topology without provenance: it cannot be shown to be measured.
    courseVersion({
      c: 'Bare',
      pub: '2024-01-01T00:00:00.000Z',
      topology: { ...topologyBlock('generated'), provenance: null },
    }),
    courseVersion({ c: 'Busy', pub: '2024-01-01T00:00:00.000Z' }),
  ];
}

const DISCIPLINES = ['flat', 'hurdle', 'chase', 'nh-flat'];
const BUCKETS = ['sprint', 'mile', 'middle', 'staying'];

function snapshots(): CourseSnapshot[] {
  const out: CourseSnapshot[] = [];
  // Ascot: monthly 2023-01..2024-12, three keys a month.
  for (let y = 2023; y <= 2024; y++)
    for (let m = 1; m <= 12; m++) {
      const period = `${y}-${String(m).padStart(2, '0')}`;
      out.push(snapshotRow({ c: 'Ascot', period, b: 'mile' }));
      out.push(snapshotRow({ c: 'Ascot', period, b: 'sprint', d: 'flat', s: 'aw' }));
      out.push(snapshotRow({ c: 'Ascot', period, d: 'hurdle', b: 'staying' }));
    }
  // Busy: daily 2025-01-01..2025-02-09 with every key (40 x 32 = 1280 rows).
  for (let d = 0; d < 40; d++) {
    const period = new Date(Date.UTC(2025, 0, 1 + d)).toISOString().slice(0, 10);
    for (const disc of DISCIPLINES)
      for (const b of BUCKETS)
        for (const s of ['turf', 'aw']) out.push(snapshotRow({ c: 'Busy', period, d: disc, b, s }));
  }
  return out.reverse();
}

function model(): FakeReadModel {
  return FakeReadModel.fromEvents({ courses: courses(), snapshots: snapshots() });
}

let h: Harness;
beforeEach(async () => {
  h = await harness({ readModel: model() });
});
afterEach(async () => {
  await h.close();
});

const KEYED = [
  '/api/v1/courses',
  `/api/v1/courses/${WOLVES}?asOf=2015-01-01`,
  `/api/v1/courses/${ASCOT}/analytics?from=2024-01-01&to=2024-12-31`,
];
const OPEN = '/api/v1/open-data/course-topology';

describe('GET /api/v1/courses', () => {
  it('lists every course by name then id, with surface kind, direction and topology labelled measured or generated', async () => {
    const res = await h.get('/api/v1/courses', h.key);
    expect(res.statusCode).toBe(200);
    const list = (res.json() as { courses: Record<string, unknown>[] }).courses;
    const [twinFirst, twinSecond] = [ASCOT, ASCOT_TWIN].sort();
    expect(list.map((c) => c['courseId'])).toEqual([twinFirst, twinSecond, BARE, BATH, BUSY, EPSOM, MEYDAN, WOLVES]);
    const by = (id: string) => list.find((c) => c['courseId'] === id);
    expect(by(WOLVES)).toEqual({
      courseId: WOLVES,
      name: 'Wolverhampton (AW)',
      country: 'GB',
      region: 'GB',
      trackVariant: 'AW',
      surfaceKind: 'aw',
      direction: 'left',
      hasMeasuredTopology: false,
      topology: null,
    });
    expect(by(MEYDAN)).toMatchObject({ surfaceKind: 'both', direction: 'unknown', region: 'INT' });
    expect(by(ASCOT)).toMatchObject({ hasMeasuredTopology: false, topology: 'generated' });
    expect(by(BARE)).toMatchObject({ hasMeasuredTopology: false, topology: 'generated' });
    expect(by(EPSOM)).toMatchObject({ hasMeasuredTopology: true, topology: 'measured' });
    expect(by(BATH)).toMatchObject({ hasMeasuredTopology: true, topology: 'measured' });
  });

  it('is [] on an empty read model', async () => {
    const empty = await harness({ readModel: new FakeReadModel() });
    try {
      expect((await empty.get('/api/v1/courses', empty.key)).json()).toEqual({ courses: [] });
    } finally {
      await empty.close();
    }
  });
});

describe('GET /api/v1/courses/{courseId}', () => {
  const surfaces = async (asOf: string) => {
    const res = await h.get(`/api/v1/courses/${WOLVES}?asOf=${asOf}`, h.key);
    expect(res.statusCode).toBe(200);
    const body = res.json() as { surfaceInForce: { description: string }[]; publishedAt: string };
    return [body.publishedAt, body.surfaceInForce.map((p) => p.description).join('+')];
  };

  it('serves the surface in force on asOf: Fibresand, Polytrack, then Tapeta from its first day', async () => {
    expect(await surfaces('1995-01-01')).toEqual(['2010-01-01T00:00:00.000Z', 'Fibresand']);
    expect(await surfaces('2004-08-21')).toEqual(['2010-01-01T00:00:00.000Z', 'Polytrack']);
    // The Tapeta version was published 2014-08-08, three days ahead; Tapeta is in force from the 11th.
    expect(await surfaces('2014-08-08')).toEqual(['2014-08-08T00:00:00.000Z', 'Polytrack']);
    expect(await surfaces('2014-08-10')).toEqual(['2014-08-08T00:00:00.000Z', 'Polytrack']);
    expect(await surfaces('2014-08-11')).toEqual(['2014-08-08T00:00:00.000Z', 'Tapeta']);
  });

  it('defaults asOf to today (UTC) and returns the full profile', async () => {
    const res = await h.get(`/api/v1/courses/${WOLVES}`, h.key);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      courseId: WOLVES,
      asOf: '2024-05-10',
      publishedAt: '2014-08-08T00:00:00.000Z',
      identity: {
        name: 'Wolverhampton (AW)',
        country: 'GB',
        region: 'GB',
        trackVariant: 'AW',
        siblingCourseIds: [],
        operator: 'Arena Racing Company',
      },
      layout: {
        direction: 'left',
        shape: 'oval',
        circuitLengthYards: 2200,
        straightLengthYards: 440,
        disciplines: ['flat'],
        startPositions: [],
      },
      surfaceKind: 'aw',
      surfaceHistory: [
        { from: '1993-12-27', surface: 'aw', description: 'Fibresand' },
        { from: '2004-08-21', surface: 'aw', description: 'Polytrack' },
        { from: '2014-08-11', surface: 'aw', description: 'Tapeta' },
      ],
      surfaceInForce: [{ from: '2014-08-11', surface: 'aw', description: 'Tapeta' }],
      hasMeasuredTopology: false,
      topology: null,
    });
  });

  it('lists turf and AW in force side by side, and maps mixed to both, unknown shape and operator to null', async () => {
    const body = (await h.get(`/api/v1/courses/${MEYDAN}?asOf=2015-06-01`, h.key)).json() as Body;
    expect(body['surfaceKind']).toBe('both');
    expect(body['surfaceInForce']).toEqual([
      { from: '2014-11-01', surface: 'aw', description: 'dirt' },
      { from: '2010-01-28', surface: 'turf', description: 'turf' },
    ]);
    expect(body['identity'].operator).toBeNull();
    expect(body['layout'].shape).toBeNull();
    expect(body['layout'].direction).toBe('unknown');
  });

  it('before the first day of the surface history: the profile, with no surface in force (not a 400)', async () => {
    expect(await surfaces('1993-12-26')).toEqual(['2010-01-01T00:00:00.000Z', '']);
    expect(await surfaces('1000-01-01')).toEqual(['2010-01-01T00:00:00.000Z', '']);
    const body = (await h.get(`/api/v1/courses/${WOLVES}?asOf=1993-12-26`, h.key)).json() as Body;
    expect(body['surfaceInForce']).toEqual([]);
    expect(body['surfaceHistory']).toHaveLength(2);
    expect(await surfaces('1993-12-27')).toEqual(['2010-01-01T00:00:00.000Z', 'Fibresand']);
  });

  it('labels generated topology as generated (with a note) and measured topology with its attribution and licence', async () => {
    const gen = (await h.get(`/api/v1/courses/${ASCOT}`, h.key)).json() as Body;
    expect(gen['hasMeasuredTopology']).toBe(false);
    expect(gen['topology']).toMatchObject({ kind: 'generated', attribution: [] });
    expect(gen['topology'].note).toContain('not measured');
    expect(gen['topology'].provenance).toMatchObject({ geometrySource: 'generated', elevationSource: 'generated' });

    const epsom = (await h.get(`/api/v1/courses/${EPSOM}`, h.key)).json() as Body;
    expect(epsom['hasMeasuredTopology']).toBe(true);
    expect(epsom['topology']).toMatchObject({
      kind: 'measured',
      note: null,
      totalClimbM: 21.5,
      closed: true,
      attribution: [OSM_ATTRIBUTION, OS_TERRAIN_ATTRIBUTION],
      licence: { id: 'ODbL-1.0', url: 'https://opendatacommons.org/licenses/odbl/1-0/' },
      provenance: { geometrySource: 'openstreetmap', osmWays: [{ id: 1001, version: 3 }], demTiles: ['TQ25'] },
    });
    expect(epsom['topology'].centreline[0]).toEqual([-0.2582871, 51.3081568]);
    expect(epsom['topology'].turns).toEqual([
      { startM: 300, endM: 520, headingChangeDeg: 180, minRadiusM: 116.4, severity: 2 },
    ]);
    const bath = (await h.get(`/api/v1/courses/${BATH}`, h.key)).json() as Body;
    expect(bath['topology'].attribution).toEqual([OS_TERRAIN_ATTRIBUTION]);
    const bare = (await h.get(`/api/v1/courses/${BARE}`, h.key)).json() as Body;
    expect(bare['topology']).toMatchObject({ kind: 'generated', provenance: null });
  });

  it('404 for an unknown course, 400 for a malformed id or date', async () => {
    const unknown = await h.get(`/api/v1/courses/${course('Nowhere')}`, h.key);
    expect(unknown.statusCode).toBe(404);
    expect(problemOf(unknown)['code']).toBe('not_found');
    for (const [url, name] of [
      ['/api/v1/courses/rac_x', 'courseId'],
      ['/api/v1/courses/crs_UPPER', 'courseId'],
      [`/api/v1/courses/${WOLVES}?asOf=2024-02-30`, 'asOf'],
      [`/api/v1/courses/${WOLVES}?asOf=2024-2-3`, 'asOf'],
    ] as const) {
      const res = await h.get(url, h.key);
      expect(res.statusCode, url).toBe(400);
      expect(problemOf(res), url).toMatchObject({ code: 'validation_failed', errors: [{ name }] });
    }
  });
});

interface Page {
  snapshots: CourseSnapshot[];
  nextCursor: string | null;
  next: string | null;
}

describe('GET /api/v1/courses/{courseId}/analytics', () => {
  const page = async (url: string) => {
    const res = await h.get(url, h.key);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as Page & Record<string, unknown>;
  };

  it('returns the rows whose period ends within from..to, ordered by period end then key', async () => {
    const body = await page(`/api/v1/courses/${ASCOT}/analytics?from=2024-01-01&to=2024-12-31`);
    expect(body).toMatchObject({
      courseId: ASCOT,
      from: '2024-01-01',
      to: '2024-12-31',
      discipline: null,
      distanceBucket: null,
      surface: null,
      nextCursor: null,
      next: null,
    });
    const keys = body.snapshots.map(snapshotKey);
    expect(keys).toHaveLength(36);
    expect(keys.slice(0, 3)).toEqual([
      `${ASCOT}:2024-01:flat:mile:turf`,
      `${ASCOT}:2024-01:flat:sprint:aw`,
      `${ASCOT}:2024-01:hurdle:staying:turf`,
    ]);
    expect(body.snapshots.at(-1)!.period).toBe('2024-12');
    expect(body.snapshots[0]).toEqual(snapshotRow({ c: 'Ascot', period: '2024-01', b: 'mile' }));
    // A month is in when its last day is: 2024-01-31..2024-02-28 holds January only.
    const jan = await page(`/api/v1/courses/${ASCOT}/analytics?from=2024-01-31&to=2024-02-28`);
    expect([...new Set(jan.snapshots.map((s) => s.period))]).toEqual(['2024-01']);
    const none = await page(`/api/v1/courses/${ASCOT}/analytics?from=2024-02-01&to=2024-02-28`);
    expect(none.snapshots).toEqual([]);
    // A known course without rows.
    expect((await page(`/api/v1/courses/${WOLVES}/analytics?from=2024-01-01&to=2024-12-31`)).snapshots).toEqual([]);
  });

  it('filters by discipline, distance bucket and surface', async () => {
    const base = `/api/v1/courses/${ASCOT}/analytics?from=2024-01-01&to=2024-12-31`;
    const aw = await page(`${base}&surface=aw`);
    expect(aw.snapshots).toHaveLength(12);
    expect(aw.snapshots.every((s) => s.surface === 'aw')).toBe(true);
    expect(aw.surface).toBe('aw');
    expect((await page(`${base}&discipline=hurdle&distanceBucket=staying&surface=turf`)).snapshots).toHaveLength(12);
    expect((await page(`${base}&discipline=chase`)).snapshots).toEqual([]);
  });

  it.each([
    ['discipline', 'bumper', 'flat, hurdle, chase, nh-flat'],
    ['distanceBucket', 'long', 'sprint, mile, middle, staying'],
    ['surface', 'dirt', 'turf, aw'],
  ])('400 validation_failed for %s=%s, naming the allowed values', async (name, value, allowed) => {
    const res = await h.get(`/api/v1/courses/${ASCOT}/analytics?from=2024-01-01&to=2024-12-31&${name}=${value}`, h.key);
    expect(res.statusCode).toBe(400);
    const p = problemOf(res);
    expect(p).toMatchObject({ code: 'validation_failed', errors: [{ in: 'query', name }] });
    expect(p['detail']).toContain(allowed);
  });

  it('accepts 366 days, refuses 367 with range_too_large, and to before from', async () => {
    expect((await h.get(`/api/v1/courses/${ASCOT}/analytics?from=2024-01-01&to=2024-12-31`, h.key)).statusCode).toBe(
      200,
    );
    const big = await h.get(`/api/v1/courses/${ASCOT}/analytics?from=2024-01-01&to=2025-01-01`, h.key);
    expect(big.statusCode).toBe(400);
    expect(problemOf(big)).toMatchObject({ code: 'range_too_large' });
    expect(problemOf(big)['detail']).toContain('367 days');
    const back = await h.get(`/api/v1/courses/${ASCOT}/analytics?from=2024-05-10&to=2024-05-09`, h.key);
    expect(problemOf(back)).toMatchObject({ code: 'validation_failed', errors: [{ name: 'to' }] });
    for (const q of ['to=2024-01-01', 'from=2024-01-01', 'from=2024-01-01&to=2024-13-01']) {
      const res = await h.get(`/api/v1/courses/${ASCOT}/analytics?${q}`, h.key);
      expect(res.statusCode, q).toBe(400);
      expect(problemOf(res)['code']).toBe('validation_failed');
    }
  });

  it('pages 1000 rows at a time; following next gives every row once, in order', async () => {
    const url = `/api/v1/courses/${BUSY}/analytics?from=2025-01-01&to=2025-02-28`;
    const first = await page(url);
    expect(first.snapshots).toHaveLength(1000);
    // 32 keys a day: row 1000 is the 8th row of 2025-02-01.
    expect(first.nextCursor).toBe(snapshotKey(first.snapshots[999]!).slice(BUSY.length + 1));
    expect(first.nextCursor).toMatch(/^2025-02-01:/);
    expect(first.next).toBe(`${url}&cursor=${encodeURIComponent(first.nextCursor!)}`);
    const second = await page(first.next!);
    expect(second.snapshots).toHaveLength(280);
    expect(second.next).toBeNull();
    const all = [...first.snapshots, ...second.snapshots];
    const keys = all.map(snapshotKey);
    expect(new Set(keys).size).toBe(1280);
    const sorted = [...all].sort(
      (a, b) =>
        Date.parse(a.periodEndUtc) - Date.parse(b.periodEndUtc) ||
        (snapshotKey(a) < snapshotKey(b) ? -1 : snapshotKey(a) > snapshotKey(b) ? 1 : 0),
    );
    expect(keys).toEqual(sorted.map(snapshotKey));
    // The filters travel with the cursor.
    const flat = await page(`${url}&discipline=flat&surface=turf`);
    expect(flat.snapshots).toHaveLength(160);
    expect(flat.next).toBeNull();
  });

  it('400 for a malformed cursor; a cursor between rows resumes after that position', async () => {
    const base = `/api/v1/courses/${ASCOT}/analytics?from=2024-01-01&to=2024-12-31`;
    for (const c of ['x', '2024-13:flat:mile:turf', '2024-01:flat:mile', '2024-01:flat:mile:dirt']) {
      const res = await h.get(`${base}&cursor=${encodeURIComponent(c)}`, h.key);
      expect(res.statusCode, c).toBe(400);
      expect(problemOf(res)).toMatchObject({ code: 'validation_failed', errors: [{ name: 'cursor' }] });
    }
    const after = await page(`${base}&cursor=${encodeURIComponent('2024-11:flat:sprint:aw')}`);
    expect(after.snapshots.map(snapshotKey)).toEqual([
      `${ASCOT}:2024-11:hurdle:staying:turf`,
      `${ASCOT}:2024-12:flat:mile:turf`,
      `${ASCOT}:2024-12:flat:sprint:aw`,
      `${ASCOT}:2024-12:hurdle:staying:turf`,
    ]);
  });

  it('404 for an unknown course', async () => {
    const res = await h.get(`/api/v1/courses/${course('Nowhere')}/analytics?from=2024-01-01&to=2024-01-31`, h.key);
    expect(res.statusCode).toBe(404);
    expect(problemOf(res)['code']).toBe('not_found');
  });
});

describe('GET /api/v1/open-data/course-topology', () => {
  it('serves GeoJSON without a key: every course with topology, labelled, with the licence and the attribution used', async () => {
    const res = await h.get(OPEN);
    expect(res.statusCode).toBe(200);
    expect(res.headers['ratelimit-limit']).toBeDefined();
    const body = res.json() as Body;
    expect(body['type']).toBe('FeatureCollection');
    expect(body['licence']).toEqual({
      name: 'Open Database License (ODbL) v1.0',
      id: 'ODbL-1.0',
      url: 'https://opendatacommons.org/licenses/odbl/1-0/',
    });
    expect(body['attribution']).toEqual([OSM_ATTRIBUTION, OS_TERRAIN_ATTRIBUTION]);
    expect(body['measuredCourses']).toBe(2);
    expect(body['generatedCourses']).toBe(2);
    const features = body['features'] as Body[];
    expect(features.map((f) => [f['id'], f['properties'].topology])).toEqual([
      [ASCOT, 'generated'],
      [BARE, 'generated'],
      [BATH, 'measured'],
      [EPSOM, 'measured'],
    ]);
    const epsom = features.find((f) => f['id'] === EPSOM)!;
    expect(epsom['geometry']).toEqual({
      type: 'LineString',
      coordinates: topologyBlock('osm-os').centreline,
    });
    expect(epsom['properties']).toMatchObject({
      courseId: EPSOM,
      name: 'Epsom',
      note: null,
      metrics: { totalClimbM: 21.5, elevationRangeM: 6.2, undulationIndex: 8.5, circuitLengthM: 2400, closed: true },
      attribution: [OSM_ATTRIBUTION, OS_TERRAIN_ATTRIBUTION],
      provenance: { geometrySource: 'openstreetmap' },
    });
    expect(features.find((f) => f['id'] === BATH)!['properties'].attribution).toEqual([OS_TERRAIN_ATTRIBUTION]);
    const ascot = features.find((f) => f['id'] === ASCOT)!;
    expect(ascot['properties']).toMatchObject({ topology: 'generated', attribution: [] });
    expect(ascot['properties'].note).toContain('not measured');
  });

  it('lists only the attribution of the sources used: none when everything is generated', async () => {
    const only = await harness({
      readModel: FakeReadModel.fromEvents({
        courses: [courseVersion({ c: 'Ascot', pub: '2020-01-01T00:00:00.000Z', topology: topologyBlock('generated') })],
      }),
    });
    try {
      const body = (await only.get(OPEN)).json() as Body;
      expect(body['attribution']).toEqual([]);
      expect(body['measuredCourses']).toBe(0);
      expect(body['features']).toHaveLength(1);
    } finally {
      await only.close();
    }
  });

  it('is limited per client address (429 rate_limited with Retry-After)', async () => {
    const limited = await harness({ readModel: model(), perAddressPerMinute: 2 });
    try {
      expect((await limited.get(OPEN)).statusCode).toBe(200);
      expect((await limited.get(OPEN)).statusCode).toBe(200);
      const over = await limited.get(OPEN);
      expect(over.statusCode).toBe(429);
      expect(over.headers['retry-after']).toBeDefined();
      expect(problemOf(over)['code']).toBe('rate_limited');
    } finally {
      await limited.close();
    }
  });
});

describe('the course endpoints: keys, ETags, OpenAPI', () => {
  it.each(KEYED)('%s: 401 without a key or with a bad one', async (url) => {
    expect(problemOf(await h.get(url))['code']).toBe('missing_api_key');
    expect(problemOf(await h.get(url, 'rk_not-a-key'))['code']).toBe('invalid_api_key');
  });

  it('the open dataset needs no key, and an invalid key does not hurt', async () => {
    expect((await h.get(OPEN)).statusCode).toBe(200);
    expect((await h.get(OPEN, 'rk_not-a-key')).statusCode).toBe(200);
  });

  it.each([...KEYED, OPEN])('%s: ETag, 304 on If-None-Match, a new tag when the data change', async (url) => {
    const key = url === OPEN ? undefined : h.key;
    const first = await h.get(url, key);
    expect(first.statusCode).toBe(200);
    const etag = first.headers['etag'] as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const again = await h.get(url, key, { 'if-none-match': etag });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect((await h.get(url, key, { 'if-none-match': '"other"' })).statusCode).toBe(200);
  });

  it('a changed read model gives a changed body (the fake has no revision: nothing is cached across changes)', async () => {
    const m = model();
    const local = await harness({ readModel: m });
    try {
      const before = await local.get(OPEN);
      m.addCourse(
        courseVersion({ c: 'Epsom', pub: '2024-06-01T00:00:00.000Z', topology: topologyBlock('file-os', 99) }),
      );
      const after = await local.get(OPEN, undefined, { 'if-none-match': before.headers['etag'] as string });
      expect(after.statusCode).toBe(200);
      expect((after.json() as Record<string, unknown>)['attribution']).toEqual([OS_TERRAIN_ATTRIBUTION]);
    } finally {
      await local.close();
    }
  });

  it('documents the four operations in the OpenAPI document, keyed and keyless as served', async () => {
    const doc = (await h.get('/api/v1/openapi.json')).json() as {
      paths: Record<string, Record<string, { security: unknown[]; parameters?: { name: string; schema: Body }[] }>>;
      components: { schemas: Record<string, unknown> };
    };
    const ops = {
      '/api/v1/courses': 'key',
      '/api/v1/courses/{courseId}': 'key',
      '/api/v1/courses/{courseId}/analytics': 'key',
      '/api/v1/open-data/course-topology': 'public',
    };
    for (const [path, access] of Object.entries(ops)) {
      const op = doc.paths[path]?.['get'];
      expect(op, path).toBeDefined();
      expect(op!.security.length > 0, path).toBe(access === 'key');
    }
    const params = doc.paths['/api/v1/courses/{courseId}/analytics']!['get']!.parameters!;
    expect(params.map((p) => p.name)).toEqual([
      'courseId',
      'from',
      'to',
      'discipline',
      'distanceBucket',
      'surface',
      'cursor',
    ]);
    expect(params.find((p) => p.name === 'discipline')!.schema.enum).toEqual(['flat', 'hurdle', 'chase', 'nh-flat']);
    for (const name of ['CourseSummary', 'CourseProfile', 'CourseTopology', 'CourseSnapshot', 'TopologyFeature'])
      expect(doc.components.schemas[name], name).toBeDefined();
  });
});
