/**
 * Per-client-address rate limits for everything that needs no key: the demo day, the OpenAPI document,
 * the data dictionary, health, the open-data endpoints and the account pages (routes whose
 * `config.access` is 'public' or 'page'). Keyed routes are limited per key instead. The address is
 * Fastify's `request.ip`: the peer, or the client named by X-Forwarded-For when TRUST_PROXY trusts the
 * proxy in front.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { RacingError } from '../domain/errors.js';
import { RateLimiter } from './rate-limit.js';

/** onRequest hook (root): counts one request per address on keyless routes; 429 over the limit. */
export function addressLimitHook(limiter: RateLimiter) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const access = request.routeOptions.config.access;
    if (access !== 'public' && access !== 'page') return;
    const decision = limiter.take(`ip:${request.ip}`);
    reply.headers(RateLimiter.headers(decision));
    if (!decision.allowed) {
      reply.header('retry-after', String(decision.resetSeconds));
      throw new RacingError(
        'rate_limited',
        `rate limit of ${decision.limit} requests per minute from one address exceeded`,
        { retriable: true, details: { retryAfterSeconds: decision.resetSeconds } },
      );
    }
  };
}
