/**
 * Accounts in a real browser: Playwright drives Debian's chromium (headless) against `racing serve`,
 * the way a new user would go: sign up, sign in, see that the account has no API access yet, get access
 * from an operator (`racing accounts grant` in a second terminal, while the service runs), create a key,
 * use it without the browser as curl would, revoke it, sign out; then a cross-site form and a tampered
 * token are refused, and repeated wrong passwords throttle the account.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_ARGS, chromiumUnavailableReason, ensureChromium } from '../support/chromium.js';
import { type Served, startServed } from '../support/served.js';

const EMAIL = 'new.user@example.com';
const PASSWORD = 'a long enough password';

describe('accounts in a browser', () => {
  let executable: string | undefined;
  let served: Served;
  let context: BrowserContext;
  let page: Page;
  let profile: string;
  let evil: Server | undefined;

  beforeAll(async () => {
    executable = await ensureChromium();
    if (!executable) return;
    served = await startServed();
    profile = mkdtempSync(join(tmpdir(), 'racing-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: executable,
      headless: true,
      args: CHROMIUM_ARGS,
    });
    const origin = new URL(served.url).origin;
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    page = context.pages()[0] ?? (await context.newPage());
  }, 600_000);

  afterAll(async () => {
    await context?.close();
    await served?.stop();
    evil?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  const at = (path: string) => `${served.url}${path}`;
  const api = (path: string, key?: string) =>
    fetch(at(path), { headers: key === undefined ? {} : { 'X-Api-Key': key } });

  it('sign-up, no access, grant, key, curl with the key, revoke, sign-out, CSRF, throttling', async (ctx) => {
    if (!executable) return ctx.skip(chromiumUnavailableReason());

    // 1. Sign up.
    await page.goto(at('/sign-up'));
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(/\/sign-in\?created=1$/);

    // 2. Sign in: the account has no API access yet, and the page says so.
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/account$/);
    await expect(page.locator('#access').textContent()).resolves.toContain('does not have API access yet');
    expect(await page.getByRole('button', { name: 'Create key' }).count()).toBe(0);
    const denied = await page.goto(at('/api/v1/races'));
    expect(denied?.status()).toBe(403);
    expect(((await denied?.json()) as { code: string }).code).toBe('access_not_granted');

    // 3. An operator grants access from a second terminal while the service runs.
    const granted = await served.racing(['accounts', 'grant', EMAIL]);
    expect(granted.stdout).toContain(`granted API access to ${EMAIL}`);
    const listed = JSON.parse((await served.racing(['accounts', 'list', '--json'])).stdout) as {
      email: string;
      accessGrantedAt: string | null;
    }[];
    expect(listed).toEqual([expect.objectContaining({ email: EMAIL, accessGrantedAt: expect.any(String) })]);

    // 4. The signed-in session now calls the data endpoints.
    const races = await page.goto(at('/api/v1/races'));
    expect(races?.status()).toBe(200);
    expect(((await races?.json()) as { races: unknown[] }).races.length).toBeGreaterThan(0);

    // 5. Create a key: shown once, with a copy button.
    await page.goto(at('/account'));
    await expect(page.locator('#access').textContent()).resolves.toContain('API access granted');
    await page.getByLabel('Key name').fill('research notebook');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('#new-key').textContent())!.trim();
    expect(key).toMatch(/^rk_[A-Za-z0-9_-]{43}$/);
    await page.getByRole('button', { name: 'Copy' }).click();
    // the label changes once the clipboard write resolves: wait for it (count() alone does not wait)
    const copied = page.getByRole('button', { name: 'Copied' });
    await copied.waitFor({ state: 'visible', timeout: 10_000 });
    await expect(copied.count()).resolves.toBe(1);
    // the callback runs in the page; the test's TypeScript has no DOM types, so the page's global is typed inline
    type PageGlobal = { navigator: { clipboard: { readText(): Promise<string> } } };
    expect(await page.evaluate(() => (globalThis as unknown as PageGlobal).navigator.clipboard.readText())).toBe(key);

    // 6. Use the key as curl would: no browser, no cookie, just the header.
    expect((await api('/api/v1/races')).status).toBe(401);
    const feed = await api('/api/v1/races', key);
    expect(feed.status).toBe(200);
    const raceId = ((await feed.json()) as { races: { raceId: string }[] }).races[0]!.raceId;
    const rows = await api(`/api/v1/races/${raceId}/analytics`, key);
    expect(rows.status).toBe(200);
    expect(((await rows.json()) as unknown[]).length).toBeGreaterThan(0);

    // 7. The account page lists the key (name, created, last used), never the key itself.
    await page.goto(at('/account'));
    const row = page.locator('tr', { hasText: 'research notebook' });
    const cells = await row.locator('td').allTextContents();
    expect(cells[0]).toBe('research notebook');
    expect(cells[1]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    expect(cells[2]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/); // last used: just now, not "never"
    expect(cells[3]).toBe('active');
    expect(await page.content()).not.toContain(key);

    // 8. A form posted from another site (another origin, no token) is refused and does nothing.
    evil = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end(
        `<form id="f" method="post" action="${at('/account/keys')}"><input name="name" value="evil"></form>` +
          '<script>document.getElementById("f").submit()</script>',
      );
    });
    await new Promise<void>((r) => evil!.listen(0, '127.0.0.1', r));
    const evilPort = (evil.address() as { port: number }).port;
    const forged = page.waitForResponse((r) => r.url() === at('/account/keys'));
    await page.goto(`http://127.0.0.1:${evilPort}/`);
    expect((await forged).status()).toBe(403);
    await page.goto(at('/account'));
    expect(await page.locator('tr', { hasText: 'evil' }).count()).toBe(0);

    // ...and so is our own form with a tampered token.
    await page.locator('form[action="/account/keys"] input[name="csrf"]').evaluate((el) => {
      (el as unknown as { value: string }).value = 'tampered';
    });
    await page.getByLabel('Key name').fill('tampered');
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect(page.locator('h1').textContent()).resolves.toBe('Please try again');
    await page.goto(at('/account'));
    expect(await page.locator('tr', { hasText: 'tampered' }).count()).toBe(0);

    // 9. Revoke: the key stops working at once.
    await page.locator('tr', { hasText: 'research notebook' }).getByRole('button', { name: 'Revoke' }).click();
    await page.waitForURL(/\/account$/);
    expect((await page.locator('tr', { hasText: 'research notebook' }).locator('td').allTextContents())[3]).toMatch(
      /^revoked/,
    );
    const revoked = await api('/api/v1/races', key);
    expect(revoked.status).toBe(401);
    expect(((await revoked.json()) as { code: string }).code).toBe('invalid_api_key');

    // 10. Sign out: the session is gone.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/sign-in\?signed-out=1$/);
    expect((await page.goto(at('/api/v1/races')))?.status()).toBe(401);
    await page.goto(at('/account'));
    await page.waitForURL(/\/sign-in$/);

    // 11. Throttling: after five wrong passwords even the right one is refused for a while.
    for (let i = 0; i < 5; i++) {
      await page.goto(at('/sign-in'));
      await page.getByLabel('Email').fill(EMAIL);
      await page.getByLabel('Password').fill(`wrong password ${i}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.getByRole('alert').textContent()).resolves.toBe('Email or password is incorrect.');
    }
    await page.goto(at('/sign-in'));
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    const throttled = page.waitForResponse((r) => r.url() === at('/sign-in') && r.request().method() === 'POST');
    await page.getByRole('button', { name: 'Sign in' }).click();
    const res = await throttled;
    expect(res.status()).toBe(429);
    expect(Number(res.headers()['retry-after'])).toBeGreaterThan(0);
    await expect(page.locator('h1').textContent()).resolves.toBe('Too many attempts');
  }, 300_000);
});
