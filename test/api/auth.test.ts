import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hashKey, KeyStore } from '../../state/credentials/key-store.js';
import { memoryStore } from '../support/memory-store.js';
import { DATA_URLS, type Harness, harness, PUBLIC_URLS, problemOf } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.app.close();
});

describe('X-Api-Key on data endpoints', () => {
  it.each(DATA_URLS)('%s: 200 with a key', async (url) => {
    const res = await h.get(url, h.key);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it.each(DATA_URLS)('%s: 401 missing_api_key without a key', async (url) => {
    const res = await h.get(url);
    expect(res.statusCode).toBe(401);
    expect(problemOf(res)['code']).toBe('missing_api_key');
  });

  it.each(DATA_URLS)('%s: 401 invalid_api_key with an unknown key', async (url) => {
    const res = await h.get(url, `rk_${'A'.repeat(43)}`);
    expect(res.statusCode).toBe(401);
    expect(problemOf(res)['code']).toBe('invalid_api_key');
  });

  it('an empty header counts as missing; a malformed key as invalid', async () => {
    expect(problemOf(await h.get('/api/v1/races', ''))['code']).toBe('missing_api_key');
    expect(problemOf(await h.get('/api/v1/races', 'not-a-key'))['code']).toBe('invalid_api_key');
  });

  it('authentication comes before validation: a bad request without a key is 401, not 400', async () => {
    const res = await h.get('/api/v1/races?date=2024-02-30');
    expect(res.statusCode).toBe(401);
  });

  it.each(PUBLIC_URLS)('%s needs no key, and an invalid key does not hurt', async (url) => {
    expect((await h.get(url)).statusCode).toBe(200);
    expect((await h.get(url, 'rk_nonsense')).statusCode).toBe(200);
  });

  it('a revoked key fails at once, even after it was verified (and cached)', async () => {
    const created = await h.keys.create('to-revoke');
    expect((await h.get('/api/v1/races', created.key)).statusCode).toBe(200);
    await h.keys.revoke(created.id);
    const res = await h.get('/api/v1/races', created.key);
    expect(res.statusCode).toBe(401);
    expect(problemOf(res)['code']).toBe('invalid_api_key');
    // Other keys are unaffected.
    expect((await h.get('/api/v1/races', h.key)).statusCode).toBe(200);
  });
});

describe('KeyStore', () => {
  it('creates rk_ keys of 32 random bytes (base64url) with key_ ids, stores only the SHA-256 hash', async () => {
    const store = memoryStore();
    const ks = new KeyStore(store, { clock: () => Date.parse('2024-01-02T03:04:05.006Z') });
    const created = await ks.create('partner');
    expect(created.key).toMatch(/^rk_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(created.key.slice(3), 'base64url')).toHaveLength(32);
    expect(created.id).toMatch(/^key_[0-9a-f]{20}$/);
    expect(created).toEqual({
      id: created.id,
      key: created.key,
      name: 'partner',
      createdAt: '2024-01-02T03:04:05.006Z',
    });
    const dump: string[] = [];
    for await (const [k, v] of store.entries()) dump.push(k, v.toString());
    const all = dump.join('\n');
    expect(all).not.toContain(created.key);
    expect(all).not.toContain(created.key.slice(3));
    expect(dump).toContain(`hash/${hashKey(created.key)}`);
  });

  it('verifies active keys, not unknown ones; two keys differ', async () => {
    const ks = new KeyStore(memoryStore());
    const a = await ks.create('a');
    const b = await ks.create('b');
    expect(a.key).not.toBe(b.key);
    expect(a.id).not.toBe(b.id);
    expect(await ks.verify(a.key)).toEqual({
      id: a.id,
      name: 'a',
      createdAt: a.createdAt,
      revokedAt: null,
      accountId: null,
    });
    expect(await ks.verify(`${a.key.slice(0, -1)}${a.key.endsWith('A') ? 'B' : 'A'}`)).toBeUndefined();
    expect(await ks.verify('')).toBeUndefined();
  });

  it('revoke is immediate, idempotent, and survives a fresh KeyStore on the same store', async () => {
    const store = memoryStore();
    let now = Date.parse('2024-01-01T00:00:00.000Z');
    const ks = new KeyStore(store, { clock: () => now });
    const a = await ks.create('a');
    expect(await ks.verify(a.key)).toBeDefined(); // cached now
    now += 1000;
    const revoked = await ks.revoke(a.id);
    expect(revoked).toEqual({
      id: a.id,
      name: 'a',
      createdAt: a.createdAt,
      revokedAt: '2024-01-01T00:00:01.000Z',
      accountId: null,
    });
    expect(await ks.verify(a.key)).toBeUndefined();
    expect(await ks.revoke(a.id)).toEqual(revoked);
    expect(await new KeyStore(store).verify(a.key)).toBeUndefined();
    expect(await ks.revoke('key_00000000000000000000')).toBeUndefined();
    expect(await ks.revoke('nonsense')).toBeUndefined();
  });

  it('a verify racing a revoke cannot re-admit the key', async () => {
    const inner = memoryStore();
    const a = await new KeyStore(inner).create('a');
    // A store whose next read of the key record is held until we release it, returning what it read
    // before the revoke: the verify sees the key as active after the revoke has completed.
    let hold = true;
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const gated = {
      ...inner,
      async get(key: string) {
        const value = await inner.get(key);
        if (hold && key.startsWith('id/')) {
          hold = false;
          await gate;
        }
        return value;
      },
    };
    const ks = new KeyStore(gated);
    const pending = ks.verify(a.key);
    await new Promise((r) => setImmediate(r));
    await ks.revoke(a.id);
    release();
    expect(await pending).toBeUndefined();
    expect(await ks.verify(a.key)).toBeUndefined();
  });

  it('list returns every key by createdAt then id, without keys or hashes', async () => {
    let now = 2000;
    const ks = new KeyStore(memoryStore(), { clock: () => now });
    const late = await ks.create('late');
    now = 1000;
    const early1 = await ks.create('early');
    const early2 = await ks.create('early too');
    await ks.revoke(late.id);
    const list = await ks.list();
    const earlies = [early1, early2].sort((x, y) => (x.id < y.id ? -1 : 1)).map((k) => k.id);
    expect(list.map((k) => k.id)).toEqual([...earlies, late.id]);
    for (const rec of list)
      expect(Object.keys(rec).sort()).toEqual(['accountId', 'createdAt', 'id', 'name', 'revokedAt']);
    expect(list[2]!.revokedAt).not.toBeNull();
    expect(JSON.stringify(list)).not.toContain(hashKey(late.key));
  });

  it('evicts the least recently used entry when the cache is full, and still verifies from the store', async () => {
    const ks = new KeyStore(memoryStore(), { cacheSize: 1 });
    const a = await ks.create('a');
    const b = await ks.create('b');
    expect(await ks.verify(a.key)).toBeDefined();
    expect(await ks.verify(b.key)).toBeDefined();
    expect(await ks.verify(a.key)).toBeDefined();
  });
});
