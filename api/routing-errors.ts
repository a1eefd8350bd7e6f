/**
 * What the router itself answers, in the same problem+json shape as everything else:
 * - a method the path does not have (TRACE, QUERY, PUT on a GET route...) is 405 `method_not_allowed`
 *   with an `Allow` header listing the methods it has (RFC 9110 15.5.6), not a 404;
 * - a URL Fastify cannot route (a malformed %-escape, a path parameter longer than the router accepts) is
 *   400 `validation_failed` instead of Fastify's bare JSON 400 / 414.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { RacingError } from '../domain/errors.js';
import { problem, requestPath, sendProblem } from './errors.js';

/** Longest path parameter the router accepts (Fastify's default of 100 is shorter than some valid ids). */
export const MAX_PARAM_LENGTH = 500;

interface RoutePattern {
  regex: RegExp;
  methods: Set<string>;
  params: string[];
}

function patternOf(url: string): { regex: RegExp; params: string[] } {
  const params: string[] = [];
  const source = url
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) {
        params.push(segment.slice(1));
        return '[^/]+';
      }
      if (segment === '*') return '.*';
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    })
    .join('/');
  return { regex: new RegExp(`^${source}$`), params };
}

/** The routes of an app by path pattern, filled from onRoute (`watch` it before registering routes). */
export class RouteTable {
  readonly #patterns = new Map<string, RoutePattern>();

  watch(app: FastifyInstance): this {
    app.addHook('onRoute', (opts: RouteOptions) => {
      let entry = this.#patterns.get(opts.url);
      if (!entry) {
        entry = { ...patternOf(opts.url), methods: new Set() };
        this.#patterns.set(opts.url, entry);
      }
      for (const m of [opts.method].flat()) entry.methods.add(m.toUpperCase());
    });
    return this;
  }

  /** Every method some route of `path` answers, sorted; empty when no route has that path. */
  allowed(path: string): string[] {
    const methods = new Set<string>();
    for (const p of this.#patterns.values()) if (p.regex.test(path)) for (const m of p.methods) methods.add(m);
    return [...methods].sort();
  }

  /** Names of the path parameters of the route(s) matching `path`. */
  paramsOf(path: string): string[] {
    for (const p of this.#patterns.values()) if (p.regex.test(path) && p.params.length > 0) return p.params;
    return [];
  }
}

/** onRequest hook: an unrouted request whose path exists under other methods is 405 with Allow. */
export function installMethodNotAllowed(app: FastifyInstance, routes: RouteTable): void {
  // A callback hook, not an async one: it runs on every request and almost always has nothing to do.
  app.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: (err?: Error) => void) => {
    if (!request.is404) return done();
    const allowed = routes.allowed(requestPath(request));
    if (allowed.length === 0) return done();
    reply.header('allow', allowed.join(', '));
    done(new RacingError('method_not_allowed', `${request.method} is not allowed here; use ${allowed.join(', ')}`));
  });
}

/** Fastify's frameworkErrors option: router-level failures as problem+json. */
export function frameworkErrors(routes: RouteTable) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const instance = requestPath(request);
    if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
      const name = routes.paramsOf(instance)[0] ?? '(path)';
      const message = `must be at most ${MAX_PARAM_LENGTH} characters`;
      sendProblem(
        reply,
        problem('validation_failed', `path parameter '${name}' ${message}`, instance, {
          errors: [{ in: 'path', name, message }],
        }),
      );
      return;
    }
    sendProblem(reply, problem('validation_failed', 'the URL is not valid (malformed percent-encoding)', instance));
  };
}
