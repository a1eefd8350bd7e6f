import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { httpStatusOf, installProblemHandlers, PROBLEM_TYPE_BASE } from '../../api/errors.js';
import type { ErrorCode } from '../../domain/errors.js';
import { RacingError } from '../../domain/errors.js';
import { sampleReadModel } from '../support/fake-read-model.js';
import { type Harness, harness, problemOf } from './harness.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.app.close();
  h = undefined;
});

const FIELDS = ['code', 'detail', 'instance', 'status', 'title', 'type'];

describe('problem+json', () => {
  it.each([
    ['/api/v1/races', undefined, 401, 'missing_api_key'],
    ['/api/v1/races', 'rk_bogus', 401, 'invalid_api_key'],
    ['/api/v1/races?date=2024-13-01', 'KEY', 400, 'validation_failed'],
    ['/api/v1/race-days?from=2020-01-01&to=2024-01-01', 'KEY', 400, 'range_too_large'],
    ['/api/v1/races/rac_nope', 'KEY', 404, 'not_found'],
    ['/api/v1/no-such-route', 'KEY', 404, 'not_found'],
    ['/elsewhere', undefined, 404, 'not_found'],
  ])('%s (key %s) -> %i %s in the RFC 9457 shape', async (url, key, status, code) => {
    h = await harness();
    const res = await h.get(url, key === 'KEY' ? h.key : key);
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    const p = problemOf(res);
    for (const f of FIELDS) expect(p).toHaveProperty(f);
    expect(p).toMatchObject({
      type: PROBLEM_TYPE_BASE + code,
      status,
      code,
      instance: url.split('?')[0],
    });
    expect(typeof p['title']).toBe('string');
    expect(typeof p['detail']).toBe('string');
  });

  it('a failing read model is a 500 internal problem that leaks nothing', async () => {
    const rm = sampleReadModel();
    rm.racesOn = async () => {
      throw new Error('disk on fire at /var/secret/path');
    };
    h = await harness({ readModel: rm });
    const res = await h.get('/api/v1/races?date=2024-05-09', h.key);
    expect(res.statusCode).toBe(500);
    const p = problemOf(res);
    expect(p).toMatchObject({ code: 'internal', status: 500, detail: 'internal error' });
    expect(res.body).not.toContain('secret');
  });

  it('a server-side RacingError keeps its code but not its message', async () => {
    const rm = sampleReadModel();
    rm.race = async () => {
      throw new RacingError('store_locked', 'LOCK held by pid 1234 at /data/x', { retriable: true });
    };
    h = await harness({ readModel: rm });
    const res = await h.get('/api/v1/races/rac_nyc', h.key);
    expect(res.statusCode).toBe(500);
    expect(problemOf(res)).toMatchObject({ code: 'store_locked', detail: 'internal error' });
    expect(res.body).not.toContain('pid');
  });

  it('maps every code to its status', () => {
    const expected: Record<ErrorCode, number> = {
      validation_failed: 400,
      range_too_large: 400,
      missing_api_key: 401,
      invalid_api_key: 401,
      not_found: 404,
      rate_limited: 429,
      unknown_topic: 500,
      schema_not_found: 500,
      schema_incompatible: 500,
      bad_wire_format: 500,
      config_invalid: 500,
      store_locked: 500,
      broker_unreachable: 500,
      registry_unreachable: 500,
      internal: 500,
      access_not_granted: 403,
      method_not_allowed: 405,
      csrf_failed: 403,
      invalid_credentials: 401,
      not_ready: 503,
    };
    for (const [code, status] of Object.entries(expected)) expect(httpStatusOf(code as ErrorCode)).toBe(status);
  });

  it("maps Fastify's own client errors (bad JSON, wrong media type) into the same shape", async () => {
    const app = Fastify();
    installProblemHandlers(app);
    app.post('/x', async () => ({ ok: true }));
    const bad = await app.inject({
      method: 'POST',
      url: '/x',
      headers: { 'content-type': 'application/json' },
      payload: '{',
    });
    expect(bad.statusCode).toBe(400);
    expect(problemOf(bad)).toMatchObject({ code: 'validation_failed', status: 400, instance: '/x' });
    const media = await app.inject({
      method: 'POST',
      url: '/x',
      headers: { 'content-type': 'text/x-nope' },
      payload: 'a',
    });
    expect(media.statusCode).toBe(415);
    expect(problemOf(media)).toMatchObject({ code: 'validation_failed', status: 415 });
    await app.close();
  });
});
