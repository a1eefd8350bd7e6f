import { afterEach, describe, expect, it } from 'vitest';
import { accountIdOf } from '../../state/credentials/account-store.js';
import { NOW } from '../support/fake-read-model.js';
import { PageClient, shownKey } from './account-client.js';
import { ADMIN_TOKEN, type Harness, harness, problemOf } from './harness.js';

let h: Harness;
afterEach(async () => {
  await h.close();
});

const EMAIL = 'Ada@Example.com';
const PASSWORD = 'correct horse battery';
const admin = { 'x-admin-token': ADMIN_TOKEN };

async function grant(email: string): Promise<void> {
  const res = await h.adminInject({
    method: 'POST',
    url: '/admin/v1/accounts/grant',
    headers: admin,
    payload: { email },
  });
  expect(res.statusCode).toBe(200);
}

describe('sign-up and sign-in pages', () => {
  it('serve labelled HTML forms with a CSRF token and strict security headers', async () => {
    h = await harness();
    const c = new PageClient(h);
    for (const [url, button] of [
      ['/sign-up', 'Create account'],
      ['/sign-in', 'Sign in'],
    ] as const) {
      const res = await c.get(url);
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('<label for="email">Email</label>');
      expect(res.body).toContain('<label for="password">Password</label>');
      expect(res.body).toContain(`<button type="submit">${button}</button>`);
      expect(c.csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(String(res.headers['content-security-policy'])).toContain("default-src 'none'");
      expect(res.headers['x-frame-options']).toBe('DENY');
    }
    // The pre-session CSRF cookie is HttpOnly and SameSite=Strict.
    const set = (await new PageClient(h).get('/sign-in')).headers['set-cookie'];
    expect(String(set)).toMatch(/racing_csrf=[^;]+; Path=\/; HttpOnly; SameSite=Strict/);
  });

  it('are not in the public OpenAPI document', async () => {
    h = await harness();
    const doc = (await h.get('/api/v1/openapi.json')).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/api/v1/'))).toEqual([]);
  });

  it('sign-up answers the same for a new and a taken address and never replaces the first password', async () => {
    h = await harness();
    const first = new PageClient(h);
    await first.get('/sign-up');
    const a = await first.post('/sign-up', { email: EMAIL, password: PASSWORD });
    const second = new PageClient(h);
    await second.get('/sign-up');
    const b = await second.post('/sign-up', { email: 'ada@example.com', password: 'another password!' });
    for (const res of [a, b]) {
      expect(res.statusCode).toBe(303);
      expect(res.headers['location']).toBe('/sign-in?created=1');
      expect(res.body).toBe('');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expect((await h.accounts.list()).map((x) => x.email)).toEqual(['ada@example.com']);
    expect(await h.accounts.authenticate(EMAIL, PASSWORD)).toBeDefined();
    expect(await h.accounts.authenticate(EMAIL, 'another password!')).toBeUndefined();
  });

  it('refuses a bad email or a short password with the form again (400)', async () => {
    h = await harness();
    const c = new PageClient(h);
    await c.get('/sign-up');
    const bad = await c.post('/sign-up', { email: 'not-an-email', password: PASSWORD });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Enter a valid email address.');
    const short = await c.post('/sign-up', { email: EMAIL, password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.body).toContain('10 to 200 characters');
    expect(await h.accounts.list()).toEqual([]);
  });

  it('a wrong password and an unknown address get the same generic answer', async () => {
    h = await harness();
    await h.accounts.create(EMAIL, PASSWORD);
    const c = new PageClient(h);
    await c.get('/sign-in');
    const wrong = await c.post('/sign-in', { email: EMAIL, password: 'wrong password' });
    const unknown = await c.post('/sign-in', { email: 'nobody@example.com', password: 'wrong password' });
    const strip = (html: string) => html.replace(/value="[^"]*"/g, '');
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(401);
      expect(res.body).toContain('Email or password is incorrect.');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expect(strip(wrong.body)).toBe(strip(unknown.body));
  });

  it('signs in with an HttpOnly SameSite session cookie, Secure and __Host- only over TLS', async () => {
    h = await harness();
    await h.accounts.create(EMAIL, PASSWORD);
    const c = new PageClient(h);
    await c.get('/sign-in');
    const res = await c.post('/sign-in', { email: EMAIL, password: PASSWORD });
    expect(res.statusCode).toBe(303);
    expect(res.headers['location']).toBe('/account');
    const cookie = String(res.headers['set-cookie']);
    expect(cookie).toMatch(/^racing_session=rs_[A-Za-z0-9_-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(cookie).not.toContain('Secure');
    // The store keeps the SHA-256 of the token, never the token.
    const token = c.cookies.get('racing_session')!;
    const dump: string[] = [];
    for await (const [k, v] of h.store.entries()) dump.push(k, v.toString());
    expect(dump.join('\n')).not.toContain(token);
  });

  it('over TLS (as told by a trusted proxy) the cookies are Secure and __Host- prefixed', async () => {
    h = await harness({ trustProxy: ['127.0.0.1'] });
    await h.accounts.create(EMAIL, PASSWORD);
    const c = new PageClient(h, { 'x-forwarded-proto': 'https' });
    const page = await c.get('/sign-in');
    expect(String(page.headers['set-cookie'])).toMatch(
      /^__Host-racing_csrf=[^;]+; Path=\/; HttpOnly; Secure; SameSite=Strict$/,
    );
    const res = await c.post('/sign-in', { email: EMAIL, password: PASSWORD });
    expect(String(res.headers['set-cookie'])).toMatch(
      /^__Host-racing_session=rs_[^;]+; Max-Age=604800; Path=\/; HttpOnly; Secure; SameSite=Lax$/,
    );
    expect((await c.get('/account')).statusCode).toBe(200);
    // An untrusted client cannot claim TLS: without trustProxy the header is ignored.
    const h2 = await harness();
    try {
      const plain = await new PageClient(h2, { 'x-forwarded-proto': 'https' }).get('/sign-in');
      expect(String(plain.headers['set-cookie'])).toMatch(/^racing_csrf=/);
    } finally {
      await h2.close();
    }
  });
});

describe('CSRF', () => {
  it('refuses form posts without the token, with a wrong one, or from another origin (403, nothing done)', async () => {
    h = await harness();
    const c = new PageClient(h);
    await c.get('/sign-up');
    const cases = [
      await c.post('/sign-up', { csrf: null, email: EMAIL, password: PASSWORD }),
      await c.post('/sign-up', { csrf: 'A'.repeat(43), email: EMAIL, password: PASSWORD }),
      await c.post('/sign-up', { email: EMAIL, password: PASSWORD }, { origin: 'https://evil.example' }),
      await c.post('/sign-up', { email: EMAIL, password: PASSWORD }, { 'sec-fetch-site': 'cross-site' }),
      // A token from another browser (its own CSRF cookie) does not fit this one.
      await new PageClient(h).post('/sign-up', { csrf: c.csrf, email: EMAIL, password: PASSWORD }),
    ];
    for (const res of cases) {
      expect(res.statusCode).toBe(403);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.body).toContain('sent from another site');
    }
    expect(await h.accounts.list()).toEqual([]);
    // The same post with the page's own token and origin works.
    const ok = await c.post('/sign-up', { email: EMAIL, password: PASSWORD }, { origin: 'http://localhost:80' });
    expect(ok.statusCode).toBe(303);
  });

  it('protects the signed-in forms with a token bound to the session', async () => {
    h = await harness({ admin: true });
    await h.accounts.create(EMAIL, PASSWORD);
    await grant(EMAIL);
    const c = new PageClient(h);
    await c.signUpAndIn(EMAIL, PASSWORD);
    const preSession = c.csrf; // the token of the sign-in form, not of the session
    await c.get('/account');
    expect(c.csrf).not.toBe(preSession);
    const forged = await c.post('/account/keys', { csrf: preSession, name: 'x' });
    expect(forged.statusCode).toBe(403);
    const signOut = await c.post('/sign-out', { csrf: preSession });
    expect(signOut.statusCode).toBe(403);
    expect((await h.keys.listForAccount(accountIdOf(EMAIL))).length).toBe(0);
    expect((await c.get('/account')).statusCode).toBe(200);
  });
});

describe('early access', () => {
  it('a new account has no API access: the page says so and data endpoints answer 403 access_not_granted', async () => {
    h = await harness({ admin: true });
    const c = new PageClient(h);
    await c.signUpAndIn(EMAIL, PASSWORD);
    const page = await c.get('/account');
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('ada@example.com');
    expect(page.body).toContain('does not have API access yet');
    expect(page.body).not.toContain('Create key');
    const data = await c.get('/api/v1/races');
    expect(data.statusCode).toBe(403);
    expect(problemOf(data)).toMatchObject({ code: 'access_not_granted', status: 403 });
    // Creating a key is refused too, even with a valid token.
    const refused = await c.post('/account/keys', { name: 'sneaky' });
    expect(refused.statusCode).toBe(403);
    expect(await h.keys.listForAccount(accountIdOf(EMAIL))).toEqual([]);
  });

  it('after a grant the session calls every data endpoint; keys are created, shown once, listed, used, revoked', async () => {
    h = await harness({ admin: true });
    const c = new PageClient(h);
    await c.signUpAndIn(EMAIL, PASSWORD);
    await grant(EMAIL);
    for (const url of [
      '/api/v1/races',
      '/api/v1/races?date=2024-05-09',
      '/api/v1/race-days?from=2024-05-01&to=2024-05-31',
    ])
      expect((await c.get(url)).statusCode).toBe(200);

    await c.get('/account');
    const created = await c.post('/account/keys', { name: 'notebook' });
    expect(created.statusCode).toBe(201);
    const key = shownKey(created.body)!;
    expect(key).toMatch(/^rk_/);
    expect(created.body).toContain('data-copy="new-key"');
    const page = await c.get('/account');
    expect(page.body).not.toContain(key);
    expect(page.body).toMatch(/<td>notebook<\/td><td><time[^>]*>[^<]+<\/time><\/td><td>never<\/td>/);

    // The key works without the browser, like any key, and its use shows up as "last used".
    h.setNow(NOW + 5_000);
    const used = await h.get('/api/v1/races', key);
    expect(used.statusCode).toBe(200);
    const listed = await c.get('/account');
    expect(listed.body).toContain('<td>notebook</td>');
    expect(listed.body).not.toMatch(/<td>notebook<\/td><td><time[^>]*>[^<]+<\/time><\/td><td>never<\/td>/);
    expect(listed.body).toContain(`datetime="${new Date(NOW + 5_000).toISOString()}"`);

    // Revoke from the page: effective at once.
    const id = (await h.keys.listForAccount(accountIdOf(EMAIL)))[0]!.id;
    const revoked = await c.post(`/account/keys/${id}/revoke`);
    expect(revoked.statusCode).toBe(303);
    expect(problemOf(await h.get('/api/v1/races', key))['code']).toBe('invalid_api_key');
    expect((await c.get('/account')).body).toContain('revoked');
  });

  it('withdrawing access stops the account key and the session at once; granting again restores them', async () => {
    h = await harness({ admin: true });
    const c = new PageClient(h);
    await c.signUpAndIn(EMAIL, PASSWORD);
    await grant(EMAIL);
    const { key } = await h.keys.create('k', { accountId: accountIdOf(EMAIL) });
    expect((await h.get('/api/v1/races', key)).statusCode).toBe(200);
    const res = await h.adminInject({
      method: 'POST',
      url: '/admin/v1/accounts/revoke',
      headers: admin,
      payload: { email: EMAIL },
    });
    expect(res.json()).toMatchObject({ email: 'ada@example.com', accessGrantedAt: null });
    expect(problemOf(await h.get('/api/v1/races', key))['code']).toBe('access_not_granted');
    expect(problemOf(await c.get('/api/v1/races'))['code']).toBe('access_not_granted');
    // An operator key (no account) is unaffected.
    expect((await h.get('/api/v1/races', h.key)).statusCode).toBe(200);
    await grant(EMAIL);
    expect((await h.get('/api/v1/races', key)).statusCode).toBe(200);
  });

  it('the admin routes list accounts and 404 an unknown address', async () => {
    h = await harness({ admin: true });
    await h.accounts.create(EMAIL, PASSWORD);
    const list = await h.adminInject({ method: 'GET', url: '/admin/v1/accounts', headers: admin });
    expect(list.json()).toEqual({
      accounts: [
        {
          id: accountIdOf(EMAIL),
          email: 'ada@example.com',
          createdAt: new Date(NOW).toISOString(),
          accessGrantedAt: null,
        },
      ],
    });
    expect(list.body).not.toContain('scrypt');
    const unknown = await h.adminInject({
      method: 'POST',
      url: '/admin/v1/accounts/grant',
      headers: admin,
      payload: { email: 'nobody@example.com' },
    });
    expect(unknown.statusCode).toBe(404);
    expect(problemOf(unknown)['code']).toBe('not_found');
  });

  it("one account cannot revoke another's key", async () => {
    h = await harness({ admin: true });
    await h.accounts.create('other@example.com', PASSWORD);
    const theirs = await h.keys.create('theirs', { accountId: accountIdOf('other@example.com') });
    const c = new PageClient(h);
    await c.signUpAndIn(EMAIL, PASSWORD);
    await c.get('/account');
    const res = await c.post(`/account/keys/${theirs.id}/revoke`);
    expect(res.statusCode).toBe(404);
    expect((await h.keys.get(theirs.id))!.revokedAt).toBeNull();
  });
});

describe('sign-out', () => {
  it('ends the session at once: the cookie no longer opens the account page or the API', async () => {
    h = await harness({ admin: true });
    const c = new PageClient(h);
    await c.signUpAndIn(EMAIL, PASSWORD);
    await grant(EMAIL);
    const cookie = `racing_session=${c.cookies.get('racing_session')}`;
    await c.get('/account');
    const out = await c.post('/sign-out');
    expect(out.statusCode).toBe(303);
    expect(out.headers['location']).toBe('/sign-in?signed-out=1');
    expect(c.cookies.has('racing_session')).toBe(false);
    // Replaying the old cookie does not work either.
    const page = await h.inject({ method: 'GET', url: '/account', headers: { cookie } });
    expect(page.statusCode).toBe(303);
    expect(page.headers['location']).toBe('/sign-in');
    const api = await h.inject({ method: 'GET', url: '/api/v1/races', headers: { cookie } });
    expect(problemOf(api)['code']).toBe('missing_api_key');
  });
});

describe('sign-in throttling', () => {
  it('after N failures for an account even the right password is refused (429) until the window passes', async () => {
    h = await harness({ signIn: { failuresPerAccount: 3, failuresPerAddress: 100, windowSeconds: 600 } });
    await h.accounts.create(EMAIL, PASSWORD);
    const c = new PageClient(h);
    await c.get('/sign-in');
    for (let i = 0; i < 3; i++)
      expect((await c.post('/sign-in', { email: EMAIL, password: `guess ${i}` })).statusCode).toBe(401);
    const locked = await c.post('/sign-in', { email: EMAIL, password: PASSWORD });
    expect(locked.statusCode).toBe(429);
    expect(locked.body).toContain('Too many attempts');
    expect(Number(locked.headers['retry-after'])).toBe(600);
    // Another account from the same address is not locked by this one.
    await h.accounts.create('bob@example.com', PASSWORD);
    expect((await c.post('/sign-in', { email: 'bob@example.com', password: PASSWORD })).statusCode).toBe(303);
    h.setNow(NOW + 600_000);
    const c2 = new PageClient(h);
    await c2.get('/sign-in');
    expect((await c2.post('/sign-in', { email: EMAIL, password: PASSWORD })).statusCode).toBe(303);
  });

  it('limits failures per address across accounts (unknown addresses included)', async () => {
    h = await harness({ signIn: { failuresPerAccount: 100, failuresPerAddress: 4, windowSeconds: 60 } });
    await h.accounts.create(EMAIL, PASSWORD);
    const c = new PageClient(h, {});
    await c.get('/sign-in');
    for (let i = 0; i < 4; i++)
      expect((await c.post('/sign-in', { email: `nobody${i}@example.com`, password: 'x'.repeat(12) })).statusCode).toBe(
        401,
      );
    expect((await c.post('/sign-in', { email: EMAIL, password: PASSWORD })).statusCode).toBe(429);
    // A client at another address is not affected.
    const elsewhere = await h.inject({ method: 'GET', url: '/sign-in', remoteAddress: '192.0.2.9' });
    expect(elsewhere.statusCode).toBe(200);
  });
});
