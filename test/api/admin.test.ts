import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildAdminApp } from '../../api/admin-app.js';
import { canonicalJson } from '../../api/canonical-json.js';
import { AccountStore } from '../../state/credentials/account-store.js';
import { KeyStore } from '../../state/credentials/key-store.js';
import { silentLogger } from '../../domain/logger.js';
import { sampleReadModel } from '../support/fake-read-model.js';
import { memoryStore } from '../support/memory-store.js';
import { ADMIN_TOKEN, type Harness, harness, problemOf } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await harness({ admin: true });
});
afterEach(async () => {
  await h.close();
});

const admin = { 'x-admin-token': ADMIN_TOKEN };

const ROUTES = [
  { method: 'POST', url: '/admin/v1/keys', payload: { name: 'x' } },
  { method: 'GET', url: '/admin/v1/keys' },
  { method: 'DELETE', url: '/admin/v1/keys/key_00000000000000000000' },
  { method: 'GET', url: '/admin/v1/export/analytics' },
  { method: 'GET', url: '/admin/v1/accounts' },
  { method: 'POST', url: '/admin/v1/accounts/grant', payload: { email: 'a@example.com' } },
  { method: 'POST', url: '/admin/v1/accounts/revoke', payload: { email: 'a@example.com' } },
] as const;

describe('admin token', () => {
  it.each(ROUTES)('$method $url: 401 without the token, with a wrong one, or with an API key', async (route) => {
    const missing = await h.adminInject({ ...route });
    expect(missing.statusCode).toBe(401);
    expect(problemOf(missing)['code']).toBe('missing_api_key');
    const wrong = await h.adminInject({ ...route, headers: { 'x-admin-token': `${ADMIN_TOKEN}x` } });
    expect(wrong.statusCode).toBe(401);
    expect(problemOf(wrong)['code']).toBe('invalid_api_key');
    const apiKey = await h.adminInject({ ...route, headers: { 'x-api-key': h.key } });
    expect(apiKey.statusCode).toBe(401);
  });

  it.each(ROUTES)('$method $url is not served by the public app, token or not', async (route) => {
    const res = await h.inject({ ...route, headers: admin });
    expect(res.statusCode).toBe(404);
    expect(problemOf(res)['code']).toBe('not_found');
  });

  it('refuses a short admin token at build time', () => {
    expect(() =>
      buildAdminApp({
        readModel: sampleReadModel(),
        keys: new KeyStore(memoryStore()),
        accounts: new AccountStore(memoryStore()),
        logger: silentLogger(),
        token: 'short',
      }),
    ).toThrow(/at least 16 characters/);
  });
});

describe('admin keys', () => {
  it('creates a key that works at once, lists it without the secret, revokes it at once', async () => {
    const created = await h.adminInject({
      method: 'POST',
      url: '/admin/v1/keys',
      headers: admin,
      payload: { name: 'cli user' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const body = created.json() as { id: string; key: string; name: string; createdAt: string };
    expect(Object.keys(body).sort()).toEqual(['createdAt', 'id', 'key', 'name']);
    expect(body.name).toBe('cli user');
    expect(body.key).toMatch(/^rk_/);
    expect((await h.get('/api/v1/races', body.key)).statusCode).toBe(200);

    const list = await h.adminInject({ method: 'GET', url: '/admin/v1/keys', headers: admin });
    expect(list.statusCode).toBe(200);
    const keys = (list.json() as { keys: { id: string; name: string; revokedAt: string | null }[] }).keys;
    expect(keys.map((k) => k.name).sort()).toEqual(['cli user', 'test']);
    expect(list.body).not.toContain(body.key);

    const del = await h.adminInject({ method: 'DELETE', url: `/admin/v1/keys/${body.id}`, headers: admin });
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe('');
    expect(problemOf(await h.get('/api/v1/races', body.key))['code']).toBe('invalid_api_key');
    // Idempotent.
    expect(
      (await h.adminInject({ method: 'DELETE', url: `/admin/v1/keys/${body.id}`, headers: admin })).statusCode,
    ).toBe(204);
    const after = (await h.adminInject({ method: 'GET', url: '/admin/v1/keys', headers: admin })).json() as {
      keys: { id: string; revokedAt: string | null }[];
    };
    expect(after.keys.find((k) => k.id === body.id)!.revokedAt).not.toBeNull();
  });

  it('404 for an unknown id, 400 for a malformed one', async () => {
    const unknown = await h.adminInject({
      method: 'DELETE',
      url: '/admin/v1/keys/key_ffffffffffffffffffff',
      headers: admin,
    });
    expect(unknown.statusCode).toBe(404);
    expect(problemOf(unknown)['code']).toBe('not_found');
    const bad = await h.adminInject({ method: 'DELETE', url: '/admin/v1/keys/nope', headers: admin });
    expect(bad.statusCode).toBe(400);
    expect(problemOf(bad)).toMatchObject({ code: 'validation_failed', errors: [{ in: 'path', name: 'id' }] });
  });

  it.each([{}, { name: '' }, { name: 'a', extra: true }, { name: 'x'.repeat(201) }])(
    '400 for the body %j',
    async (payload) => {
      const res = await h.adminInject({ method: 'POST', url: '/admin/v1/keys', headers: admin, payload });
      expect(res.statusCode).toBe(400);
      expect(problemOf(res)['code']).toBe('validation_failed');
    },
  );
});

describe('GET /admin/v1/export/analytics', () => {
  it('streams every row as canonical NDJSON, ordered by raceId then horseId', async () => {
    const res = await h.adminInject({ method: 'GET', url: '/admin/v1/export/analytics', headers: admin });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/x-ndjson/);
    expect(res.body.endsWith('\n')).toBe(true);
    const lines = res.body.slice(0, -1).split('\n');
    const expected = [];
    for await (const row of sampleReadModel().allAnalytics()) expected.push(row);
    expect(lines).toHaveLength(expected.length);
    expect(lines).toEqual(expected.map((r) => canonicalJson(r)));
    const parsed = lines.map((l) => JSON.parse(l) as { raceId: string; horseId: string });
    const order = parsed.map((r) => `${r.raceId}/${r.horseId}`);
    expect(order).toEqual([...order].sort());
    for (const l of lines) {
      expect(l).not.toMatch(/[\n ]":|": /);
      const keys = Object.keys(JSON.parse(l) as object);
      expect(keys).toEqual([...keys].sort());
    }
  });
});
