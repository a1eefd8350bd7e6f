/** A cookie-keeping client over app.inject, for the account pages (what a browser does, minus rendering). */
import type { LightMyRequestResponse } from 'fastify';
import type { Harness } from './harness.js';

export class PageClient {
  readonly cookies = new Map<string, string>();
  /** The CSRF token of the last page that carried a form. */
  csrf = '';

  constructor(
    private readonly h: Harness,
    private readonly headers: Record<string, string> = {},
  ) {}

  async get(url: string): Promise<LightMyRequestResponse> {
    const res = await this.h.inject({ method: 'GET', url, headers: this.#headers() });
    this.#keep(res);
    return res;
  }

  /** Posts a form; the CSRF token of the last page is added unless `fields.csrf` is given (null: none). */
  async post(
    url: string,
    fields: Record<string, string | null> = {},
    headers: Record<string, string> = {},
  ): Promise<LightMyRequestResponse> {
    const form: Record<string, string> = {};
    if (!('csrf' in fields)) form['csrf'] = this.csrf;
    for (const [k, v] of Object.entries(fields)) if (v !== null) form[k] = v;
    const res = await this.h.inject({
      method: 'POST',
      url,
      headers: { ...this.#headers(), 'content-type': 'application/x-www-form-urlencoded', ...headers },
      payload: new URLSearchParams(form).toString(),
    });
    this.#keep(res);
    return res;
  }

  /** Signs up and in; returns the sign-in response. */
  async signUpAndIn(email: string, password: string): Promise<LightMyRequestResponse> {
    await this.get('/sign-up');
    await this.post('/sign-up', { email, password });
    await this.get('/sign-in');
    return this.post('/sign-in', { email, password });
  }

  #headers(): Record<string, string> {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    return { ...this.headers, ...(cookie ? { cookie } : {}) };
  }

  #keep(res: LightMyRequestResponse): void {
    for (const c of res.cookies as { name: string; value: string; maxAge?: number; expires?: Date }[]) {
      const expired =
        c.maxAge === 0 || (c.expires !== undefined && c.expires.getTime() <= Date.now()) || c.value === '';
      if (expired) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const m = /name="csrf" value="([^"]+)"/.exec(res.body);
    if (m) this.csrf = m[1]!;
  }
}

/** The new key shown once on the account page after "Create key". */
export function shownKey(html: string): string | undefined {
  return /id="new-key">(rk_[A-Za-z0-9_-]+)</.exec(html)?.[1];
}
