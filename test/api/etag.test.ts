import { createHash } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ifNoneMatchMatches } from '../../api/etag.js';
import { IDS, makeRow, sampleReadModel } from '../support/fake-read-model.js';
import { DATA_URLS, type Harness, harness, PUBLIC_URLS } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.app.close();
});

describe('ETag / If-None-Match', () => {
  it.each([...DATA_URLS, ...PUBLIC_URLS])('%s: strong ETag = SHA-256 of the body; 304 when it matches', async (url) => {
    const first = await h.get(url, h.key);
    expect(first.statusCode).toBe(200);
    const etag = String(first.headers['etag']);
    expect(etag).toBe(`"${createHash('sha256').update(first.rawPayload).digest('base64url')}"`);
    const again = await h.get(url, h.key);
    expect(again.headers['etag']).toBe(etag);
    expect(again.body).toBe(first.body);
    const notModified = await h.get(url, h.key, { 'if-none-match': etag });
    expect(notModified.statusCode).toBe(304);
    expect(notModified.body).toBe('');
    expect(notModified.headers['etag']).toBe(etag);
  });

  it('matches weakly, in a list, and *; a different tag gets the full body', async () => {
    const etag = String((await h.get('/api/v1/races', h.key)).headers['etag']);
    expect((await h.get('/api/v1/races', h.key, { 'if-none-match': `W/${etag}` })).statusCode).toBe(304);
    expect((await h.get('/api/v1/races', h.key, { 'if-none-match': `"x", ${etag}` })).statusCode).toBe(304);
    expect((await h.get('/api/v1/races', h.key, { 'if-none-match': '*' })).statusCode).toBe(304);
    expect((await h.get('/api/v1/races', h.key, { 'if-none-match': '"other"' })).statusCode).toBe(200);
  });

  it('changes when the data changes', async () => {
    const rm = sampleReadModel();
    const h2 = await harness({ readModel: rm });
    try {
      const url = `/api/v1/races/${IDS.tieA}/analytics`;
      const before = String((await h2.get(url, h2.key)).headers['etag']);
      rm.addRow(makeRow({ raceId: IDS.tieA, horseId: 'hrs_new' }));
      const after = await h2.get(url, h2.key, { 'if-none-match': before });
      expect(after.statusCode).toBe(200);
      expect(after.headers['etag']).not.toBe(before);
    } finally {
      await h2.app.close();
    }
  });

  it('is not sent on errors, and If-None-Match does not turn an error into a 304', async () => {
    const res = await h.get('/api/v1/races/rac_unknown', h.key, { 'if-none-match': '*' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['etag']).toBeUndefined();
  });

  it('ifNoneMatchMatches', () => {
    expect(ifNoneMatchMatches(undefined, '"a"')).toBe(false);
    expect(ifNoneMatchMatches('"a"', '"a"')).toBe(true);
    expect(ifNoneMatchMatches('W/"a"', '"a"')).toBe(true);
    expect(ifNoneMatchMatches('"ab"', '"a"')).toBe(false);
    expect(ifNoneMatchMatches('a', '"a"')).toBe(false);
  });
});
