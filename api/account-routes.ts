/**
 * The account website: sign-up, sign-in, sign-out and the account page, where an account with API access
 * creates and revokes its keys. Server-rendered HTML forms (api/account-pages.ts); every post is
 * CSRF-checked first (api/session.ts); failures render an HTML page with the status of their error code.
 *
 *   GET  /sign-up, POST /sign-up          create an account (no API access until an operator grants it)
 *   GET  /sign-in, POST /sign-in          start a session (throttled per account and per address)
 *   POST /sign-out                        end it
 *   GET  /account                         access state and keys (name, created, last used; never the key)
 *   POST /account/keys                    create a key (shown once, in this response)
 *   POST /account/keys/:id/revoke         revoke one of the account's keys, at once
 *
 * Sign-up answers the same way whether or not the address was already registered, and sign-in says only
 * "email or password is incorrect", so neither tells anyone whether an address has an account.
 */
import formbody from '@fastify/formbody';
import { Type } from '@sinclair/typebox';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isRacingError, RacingError } from '../domain/errors.js';
import { type AccountStore, isEmail, normalizeEmail } from '../state/credentials/account-store.js';
import { isKeyId, type KeyStore } from '../state/credentials/key-store.js';
import type { SessionStore } from '../state/credentials/session-store.js';
import { accountPage, errorPage, PAGE_HEADERS, signInPage, signUpPage } from './account-pages.js';
import { httpStatusOf } from './errors.js';
import { checkCsrf, clearSessionCookie, csrfToken, setSessionCookie, type SignedIn, signedIn } from './session.js';
import type { SignInThrottle } from './sign-in-throttle.js';

export interface AccountRoutesDeps {
  accounts: AccountStore;
  sessions: SessionStore;
  keys: KeyStore;
  throttle: SignInThrottle;
}

export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 200;
/** Active keys one account may hold: enough for every notebook and server, bounded for the store's sake. */
export const MAX_ACTIVE_KEYS_PER_ACCOUNT = 20;

const Form = Type.Object(
  {
    csrf: Type.Optional(Type.String({ maxLength: 200 })),
    email: Type.Optional(Type.String({ maxLength: 1000 })),
    password: Type.Optional(Type.String({ maxLength: 1000 })),
    name: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: true },
);
type FormBody = { csrf?: string; email?: string; password?: string; name?: string };

const pageRoute = { config: { access: 'page' as const }, bodyLimit: 16 * 1024 };
const formRoute = { ...pageRoute, schema: { body: Form } };

function html(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

const PAGE_ERRORS: Partial<Record<string, { title: string; text: string; link?: string }>> = {
  csrf_failed: {
    title: 'Please try again',
    text: 'The form was out of date or was sent from another site, so nothing was done. Reload the page and submit it again.',
  },
  rate_limited: { title: 'Too many attempts', text: 'Too many attempts from here. Wait a few minutes and try again.' },
  access_not_granted: {
    title: 'No API access yet',
    text: 'Your account does not have API access yet: keys can be created once an operator grants it.',
    link: '/account',
  },
  not_found: { title: 'Not found', text: 'There is nothing here.', link: '/account' },
};

/** Errors on the pages are pages too (with their code's status), not problem+json. */
function pageErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  let status: number;
  let text: { title: string; text: string; link?: string };
  if (isRacingError(error)) {
    status = httpStatusOf(error.code);
    text = PAGE_ERRORS[error.code] ?? { title: 'Something went wrong', text: error.message };
  } else if (error.validation) {
    status = 400;
    text = { title: 'Please check the form', text: 'The form was not filled in as expected.' };
  } else {
    status = typeof error.statusCode === 'number' && error.statusCode < 500 ? error.statusCode : 500;
    text = { title: 'Something went wrong', text: status < 500 ? error.message : 'An internal error occurred.' };
  }
  if (status >= 500) {
    request.log.error({ err: error }, 'page failed');
    text = { title: 'Something went wrong', text: 'An internal error occurred. Please try again later.' };
  }
  void html(reply.headers(PAGE_HEADERS), status, errorPage(status, text.title, text.text, text.link));
}

export function accountRoutes(deps: AccountRoutesDeps) {
  const { accounts, sessions, keys, throttle } = deps;
  const creds = { accounts, sessions };

  async function accountView(request: FastifyRequest, reply: FastifyReply, who: SignedIn, status = 200, extra = {}) {
    const owned = await keys.listForAccount(who.account.id);
    return html(
      reply,
      status,
      accountPage({ csrf: csrfToken(request, reply, who), account: who.account, keys: owned, ...extra }),
    );
  }

  return async (app: FastifyInstance): Promise<void> => {
    await app.register(formbody, { bodyLimit: 16 * 1024 });
    app.setErrorHandler(pageErrorHandler);
    app.addHook('onRequest', async (_request, reply) => {
      reply.headers(PAGE_HEADERS);
    });

    app.get('/sign-up', pageRoute, async (request, reply) => {
      if (await signedIn(request, creds)) return reply.redirect('/account', 303);
      return html(reply, 200, signUpPage({ csrf: csrfToken(request, reply) }));
    });

    app.post<{ Body: FormBody }>('/sign-up', formRoute, async (request, reply) => {
      const form = request.body ?? {};
      checkCsrf(request, form.csrf);
      const email = normalizeEmail(form.email ?? '');
      const password = form.password ?? '';
      const again = (error: string) =>
        html(reply, 400, signUpPage({ csrf: csrfToken(request, reply), email: form.email ?? '', error }));
      if (!isEmail(email)) return again('Enter a valid email address.');
      if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH)
        return again(`The password must be ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters long.`);
      refuseIfThrottled(reply, throttle.check(request.ip));
      throttle.attempt(request.ip);
      const created = await accounts.create(email, password);
      if (created) request.log.info({ accountId: created.id }, 'account created');
      // The same answer whether or not the address was taken.
      return reply.redirect('/sign-in?created=1', 303);
    });

    app.get<{ Querystring: Record<string, string> }>('/sign-in', pageRoute, async (request, reply) => {
      if (await signedIn(request, creds)) return reply.redirect('/account', 303);
      const q = request.query;
      const notice =
        q['created'] !== undefined
          ? 'If this address was not registered before, its account now exists. Sign in to continue.'
          : q['signed-out'] !== undefined
            ? 'You are signed out.'
            : undefined;
      return html(reply, 200, signInPage({ csrf: csrfToken(request, reply), ...(notice ? { notice } : {}) }));
    });

    app.post<{ Body: FormBody }>('/sign-in', formRoute, async (request, reply) => {
      const form = request.body ?? {};
      checkCsrf(request, form.csrf);
      const email = normalizeEmail(form.email ?? '');
      refuseIfThrottled(reply, throttle.check(request.ip, email));
      const account = isEmail(email) ? await accounts.authenticate(email, form.password ?? '') : undefined;
      if (!account) {
        throttle.failure(request.ip, email);
        request.log.info('sign-in failed');
        return html(
          reply,
          httpStatusOf('invalid_credentials'),
          signInPage({
            csrf: csrfToken(request, reply),
            email: form.email ?? '',
            error: 'Email or password is incorrect.',
          }),
        );
      }
      throttle.success(email);
      const { token, session } = await sessions.create(account.id);
      setSessionCookie(request, reply, token, session);
      request.log.info({ accountId: account.id }, 'signed in');
      return reply.redirect('/account', 303);
    });

    app.post<{ Body: FormBody }>('/sign-out', formRoute, async (request, reply) => {
      const who = await signedIn(request, creds);
      if (who) {
        checkCsrf(request, (request.body ?? {}).csrf, who);
        await sessions.end(who.token);
      }
      clearSessionCookie(request, reply);
      return reply.redirect('/sign-in?signed-out=1', 303);
    });

    app.get('/account', pageRoute, async (request, reply) => {
      const who = await signedIn(request, creds);
      if (!who) return reply.redirect('/sign-in', 303);
      return accountView(request, reply, who);
    });

    app.post<{ Body: FormBody }>('/account/keys', formRoute, async (request, reply) => {
      const who = await signedIn(request, creds);
      if (!who) return reply.redirect('/sign-in', 303);
      checkCsrf(request, (request.body ?? {}).csrf, who);
      if (who.account.accessGrantedAt === null)
        throw new RacingError('access_not_granted', 'the account has no API access');
      const active = (await keys.listForAccount(who.account.id)).filter((k) => k.revokedAt === null);
      if (active.length >= MAX_ACTIVE_KEYS_PER_ACCOUNT) {
        return accountView(request, reply, who, 400, {
          error: `An account may hold ${MAX_ACTIVE_KEYS_PER_ACCOUNT} active keys; revoke one first.`,
        });
      }
      const name = (request.body?.name ?? '').trim().slice(0, 200) || `key of ${new Date().toISOString().slice(0, 10)}`;
      const created = await keys.create(name, { accountId: who.account.id });
      request.log.info({ keyId: created.id, accountId: who.account.id }, 'api key created');
      // Rendered in this response rather than after a redirect: the key must not be stored anywhere to be shown later.
      return accountView(request, reply, who, 201, { newKey: created });
    });

    app.post<{ Body: FormBody; Params: { id: string } }>(
      '/account/keys/:id/revoke',
      { ...formRoute, schema: { body: Form, params: Type.Object({ id: Type.String({ maxLength: 100 }) }) } },
      async (request, reply) => {
        const who = await signedIn(request, creds);
        if (!who) return reply.redirect('/sign-in', 303);
        checkCsrf(request, (request.body ?? {}).csrf, who);
        const { id } = request.params;
        const key = isKeyId(id) ? await keys.get(id) : undefined;
        // Another account's key is as unknown as a key that does not exist.
        if (!key || key.accountId !== who.account.id) throw new RacingError('not_found', 'no such key');
        await keys.revoke(id);
        request.log.info({ keyId: id, accountId: who.account.id }, 'api key revoked');
        return reply.redirect('/account', 303);
      },
    );
  };
}

function refuseIfThrottled(reply: FastifyReply, decision: { allowed: boolean; retryAfterSeconds: number }): void {
  if (decision.allowed) return;
  reply.header('retry-after', String(decision.retryAfterSeconds));
  throw new RacingError('rate_limited', 'too many sign-in attempts', {
    retriable: true,
    details: { retryAfterSeconds: decision.retryAfterSeconds },
  });
}
