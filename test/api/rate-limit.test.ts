import { afterEach, describe, expect, it } from 'vitest';
import { RateLimiter } from '../../api/rate-limit.js';
import { NOW } from '../support/fake-read-model.js';
import { type Harness, harness, problemOf } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h.app.close();
});

describe('rate limits per key', () => {
  it('sends RateLimit-* headers and refuses the request over the limit with 429 and Retry-After', async () => {
    // 15 s into a minute: the window resets in 45 s.
    h = await harness({ requestsPerMinute: 3, now: NOW + 15_000 });
    const remaining: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await h.get('/api/v1/races', h.key);
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('3');
      expect(res.headers['ratelimit-reset']).toBe('45');
      remaining.push(String(res.headers['ratelimit-remaining']));
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const res = await h.get('/api/v1/races', h.key);
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('45');
    expect(res.headers['ratelimit-remaining']).toBe('0');
    expect(problemOf(res)).toMatchObject({ code: 'rate_limited', status: 429 });
  });

  it('counts each key separately and resets with the next window of the clock', async () => {
    h = await harness({ requestsPerMinute: 1 });
    const other = (await h.keys.create('other')).key;
    expect((await h.get('/api/v1/races', h.key)).statusCode).toBe(200);
    expect((await h.get('/api/v1/races', h.key)).statusCode).toBe(429);
    expect((await h.get('/api/v1/races', other)).statusCode).toBe(200);
    h.setNow(NOW + 59_999);
    const last = await h.get('/api/v1/races', h.key);
    expect(last.statusCode).toBe(429);
    expect(last.headers['retry-after']).toBe('1');
    h.setNow(NOW + 60_000);
    expect((await h.get('/api/v1/races', h.key)).statusCode).toBe(200);
  });

  it('limits keyless endpoints per client address instead, separately from any key', async () => {
    h = await harness({ requestsPerMinute: 1, perAddressPerMinute: 3 });
    for (const url of ['/api/v1/health', '/api/v1/demo', '/api/v1/openapi.json']) {
      const res = await h.get(url, h.key);
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBe('3');
    }
    const over = await h.app.inject({ method: 'GET', url: '/api/v1/data-dictionary' });
    expect(over.statusCode).toBe(429);
    expect(problemOf(over)).toMatchObject({ code: 'rate_limited' });
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    // Another address has its own budget; the key's own budget was not touched by the keyless calls.
    const other = await h.app.inject({ method: 'GET', url: '/api/v1/health', remoteAddress: '192.0.2.7' });
    expect(other.statusCode).toBe(200);
    expect((await h.get('/api/v1/races', h.key)).statusCode).toBe(200);
  });

  it('RateLimiter: remaining counts down, reset is whole seconds, at least 1', () => {
    let now = 120_000 + 59_500;
    const rl = new RateLimiter({ requestsPerMinute: 2, clock: () => now });
    expect(rl.take('k')).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 1 });
    expect(rl.take('k')).toEqual({ allowed: true, limit: 2, remaining: 0, resetSeconds: 1 });
    expect(rl.take('k').allowed).toBe(false);
    now = 180_000;
    expect(rl.take('k')).toEqual({ allowed: true, limit: 2, remaining: 1, resetSeconds: 60 });
    expect(RateLimiter.headers(rl.take('k'))).toEqual({
      'ratelimit-limit': '2',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '60',
      'ratelimit-policy': '2;w=60',
    });
  });
});
