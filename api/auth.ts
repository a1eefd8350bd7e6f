/**
 * Request authentication. Data endpoints take an API key in X-Api-Key (checked against the KeyStore,
 * then rate limited per key); admin endpoints take the operator token in X-Admin-Token. Both run as
 * onRequest hooks, so a request without credentials is refused before any validation or work.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RacingError } from '../domain/errors.js';
import type { KeyRecord, KeyStore } from '../state/credentials/key-store.js';
import { RateLimiter } from './rate-limit.js';

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

/** onRequest hook for data endpoints: 401 without or with a bad key, 429 over the limit, RateLimit-* headers. */
export function apiKeyHook(keys: KeyStore, limiter: RateLimiter) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const key = singleHeader(request, API_KEY_HEADER);
    if (key === undefined) throw new RacingError('missing_api_key', 'the X-Api-Key header is required');
    const record = await keys.verify(key);
    if (!record) throw new RacingError('invalid_api_key', 'the API key is unknown or revoked');
    request.apiKey = record;
    const decision = limiter.take(record.id);
    reply.headers(RateLimiter.headers(decision));
    // Responses depend on the key (auth, limits): shared caches must not serve them to anyone else.
    reply.header('cache-control', 'private, no-cache');
    if (!decision.allowed) {
      reply.header('retry-after', String(decision.resetSeconds));
      throw new RacingError('rate_limited', `rate limit of ${decision.limit} requests per minute exceeded`, {
        retriable: true,
        details: { retryAfterSeconds: decision.resetSeconds },
      });
    }
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
