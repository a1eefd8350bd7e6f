import { createHash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../api/app.js';
import { apiConfig } from '../../api/config.js';
import { KeyStore } from '../../state/credentials/key-store.js';
import { memoryStore } from '../support/memory-store.js';
import { negotiateEncoding } from '../../api/compression.js';
import { RACE_ID_PATTERN } from '../../api/race-routes.js';
import { isId } from '../../domain/ids.js';
import type { ReadModel } from '../../state/read-model-port.js';
import { sampleReadModel } from '../support/fake-read-model.js';
import { type Harness, harness, problemOf } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const sha = (b: Buffer) => `"${createHash('sha256').update(b).digest('base64url')}"`;

describe('405 Method Not Allowed', () => {
  it.each([
    ['TRACE', '/api/v1/races', 'GET, HEAD'],
    ['QUERY', '/api/v1/races/rac_abc/analytics', 'GET, HEAD'],
    ['DELETE', '/api/v1/demo', 'GET, HEAD'],
    ['OPTIONS', '/api/v1/openapi.json', 'GET, HEAD'],
    ['PUT', '/sign-in', 'GET, HEAD, POST'],
    ['PATCH', '/account/keys', 'POST'],
  ])('%s %s is 405 problem+json with Allow: %s, before any auth', async (method, url, allow) => {
    h = await harness();
    const res = await h.inject({ method: method as 'GET', url });
    expect(res.statusCode).toBe(405);
    expect(res.headers['allow']).toBe(allow);
    expect(problemOf(res)).toMatchObject({ code: 'method_not_allowed', status: 405, instance: url });
  });

  it('an unknown path is still 404', async () => {
    h = await harness();
    const res = await h.inject({ method: 'TRACE', url: '/api/v1/nope' });
    expect(res.statusCode).toBe(404);
    expect(problemOf(res)['code']).toBe('not_found');
  });
});

describe('what the router refuses is problem+json too', () => {
  it('a path parameter longer than the router takes is 400 naming it (not a bare 414)', async () => {
    h = await harness();
    const res = await h.get(`/api/v1/races/rac_${'a'.repeat(600)}/analytics`, h.key);
    expect(res.statusCode).toBe(400);
    expect(problemOf(res)).toMatchObject({
      code: 'validation_failed',
      errors: [{ in: 'path', name: 'raceId', message: 'must be at most 500 characters' }],
    });
  });

  it('a malformed percent-escape is 400 problem+json', async () => {
    h = await harness();
    const res = await h.get('/api/v1/races/%zz', h.key);
    expect(res.statusCode).toBe(400);
    expect(problemOf(res)['code']).toBe('validation_failed');
  });

  it('a race id of the wrong shape fails schema validation, naming raceId', async () => {
    h = await harness();
    const res = await h.get(`/api/v1/races/${encodeURIComponent('Õ\u009a')}`, h.key);
    expect(res.statusCode).toBe(400);
    expect(problemOf(res)).toMatchObject({ errors: [{ in: 'path', name: 'raceId' }] });
  });

  it.each(['0070-01-01', '0999-12-31'])('the date %s is refused by the schema, as documented', async (date) => {
    h = await harness();
    const res = await h.get(`/api/v1/races?date=${date}`, h.key);
    expect(res.statusCode).toBe(400);
    expect(problemOf(res)).toMatchObject({ errors: [{ in: 'query', name: 'date' }] });
  });
});

describe('the OpenAPI document promises what the handlers accept', () => {
  it('publishes the raceId pattern, which is exactly the race-id shape the handlers take', async () => {
    h = await harness();
    const doc = (await h.get('/api/v1/openapi.json')).json() as {
      paths: Record<string, { get: { parameters: { name: string; schema: { pattern?: string } }[] } }>;
    };
    const raceId = doc.paths['/api/v1/races/{raceId}']!.get.parameters.find((p) => p.name === 'raceId')!;
    expect(raceId.schema.pattern).toBe(RACE_ID_PATTERN);
    const re = new RegExp(RACE_ID_PATTERN);
    for (const id of ['rac_a', 'rac_' + 'z'.repeat(64), 'rac_' + 'z'.repeat(65), 'rac_', 'rac_A', 'hrs_a', 'rac_a-b'])
      expect(re.test(id), id).toBe(isId('race', id));
    const date = doc.paths['/api/v1/races']!.get.parameters.find((p) => p.name === 'date')!;
    expect(new RegExp(date.schema.pattern!).test('0070-01-01')).toBe(false);
    expect(new RegExp(date.schema.pattern!).test('2024-05-09')).toBe(true);
  });
});

describe('compression', () => {
  it('negotiates br over gzip, honours q=0, and falls back to identity', () => {
    expect(negotiateEncoding(undefined)).toBe('identity');
    expect(negotiateEncoding('gzip, deflate, br')).toBe('br');
    expect(negotiateEncoding('gzip, br;q=0')).toBe('gzip');
    expect(negotiateEncoding('br;q=0.5, gzip;q=0.8')).toBe('gzip');
    expect(negotiateEncoding('*')).toBe('br');
    expect(negotiateEncoding('deflate')).toBe('identity');
    expect(negotiateEncoding('identity;q=0')).toBe('identity');
  });

  it.each([
    ['br', brotliDecompressSync],
    ['gzip', gunzipSync],
  ] as const)(
    '%s: the body decodes to the identity bytes and the ETag names the bytes sent',
    async (coding, decode) => {
      h = await harness();
      const url = '/api/v1/openapi.json';
      const plain = await h.get(url);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers['vary']).toBe('Accept-Encoding');
      const packed = await h.get(url, undefined, { 'accept-encoding': coding });
      expect(packed.statusCode).toBe(200);
      expect(packed.headers['content-encoding']).toBe(coding);
      expect(packed.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
      expect(decode(packed.rawPayload).equals(plain.rawPayload)).toBe(true);
      expect(packed.headers['etag']).toBe(sha(packed.rawPayload));
      expect(packed.headers['etag']).not.toBe(plain.headers['etag']);
      const again = await h.get(url, undefined, {
        'accept-encoding': coding,
        'if-none-match': String(packed.headers['etag']),
      });
      expect(again.statusCode).toBe(304);
    },
  );

  it('compresses pages and errors over the threshold as well, not small bodies', async () => {
    h = await harness();
    const page = await h.inject({ method: 'GET', url: '/sign-up', headers: { 'accept-encoding': 'gzip' } });
    expect(page.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(page.rawPayload).toString()).toContain('Create account');
    const small = await h.get('/api/v1/health', undefined, { 'accept-encoding': 'gzip' });
    expect(small.headers['content-encoding']).toBeUndefined();
  });
});

describe('response cache', () => {
  it('serves repeated requests without reading the model again, and rebuilds after a change', async () => {
    const rm = sampleReadModel();
    let revision = 0;
    (rm as ReadModel).revision = () => revision;
    let reads = 0;
    const racesOn = rm.racesOn.bind(rm);
    rm.racesOn = async (date) => {
      reads++;
      return racesOn(date);
    };
    h = await harness({ readModel: rm });
    const url = '/api/v1/races?date=2024-05-09';
    const first = await h.get(url, h.key);
    const second = await h.get(url, h.key);
    expect(first.statusCode).toBe(200);
    expect(second.body).toBe(first.body);
    expect(second.headers['etag']).toBe(first.headers['etag']);
    expect(reads).toBe(1);
    // Each key still gets its own rate-limit headers on a cached response.
    expect(second.headers['ratelimit-remaining']).not.toBe(first.headers['ratelimit-remaining']);

    const race = (await rm.race((first.json() as { races: { raceId: string }[] }).races[0]!.raceId))!;
    rm.addRace({ ...race, raceName: 'Renamed Stakes' });
    // Until the model says it changed, the cached bytes stand; then they are rebuilt.
    expect((await h.get(url, h.key)).body).toBe(first.body);
    revision++;
    const third = await h.get(url, h.key);
    expect(reads).toBe(2);
    expect(third.body).toContain('Renamed Stakes');
    expect(third.headers['etag']).not.toBe(first.headers['etag']);
  });

  it('concurrent misses of one key share one build', async () => {
    const rm = sampleReadModel();
    (rm as ReadModel).revision = () => 0;
    let reads = 0;
    const raceDays = rm.raceDays.bind(rm);
    rm.raceDays = async (from, to) => {
      reads++;
      return raceDays(from, to);
    };
    const app = (h = await harness({ readModel: rm }));
    const url = '/api/v1/race-days?from=2024-05-01&to=2024-05-31';
    const all = await Promise.all(Array.from({ length: 8 }, () => app.get(url, app.key)));
    expect(new Set(all.map((r) => r.body)).size).toBe(1);
    expect(all.every((r) => r.statusCode === 200)).toBe(true);
    expect(reads).toBe(1);
  });

  it('does not cache failures: an unknown race is looked up every time', async () => {
    const rm = sampleReadModel();
    (rm as ReadModel).revision = () => 0;
    let reads = 0;
    const race = rm.race.bind(rm);
    rm.race = async (id) => {
      reads++;
      return race(id);
    };
    h = await harness({ readModel: rm });
    for (let i = 0; i < 2; i++) expect((await h.get('/api/v1/races/rac_unknown', h.key)).statusCode).toBe(404);
    expect(reads).toBe(2);
  });
});

describe('logging', () => {
  it('writes no line for a request that succeeds, and the request id on the lines of one that fails', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _e, cb) {
        for (const l of chunk.toString().split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
        cb();
      },
    });
    const rm = sampleReadModel();
    rm.race = async () => {
      throw new Error('boom');
    };
    const keys = new KeyStore(memoryStore());
    const { key } = await keys.create('k');
    const app = buildApp({ readModel: rm, keys, config: apiConfig(), logger: pino({ level: 'info' }, sink) });
    try {
      expect((await app.inject({ url: '/api/v1/health' })).statusCode).toBe(200);
      expect((await app.inject({ url: '/api/v1/races', headers: { 'x-api-key': key } })).statusCode).toBe(200);
      expect(lines).toEqual([]);
      const failed = await app.inject({ url: '/api/v1/races/rac_x', headers: { 'x-api-key': key } });
      expect(failed.statusCode).toBe(500);
      expect(lines).toEqual([expect.objectContaining({ level: 50, reqId: expect.stringMatching(/^req-/) })]);
      expect(JSON.stringify(lines)).toContain('boom');
    } finally {
      await app.close();
    }
  });
});
