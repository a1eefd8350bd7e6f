/**
 * Per-client-address rate limits for everything that needs no key: the demo day, the OpenAPI document,
 * the data dictionary, health, the open-data endpoints and the account pages (routes whose
 * `config.access` is 'public' or 'page'). Keyed routes are limited per key instead. The address is
 * Fastify's `request.ip`: the peer, or the client named by X-Forwarded-For when TRUST_PROXY trusts the
 * proxy in front.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { RacingError } from '../domain/errors.js';
import type { RateLimiter } from './rate-limit.js';

/**
 * Adds the per-address limit to every keyless route registered after this call (as a route-level
 * onRequest hook, so keyed routes pay nothing for it).
 */
export function limitKeylessRoutes(app: FastifyInstance, limiter: RateLimiter): void {
  const hook = addressLimitHook(limiter);
  app.addHook('onRoute', (opts: RouteOptions) => {
    const access = (opts.config as { access?: string } | undefined)?.access;
    if (access !== 'public' && access !== 'page') return;
    opts.onRequest = [hook, ...[opts.onRequest ?? []].flat()];
  });
}

/** onRequest hook: counts one request for the client address; 429 over the limit. */
export function addressLimitHook(limiter: RateLimiter) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const decision = limiter.take(`ip:${request.ip}`);
    limiter.setHeaders(reply, decision);
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
