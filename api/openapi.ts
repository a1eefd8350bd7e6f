/**
 * The OpenAPI 3.1 document, generated from the routes as registered (their JSON schemas, summaries and
 * access level), so it lists every route and cannot disagree with what Fastify validates and serialises.
 * Shared schemas are published once under components.schemas and referenced by identity.
 */
import type { TSchema } from '@sinclair/typebox';
import type { FastifyInstance, RouteOptions } from 'fastify';

/** key: X-Api-Key or a signed-in session; public: no key; admin: operator token; page: an HTML account page (not in the document). */
export type Access = 'key' | 'public' | 'admin' | 'page';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; drives the security requirement and error responses in the document. */
    access?: Access;
    /** Content type of the 200 response when not application/json (e.g. application/x-ndjson). */
    produces?: string;
    /** JSON schema of one line of an NDJSON response (documentation only). */
    lineSchema?: TSchema;
    /** Further problem+json responses the route sends, by status, with what they mean (documentation only). */
    problems?: Readonly<Record<string, string>>;
  }
  interface FastifySchema {
    summary?: string;
    description?: string;
    tags?: readonly string[];
  }
}

interface RouteEntry {
  method: string;
  url: string;
  schema: Record<string, unknown>;
  access: Access;
  produces: string | undefined;
  lineSchema: TSchema | undefined;
  problems: Readonly<Record<string, string>>;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Collects routes as they are added; call before registering any route. */
export function collectRoutes(app: FastifyInstance): RouteEntry[] {
  const routes: RouteEntry[] = [];
  app.addHook('onRoute', (opts: RouteOptions) => {
    const methods = Array.isArray(opts.method) ? opts.method : [opts.method];
    const config = (opts.config ?? {}) as {
      access?: Access;
      produces?: string;
      lineSchema?: TSchema;
      problems?: Readonly<Record<string, string>>;
    };
    // The account pages are a website for people, not part of the API the document describes.
    if (config.access === 'page') return;
    for (const method of methods) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      routes.push({
        method: method.toLowerCase(),
        url: opts.url,
        schema: (opts.schema ?? {}) as Record<string, unknown>,
        access: config.access ?? 'public',
        produces: config.produces,
        lineSchema: config.lineSchema,
        problems: config.problems ?? {},
      });
    }
  });
  return routes;
}

/** A plain JSON copy of a schema (TypeBox symbols dropped) with named schemas replaced by $refs. */
function toJson(value: unknown, refs: Map<unknown, string>, self?: unknown): Json {
  if (value !== self && refs.has(value)) return { $ref: `#/components/schemas/${refs.get(value)}` };
  if (value === null || typeof value !== 'object') return value as Json;
  if (Array.isArray(value)) return value.map((v) => toJson(v, refs));
  const out: { [k: string]: Json } = {};
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = toJson(v, refs);
  }
  return out;
}

function operationId(method: string, url: string): string {
  const words = url
    .split('/')
    .filter((s) => s !== '' && s !== 'api' && s !== 'v1')
    .map((s) => (s.startsWith(':') ? `by-${s.slice(1)}` : s))
    .join('-')
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w !== '');
  return method + words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
}

const problemResponse = (description: string): Json => ({
  description,
  content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } },
});

function parameters(location: 'path' | 'query', schema: unknown, refs: Map<unknown, string>): Json[] {
  const s = schema as { properties?: Record<string, { description?: string }>; required?: string[] } | undefined;
  if (!s?.properties) return [];
  return Object.keys(s.properties).map((name) => {
    const prop = s.properties![name]!;
    const p: { [k: string]: Json } = {
      name,
      in: location,
      required: location === 'path' || (s.required ?? []).includes(name),
      schema: toJson(prop, refs),
    };
    if (prop.description) p['description'] = prop.description;
    return p;
  });
}

export interface OpenApiInfo {
  title: string;
  version: string;
  description: string;
  /** Name of the session cookie that may stand in for X-Api-Key on keyed routes (when accounts are served). */
  sessionCookie?: string;
}

export function buildOpenApi(
  routes: readonly RouteEntry[],
  named: Readonly<Record<string, TSchema>>,
  info: OpenApiInfo,
): Json {
  const refs = new Map<unknown, string>(Object.entries(named).map(([name, s]) => [s, name]));
  const paths: { [path: string]: { [method: string]: Json } } = {};
  const sorted = [...routes].sort((a, b) => (a.url < b.url ? -1 : a.url > b.url ? 1 : a.method < b.method ? -1 : 1));
  for (const r of sorted) {
    const path = r.url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const s = r.schema;
    const op: { [k: string]: Json } = { operationId: operationId(r.method, r.url) };
    if (typeof s['summary'] === 'string') op['summary'] = s['summary'];
    if (typeof s['description'] === 'string') op['description'] = s['description'];
    if (Array.isArray(s['tags'])) op['tags'] = s['tags'] as string[];
    const keyed: Json[] = info.sessionCookie ? [{ ApiKey: [] }, { Session: [] }] : [{ ApiKey: [] }];
    op['security'] = r.access === 'key' ? keyed : r.access === 'admin' ? [{ AdminToken: [] }] : [];
    const params = [...parameters('path', s['params'], refs), ...parameters('query', s['querystring'], refs)];
    if (params.length > 0) op['parameters'] = params;
    if (s['body'] !== undefined) {
      op['requestBody'] = { required: true, content: { 'application/json': { schema: toJson(s['body'], refs) } } };
    }
    const responses: { [status: string]: Json } = {};
    const response = (s['response'] ?? {}) as Record<string, unknown>;
    const statuses = Object.keys(response).sort();
    if (statuses.length === 0 && r.lineSchema !== undefined) statuses.push('200');
    for (const status of statuses) {
      const headers: { [k: string]: Json } = {};
      if (r.method === 'get' && r.produces === undefined) headers['ETag'] = { $ref: '#/components/headers/ETag' };
      if (r.access === 'key' || r.access === 'public') {
        for (const h of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'])
          headers[h] = { $ref: `#/components/headers/${h}` };
      }
      const entry: { [k: string]: Json } = { description: status.startsWith('2') ? 'OK' : status };
      if (status !== '204') {
        const contentType = r.produces ?? 'application/json';
        const schema = r.lineSchema !== undefined ? r.lineSchema : response[status];
        entry['content'] = { [contentType]: { schema: toJson(schema, refs) } };
        if (r.lineSchema !== undefined) entry['description'] = 'one JSON object per line (each line: the schema)';
      }
      if (Object.keys(headers).length > 0) entry['headers'] = headers;
      responses[status] = entry;
    }
    if (r.method === 'get' && r.produces === undefined)
      responses['304'] = { description: 'Not modified (If-None-Match)' };
    if (params.length > 0 || s['body'] !== undefined)
      responses['400'] = problemResponse('validation_failed or range_too_large');
    if (r.access !== 'public') responses['401'] = problemResponse('missing_api_key or invalid_api_key');
    if (r.access === 'key') responses['403'] = problemResponse('access_not_granted (the account has no API access)');
    if (s['params'] !== undefined) responses['404'] = problemResponse('not_found');
    if (r.access === 'key' || r.access === 'public')
      responses['429'] = problemResponse('rate_limited (see Retry-After)');
    for (const [status, description] of Object.entries(r.problems)) responses[status] = problemResponse(description);
    responses['500'] = problemResponse('internal error');
    op['responses'] = responses;
    paths[path] ??= {};
    paths[path]![r.method] = op;
  }
  const schemas: { [k: string]: Json } = {};
  for (const name of Object.keys(named).sort()) schemas[name] = toJson(named[name], refs, named[name]);
  const intHeader = (description: string): Json => ({ description, schema: { type: 'integer' } });
  const { sessionCookie, ...infoFields } = info;
  const session: { [k: string]: Json } = sessionCookie
    ? {
        Session: {
          type: 'apiKey',
          in: 'cookie',
          name: sessionCookie,
          description: 'a signed-in session of an account with API access (see /sign-in)',
        },
      }
    : {};
  return {
    openapi: '3.1.0',
    info: { ...infoFields },
    paths,
    components: {
      schemas,
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'API key, shown once at creation' },
        ...(routes.some((r) => r.access === 'admin')
          ? { AdminToken: { type: 'apiKey', in: 'header', name: 'X-Admin-Token', description: 'operator token' } }
          : {}),
        ...session,
      },
      headers: {
        ETag: {
          description: 'strong validator of the body; send it back in If-None-Match',
          schema: { type: 'string' },
        },
        'RateLimit-Limit': intHeader('requests allowed per window (per key, or per address without one)'),
        'RateLimit-Remaining': intHeader('requests left in the current window'),
        'RateLimit-Reset': intHeader('seconds until the window resets'),
      },
    },
  };
}
