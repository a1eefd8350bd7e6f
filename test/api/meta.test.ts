import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RouteOptions } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../api/app.js';
import { apiConfig } from '../../api/config.js';
import { buildDataDictionary, TOPOLOGY_ATTRIBUTION } from '../../api/data-dictionary.js';
import { AccountStore } from '../../state/credentials/account-store.js';
import { KeyStore } from '../../state/credentials/key-store.js';
import { SessionStore } from '../../state/credentials/session-store.js';
import { codeTables } from '../../domain/codes.js';
import { silentLogger } from '../../domain/logger.js';
import { FakeReadModel, IDS, NOW, sampleReadModel } from '../support/fake-read-model.js';
import { memoryStore } from '../support/memory-store.js';
import { type Harness, harness } from './harness.js';

const avsc = JSON.parse(readFileSync(join(import.meta.dirname, '../../schemas/AnalyticsRow.avsc'), 'utf8')) as {
  fields: { name: string; type: unknown }[];
};
const AVSC_FIELDS = avsc.fields.map((f) => f.name);

let h: Harness;
beforeEach(async () => {
  h = await harness({ admin: true });
});
afterEach(async () => {
  await h.app.close();
});

describe('GET /api/v1/health', () => {
  it('is ok without a key', async () => {
    const res = await h.get('/api/v1/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });
});

describe('GET /api/v1/demo', () => {
  it('serves the latest fully resulted day on or before today, without a key', async () => {
    const res = await h.get('/api/v1/demo');
    expect(res.statusCode).toBe(200);
    const body = res.json() as {
      date: string;
      races: { raceId: string; runners: { horseId: string }[]; analytics: { horseId: string; raceId: string }[] }[];
    };
    // 2024-05-10 has declared races only, so the demo day is 2024-05-09 (NY race included by meeting date).
    expect(body.date).toBe('2024-05-09');
    expect(body.races.map((r) => r.raceId)).toEqual([IDS.windowStart, IDS.yesterdayLate, IDS.newYork]);
    for (const race of body.races) {
      expect(race.runners.map((r) => r.horseId)).toEqual(['hrs_a', 'hrs_b', 'hrs_c']);
      expect(race.analytics.map((r) => r.horseId)).toEqual(['hrs_a', 'hrs_b', 'hrs_c']);
      expect(race.analytics.every((r) => r.raceId === race.raceId)).toBe(true);
    }
    const rm = sampleReadModel();
    const race = (await rm.race(IDS.newYork))!;
    const demoNy = body.races[2]!;
    expect({ ...demoNy, analytics: undefined, runners: undefined }).toEqual({
      ...race,
      analytics: undefined,
      runners: undefined,
    });
  });

  it('404 not_found when no day qualifies', async () => {
    const h2 = await harness({ readModel: new FakeReadModel() });
    try {
      const res = await h2.get('/api/v1/demo');
      expect(res.statusCode).toBe(404);
      expect((res.json() as { code: string }).code).toBe('not_found');
    } finally {
      await h2.app.close();
    }
  });
});

interface OpenApiDoc {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      { security: unknown[]; responses: Record<string, unknown>; parameters?: { name: string; in: string }[] }
    >
  >;
  components: {
    schemas: Record<string, { properties?: Record<string, unknown> }>;
    securitySchemes: Record<string, unknown>;
  };
}

describe('GET /api/v1/openapi.json', () => {
  it('lists every registered route (and nothing else) with its security', async () => {
    // Capture the routes an app really registers, independently of the document generator.
    const seen: string[] = [];
    const store = memoryStore();
    const app = buildApp({
      readModel: sampleReadModel(),
      keys: new KeyStore(store.sub('k/')),
      accounts: new AccountStore(store.sub('a/')),
      sessions: new SessionStore(store.sub('s/')),
      config: apiConfig(),
      logger: silentLogger(),
      clock: () => NOW,
    });
    app.addHook('onRoute', (r: RouteOptions) => {
      // The account pages are HTML for people, deliberately outside the API document.
      if ((r.config as { access?: string } | undefined)?.access === 'page') return;
      for (const m of [r.method].flat())
        if (m !== 'HEAD') seen.push(`${m.toLowerCase()} ${r.url.replace(/:(\w+)/g, '{$1}')}`);
    });
    await app.ready();
    const doc = (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json() as OpenApiDoc;
    await app.close();
    expect(doc.openapi).toBe('3.1.0');
    const documented = Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m} ${p}`));
    expect(documented.sort()).toEqual(seen.sort());
    expect(documented.sort()).toEqual(
      [
        'get /api/v1/race-days',
        'get /api/v1/races',
        'get /api/v1/races/{raceId}',
        'get /api/v1/races/{raceId}/analytics',
        'get /api/v1/demo',
        'get /api/v1/openapi.json',
        'get /api/v1/data-dictionary',
        'get /api/v1/health',
        'get /api/v1/courses',
        'get /api/v1/courses/{courseId}',
        'get /api/v1/courses/{courseId}/analytics',
        'get /api/v1/open-data/course-topology',
      ].sort(),
    );
    // A key or a signed-in session; admin routes live on their own listener and are not documented here.
    expect(doc.paths['/api/v1/races/{raceId}']!['get']!.security).toEqual([{ ApiKey: [] }, { Session: [] }]);
    expect(doc.paths['/api/v1/demo']!['get']!.security).toEqual([]);
    expect(doc.components.securitySchemes['ApiKey']).toMatchObject({ type: 'apiKey', in: 'header', name: 'X-Api-Key' });
    expect(doc.components.securitySchemes['Session']).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: 'racing_session',
    });
    expect(doc.components.securitySchemes['AdminToken']).toBeUndefined();
  });

  it('documents response schemas, parameters and error responses; every $ref resolves', async () => {
    const doc = (await h.get('/api/v1/openapi.json')).json() as OpenApiDoc;
    const analytics = doc.paths['/api/v1/races/{raceId}/analytics']!['get']!;
    expect(analytics.responses['200']).toMatchObject({
      content: {
        'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/AnalyticsRow' } } },
      },
    });
    for (const status of ['304', '400', '401', '403', '404', '429', '500'])
      expect(analytics.responses).toHaveProperty(status);
    expect(analytics.parameters).toEqual([expect.objectContaining({ name: 'raceId', in: 'path', required: true })]);
    const days = doc.paths['/api/v1/race-days']!['get']!;
    expect(days.parameters?.map((p) => `${p.in}:${p.name}`)).toEqual(['query:from', 'query:to']);
    // The AnalyticsRow component is the .avsc, field for field.
    expect(Object.keys(doc.components.schemas['AnalyticsRow']!.properties!)).toEqual(AVSC_FIELDS);
    const text = JSON.stringify(doc);
    for (const m of text.matchAll(/"\$ref":"#\/components\/(\w+)\/([^"]+)"/g)) {
      const section = (doc.components as unknown as Record<string, Record<string, unknown>>)[m[1]!];
      expect(section?.[m[2]!], m[0]).toBeDefined();
    }
  });
});

describe('GET /api/v1/data-dictionary', () => {
  it('lists exactly the fields of AnalyticsRow.avsc, in order, each fully described', async () => {
    const res = await h.get('/api/v1/data-dictionary');
    expect(res.statusCode).toBe(200);
    const dd = res.json() as ReturnType<typeof buildDataDictionary>;
    expect(dd.fields.map((f) => f.name)).toEqual(AVSC_FIELDS);
    expect(new Set(dd.fields.map((f) => f.name))).toEqual(new Set(AVSC_FIELDS));
    expect(dd.fieldCount).toBe(AVSC_FIELDS.length);
    for (const f of dd.fields) {
      expect(f.definition.length, f.name).toBeGreaterThan(10);
      expect(f.missing.length, f.name).toBeGreaterThan(0);
      expect(f.type.length, f.name).toBeGreaterThan(0);
      expect(f).toHaveProperty('unit');
      expect(f.family.length, f.name).toBeGreaterThan(0);
      expect(f.entityKey.length, f.name).toBeGreaterThan(0);
    }
  });

  it('states the conventions of features.md to the letter', async () => {
    const dd = buildDataDictionary();
    const by = Object.fromEntries(dd.fields.map((f) => [f.name, f]));
    expect(by['lastRunDays']!.missing).toContain('730 means no previous run');
    expect(by['lastRunDays']!.definition).toContain('capped at 729');
    for (const d of ['distanceDifferenceY', 'ratingDifference', 'weightDifferenceLbs', 'classDifference']) {
      expect(by[d]!.missing, d).toContain('-999');
      expect(by[d]!.definition, d).toContain('Delta field');
    }
    expect(by['vpr']!.definition).toContain('rounded to 0.1');
    expect(by['vpr']!.decimals).toBe(1);
    for (const r of [
      'winRatioLast5',
      'jockeyWinRate90Day',
      'trainer14DayWinRate',
      'sireProgenyWinRate',
      'courseForm',
    ]) {
      expect(by[r]!.decimals, r).toBe(4);
      expect(by[r]!.definition, r).toContain('4 decimal places');
    }
    expect(by['position']!.definition).toContain('outside the top 9');
    expect(by['courseForm']!.definition).toContain('3 for a win, 2 for 2nd, 1 for 3rd');
    expect(by['stableForm']!.definition).toContain('W + P <= R');
    expect(by['computedAtUtc']!.definition).toContain('never the wall clock');
    expect(by['ratingDifference']!.missing).toContain('either rating is unknown');
    expect(by['classDifference']!.definition).toContain('positive means dropping in class');
    expect(dd.conventions.map((c) => c.rule)).toEqual(
      expect.arrayContaining(['rates', 'form score', 'enum-coded fields', 'delta fields', 'lastRunDays', 'rounding']),
    );
  });

  it('carries the enum code tables of domain/codes.ts and links the *Code fields to them', async () => {
    const dd = buildDataDictionary();
    const { headgear, ...enums } = dd.codeTables;
    expect(enums).toEqual(codeTables());
    expect(Object.keys(headgear!)).toEqual(['', 'b', 'v', 'h', 'p', 't', 'e']);
    for (const f of dd.fields.filter((x) => x.name.endsWith('Code'))) {
      expect(f.codeTable, f.name).toBe(f.name);
      expect(dd.codeTables[f.name]!['0']).toBe('unknown');
    }
  });

  it('gives the topology fields the ODbL attribution of the interface spec', () => {
    const dd = buildDataDictionary();
    const topo = ['courseTotalClimbM', 'courseUndulationIndex', 'courseElevationRangeM'];
    expect(dd.openData.fields).toEqual(topo);
    expect(dd.openData.attribution).toBe(TOPOLOGY_ATTRIBUTION);
    expect(TOPOLOGY_ATTRIBUTION).toContain('ODbL');
    expect(TOPOLOGY_ATTRIBUTION).toContain('"© map contributors"');
    expect(TOPOLOGY_ATTRIBUTION).toContain('EU-DEM, funded by the European Union');
    for (const f of dd.fields) {
      if (topo.includes(f.name)) {
        expect(f).toMatchObject({ licence: 'ODbL', attribution: TOPOLOGY_ATTRIBUTION, jsonType: 'number | null' });
      } else expect(f.licence, f.name).toBeNull();
    }
  });

  it('refuses a schema it has no text for, and text for a field the schema lacks', () => {
    const base = { type: 'record' as const, name: 'AnalyticsRow', fields: [...avsc.fields] as never[] };
    expect(() =>
      buildDataDictionary({ ...base, fields: [...base.fields, { name: 'brandNew', type: 'int' }] as never[] }),
    ).toThrow(/undocumented \[brandNew\]/);
    expect(() => buildDataDictionary({ ...base, fields: base.fields.slice(1) })).toThrow(/not in schema \[raceId\]/);
  });
});
