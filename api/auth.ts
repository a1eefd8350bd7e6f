/**
 * Request authentication. Data endpoints take an API key in X-Api-Key (checked against the KeyStore) or,
 * without one, a signed-in session cookie; either way the account behind it must have API access
 * (operator keys have no account and always do). Then they are rate limited per key or per account.
 * Admin endpoints take the operator token in X-Admin-Token. All run as onRequest hooks, so a request
 * without credentials is refused before any validation or work.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RacingError } from '../domain/errors.js';
import type { KeyRecord, KeyStore } from '../state/credentials/key-store.js';
import type { RateLimiter } from './rate-limit.js';
import type { ResponseCache } from './response-cache.js';
import { type Credentials, signedIn } from './session.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified API key of a keyed request. */
    apiKey?: KeyRecord;
  }
}

export const API_KEY_HEADER = 'x-api-key';
export const ADMIN_TOKEN_HEADER = 'x-admin-token';

function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  // Node joins repeated headers with ", "; an array only appears for set-cookie. Either way: not one key.
  if (Array.isArray(v)) return v.join(', ');
  return v === undefined || v === '' ? undefined : v;
}

function noAccess(): RacingError {
  return new RacingError(
    'access_not_granted',
    'the account has no API access yet: access is granted by an operator when early access opens',
  );
}

/**
 * onRequest hook for data endpoints: 401 without credentials or with a bad key, 403 when the account has
 * no API access, 429 over the limit, RateLimit-* headers. With `cache`, an admitted GET whose URL the
 * response cache has a current answer for is answered here (ResponseCache.sendHot): validation and the
 * handler would map that URL to the same entry. The routes of this hook's scope that let the cache
 * remember URLs (`byUrl`) must have no later onRequest, preParsing, preValidation or preHandler hooks.
 */
export function apiKeyHook(keys: KeyStore, limiter: RateLimiter, credentials?: Credentials, cache?: ResponseCache) {
  /** Who the request counts against (key id or account id); throws the 401/403. */
  const authenticate = async (request: FastifyRequest): Promise<string> => {
    const key = singleHeader(request, API_KEY_HEADER);
    if (key !== undefined) {
      const record = await keys.verify(key);
      if (!record) throw new RacingError('invalid_api_key', 'the API key is unknown or revoked');
      if (record.accountId !== null && credentials && !(await credentials.accounts.hasAccess(record.accountId)))
        throw noAccess();
      request.apiKey = record;
      keys.touch(record.id);
      return record.id;
    }
    const who = credentials ? await signedIn(request, credentials) : undefined;
    if (!who) {
      throw new RacingError(
        'missing_api_key',
        credentials ? 'the X-Api-Key header (or a signed-in session) is required' : 'the X-Api-Key header is required',
      );
    }
    if (who.account.accessGrantedAt === null) throw noAccess();
    return who.account.id;
  };

  /** Counts the request against `subject`; the 429 error when over the limit. */
  const limit = (subject: string, reply: FastifyReply): RacingError | undefined => {
    const decision = limiter.take(subject);
    limiter.setHeaders(reply, decision);
    // Responses depend on the key (auth, limits): shared caches must not serve them to anyone else.
    reply.header('cache-control', 'private, no-cache');
    if (decision.allowed) return undefined;
    reply.header('retry-after', String(decision.resetSeconds));
    return new RacingError('rate_limited', `rate limit of ${decision.limit} requests per minute exceeded`, {
      retriable: true,
      details: { retryAfterSeconds: decision.resetSeconds },
    });
  };

  /** Counts an authenticated request; then answers it from the response cache or lets it go on. */
  const admit = (subject: string, request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    const refused = limit(subject, reply);
    // Answered: the response is on its way, and the hook chain ends here (done is not called).
    if (refused === undefined && cache !== undefined && cache.sendHot(request, reply)) return;
    done(refused);
  };

  // A callback hook with a synchronous path for a key verified before (the common case of a busy
  // client): no promise, no store read. Anything else takes the asynchronous path.
  return (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void): void => {
    const key = singleHeader(request, API_KEY_HEADER);
    const record = key === undefined ? undefined : keys.cached(key);
    if (record) {
      const access =
        record.accountId === null || !credentials ? true : credentials.accounts.cachedAccess(record.accountId);
      if (access === false) return done(noAccess());
      if (access === true) {
        request.apiKey = record;
        keys.touch(record.id);
        return admit(record.id, request, reply, done);
      }
    }
    authenticate(request).then(
      (subject) => admit(subject, request, reply, done),
      (e: unknown) => done(e as Error),
    );
  };
}

/** Compares two secrets in time independent of where they differ (and of their lengths). */
export function constantTimeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a, 'utf8').digest();
  const db = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(da, db);
}

/** onRequest hook for admin endpoints: the X-Admin-Token header must equal the configured token. */
export function adminTokenHook(token: string) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    reply.header('cache-control', 'no-store');
    const presented = singleHeader(request, ADMIN_TOKEN_HEADER);
    if (presented === undefined) throw new RacingError('missing_api_key', 'the X-Admin-Token header is required');
    if (!constantTimeEqual(presented, token)) throw new RacingError('invalid_api_key', 'the admin token is not valid');
  };
}
