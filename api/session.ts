/**
 * Browser sessions and CSRF protection for the account pages.
 *
 * - The session cookie holds the session token (the store keeps only its hash): HttpOnly, SameSite=Lax,
 *   Path=/, and Secure with the `__Host-` prefix when the request came over TLS (directly, or through a
 *   proxy trusted with TRUST_PROXY), so a sibling subdomain can neither read nor plant it.
 * - Every form post carries a CSRF token: an HMAC of a secret only this browser holds in an HttpOnly
 *   cookie (the session token once signed in, a random pre-session cookie on the sign-in and sign-up
 *   forms). Nothing is stored server-side, so a form rendered by one API replica verifies on another.
 *   Posts whose Origin is another origin, or that a browser labels cross-site, are refused as well.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RacingError } from '../domain/errors.js';
import type { AccountStore, Account } from '../state/credentials/account-store.js';
import type { SessionStore, StoredSession } from '../state/credentials/session-store.js';

const SESSION_COOKIE = 'racing_session';
const CSRF_COOKIE = 'racing_csrf';
const CSRF_CONTEXT = 'racing-csrf-v1';

export interface Credentials {
  accounts: AccountStore;
  sessions: SessionStore;
}

/** A signed-in request: the session, its token (the CSRF secret) and the account. */
export interface SignedIn {
  session: StoredSession;
  token: string;
  account: Account;
}

function isTls(request: FastifyRequest): boolean {
  return request.protocol === 'https';
}

/** Cookie name for this request: `__Host-` prefixed (Secure, host-only, Path=/) over TLS. */
function cookieName(request: FastifyRequest, base: string): string {
  return isTls(request) ? `__Host-${base}` : base;
}

function cookieOptions(request: FastifyRequest, sameSite: 'lax' | 'strict', maxAgeSeconds?: number) {
  return {
    path: '/',
    httpOnly: true,
    sameSite,
    secure: isTls(request),
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}

function cookie(request: FastifyRequest, base: string): string | undefined {
  // Parsed on first use (the plugin's per-request parsing hook is off: most requests carry an API key)
  request.cookies ??= request.headers.cookie ? request.server.parseCookie(request.headers.cookie) : {};
  const value = request.cookies[cookieName(request, base)];
  return value === undefined || value === '' ? undefined : value;
}

/** The signed-in session of a request, or undefined (no cookie, or an unknown, ended or expired session). */
export async function signedIn(request: FastifyRequest, creds: Credentials): Promise<SignedIn | undefined> {
  const token = cookie(request, SESSION_COOKIE);
  if (token === undefined) return undefined;
  const session = await creds.sessions.verify(token);
  if (!session) return undefined;
  const account = await creds.accounts.get(session.accountId);
  return account ? { session, token, account } : undefined;
}

/** True when the request carries a session cookie at all (signed in or not). */
export function hasSessionCookie(request: FastifyRequest): boolean {
  return cookie(request, SESSION_COOKIE) !== undefined;
}

export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, token: string, session: StoredSession) {
  const maxAge = Math.max(0, Math.floor((Date.parse(session.expiresAt) - Date.parse(session.createdAt)) / 1000));
  reply.setCookie(cookieName(request, SESSION_COOKIE), token, cookieOptions(request, 'lax', maxAge));
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(cookieName(request, SESSION_COOKIE), cookieOptions(request, 'lax'));
}

function tokenFor(secret: string): string {
  return createHmac('sha256', secret).update(CSRF_CONTEXT).digest('base64url');
}

/**
 * The CSRF token for a form on this response. Signed in: derived from the session token. Otherwise
 * from the pre-session cookie, which is set here when the browser has none yet.
 */
export function csrfToken(request: FastifyRequest, reply: FastifyReply, signedInAs?: SignedIn): string {
  if (signedInAs) return tokenFor(signedInAs.token);
  let secret = cookie(request, CSRF_COOKIE);
  if (secret === undefined) {
    secret = randomBytes(32).toString('base64url');
    reply.setCookie(cookieName(request, CSRF_COOKIE), secret, cookieOptions(request, 'strict'));
  }
  return tokenFor(secret);
}

function sameOrigin(request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  const origin = request.headers['origin'];
  if (origin === undefined) return true;
  return origin === `${request.protocol}://${request.host}`;
}

/**
 * Throws RacingError 'csrf_failed' unless the posted token matches the browser's secret (the session
 * token when signed in, else the pre-session cookie) and the request is not from another origin.
 */
export function checkCsrf(request: FastifyRequest, posted: unknown, signedInAs?: SignedIn): void {
  const secret = signedInAs ? signedInAs.token : cookie(request, CSRF_COOKIE);
  const fail = () => new RacingError('csrf_failed', 'the form is out of date or came from another site');
  if (!sameOrigin(request) || secret === undefined || typeof posted !== 'string') throw fail();
  const expected = Buffer.from(tokenFor(secret));
  const got = Buffer.from(posted);
  if (got.length !== expected.length || !timingSafeEqual(got, expected)) throw fail();
}
