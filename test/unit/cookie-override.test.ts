/**
 * package.json overrides `cookie` to 1.x: cookie 2 declares Node >= 22 (npm ci warned EBADENGINE on
 * Node 20), and 1.1.x already has the object-form API that light-my-request 6.8 and @fastify/cookie 11
 * call (stringifySetCookie, parseCookie). Checked here through fastify's inject, the way both use it.
 */
import fastifyCookie from '@fastify/cookie';
import Fastify from 'fastify';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);

describe('the cookie override', () => {
  it('resolves to a cookie release that runs on Node 20', () => {
    const lmrRequire = createRequire(require.resolve('light-my-request'));
    const pkg = lmrRequire('cookie/package.json') as { version: string; engines: { node: string } };
    expect(pkg.version).toMatch(/^1\./);
    expect(pkg.engines.node).toBe('>=18');
  });

  it('sends inject cookies (light-my-request) and parses and sets them (@fastify/cookie)', async () => {
    const app = Fastify();
    await app.register(fastifyCookie);
    app.get('/echo', async (request, reply) => {
      reply.setCookie('session', 'a b;c', { path: '/', httpOnly: true, sameSite: 'lax', maxAge: 60 });
      return { cookies: request.cookies };
    });
    const res = await app.inject({ method: 'GET', url: '/echo', cookies: { one: '1', two: 'x y' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ cookies: { one: '1', two: 'x y' } });
    expect(res.cookies).toEqual([
      expect.objectContaining({
        name: 'session',
        value: 'a b;c',
        path: '/',
        httpOnly: true,
        sameSite: 'Lax',
        maxAge: 60,
      }),
    ]);
    expect(String(res.headers['set-cookie'])).toContain(
      'session=a%20b%3Bc; Max-Age=60; Path=/; HttpOnly; SameSite=Lax',
    );
    await app.close();
  });
});
