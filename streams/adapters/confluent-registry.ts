/**
 * The SchemaRegistryPort over a Confluent-compatible registry (Confluent's, Karapace, Apicurio's ccompat
 * API or the project's own server in streams/registry-server/) through @kafkajs/confluent-schema-registry.
 * Registration goes through the official client; the reads the client does not offer as text (subjects,
 * versions, the latest version, a schema's text by id) are plain GETs of the same REST API. The wire
 * format is unchanged: streams/serde.ts frames values with the ids this port returns.
 */
import { SchemaRegistry, SchemaType } from '@kafkajs/confluent-schema-registry';
import { RacingError } from '../../domain/errors.js';
import type { Logger } from '../../domain/logger.js';
import type { RegisteredSchema, SchemaRegistryPort } from '../registry-port.js';

export interface ConfluentRegistryOptions {
  /** Base URL, e.g. http://127.0.0.1:8081; `https://user:secret@host` supplies basic-auth credentials. */
  url: string;
  logger?: Logger;
  /** Per-request timeout in ms, including the start-up check; default 5,000. */
  timeoutMs?: number;
}

const CLIENT_ID = 'racing-analytics';
const ACCEPT = 'application/vnd.schemaregistry.v1+json, application/vnd.schemaregistry+json, application/json';

type ClientArgs = ConstructorParameters<typeof SchemaRegistry>[0];
type Middleware = NonNullable<ClientArgs['middlewares']>[number];

interface Endpoint {
  /** base URL without credentials or trailing slash */
  base: string;
  auth: { username: string; password: string } | undefined;
}

/**
 * Connects to the registry at `options.url`: checks that it answers GET /subjects like a registry and
 * throws RacingError `registry_unreachable` naming the URL when it does not (connection refused, no
 * answer within the timeout, or an answer that is not a registry's).
 */
export async function createConfluentRegistry(options: ConfluentRegistryOptions): Promise<SchemaRegistryPort> {
  const endpoint = parseEndpoint(options.url);
  const timeoutMs = options.timeoutMs ?? 5_000;
  const logger = options.logger?.child({ component: 'confluent-registry', url: endpoint.base });
  const http = httpGetter(endpoint, timeoutMs);

  const probe = await http('/subjects');
  if (probe.status !== 200 || !isStringArray(probe.body)) {
    throw new RacingError(
      'registry_unreachable',
      `${endpoint.base} is not a Confluent-compatible schema registry: GET /subjects answered HTTP ${probe.status} ` +
        `(${probe.contentType || 'no content type'}) where a registry answers 200 with a JSON array of subject names`,
      { details: { url: endpoint.base, status: probe.status } },
    );
  }
  logger?.info({ subjects: probe.body.length }, 'connected to schema registry');

  const args: ClientArgs = { host: endpoint.base, clientId: CLIENT_ID, middlewares: [timeoutMiddleware(timeoutMs)] };
  if (endpoint.auth) args.auth = endpoint.auth;
  const client = new SchemaRegistry(args);

  /** GET that treats 404 as "absent"; any other non-200 is an error. */
  const find = async (path: string, what: string): Promise<unknown> => {
    const res = await http(path);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw httpError(endpoint.base, res, what);
    return res.body;
  };

  return {
    async register(subject, schema) {
      try {
        // Look up first: a registered schema needs no write, which also lets the service start with
        // read-only registry credentials once CI has registered its schemas.
        return await client.getRegistryIdBySchema(subject, { type: SchemaType.AVRO, schema });
      } catch (e) {
        // The client reports "subject or schema not registered" (a 404) as a bare ConfluentSchemaRegistryError.
        if (!(e instanceof Error && e.name === 'ConfluentSchemaRegistryError')) {
          throw clientError(endpoint.base, e, `look up a schema under ${subject}`);
        }
      }
      try {
        const { id } = await client.register({ type: SchemaType.AVRO, schema }, { subject });
        logger?.info({ subject, id }, 'schema registered');
        return id;
      } catch (e) {
        throw clientError(endpoint.base, e, `register a schema under ${subject}`);
      }
    },

    async schemaById(id) {
      const body = await find(`/schemas/ids/${encodeURIComponent(String(id))}`, `read schema ${id}`);
      if (body === undefined) throw new RacingError('schema_not_found', `no schema with id ${id} in ${endpoint.base}`);
      const schema = (body as { schema?: unknown }).schema;
      if (typeof schema !== 'string') throw malformed(endpoint.base, `GET /schemas/ids/${id}`);
      return schema;
    },

    async latest(subject) {
      const path = `/subjects/${encodeURIComponent(subject)}/versions/latest`;
      const body = (await find(path, `read the latest version of ${subject}`)) as Partial<RegisteredSchema> | undefined;
      if (body === undefined) return undefined;
      const { id, version, schema } = body;
      if (typeof id !== 'number' || typeof version !== 'number' || typeof schema !== 'string') {
        throw malformed(endpoint.base, `GET ${path}`);
      }
      return { id, version, schema };
    },

    async subjects() {
      const body = await find('/subjects', 'list subjects');
      if (!isStringArray(body)) throw malformed(endpoint.base, 'GET /subjects');
      return [...body].sort();
    },

    async versions(subject) {
      const path = `/subjects/${encodeURIComponent(subject)}/versions`;
      const body = await find(path, `list the versions of ${subject}`);
      if (body === undefined) return [];
      if (!Array.isArray(body) || !body.every((v) => typeof v === 'number'))
        throw malformed(endpoint.base, `GET ${path}`);
      return [...body].sort((a, b) => a - b);
    },
  };
}

function parseEndpoint(raw: string): Endpoint {
  let url: URL;
  try {
    url = new URL(raw);
  } catch (cause) {
    throw new RacingError('config_invalid', `schema registry URL ${JSON.stringify(raw)} is not a URL`, { cause });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RacingError('config_invalid', `schema registry URL ${url.origin} must be http or https`);
  }
  const auth =
    url.username === ''
      ? undefined
      : { username: decodeURIComponent(url.username), password: decodeURIComponent(url.password) };
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  return { base: url.toString().replace(/\/+$/, ''), auth };
}

interface HttpAnswer {
  status: number;
  contentType: string;
  body: unknown;
}

/** GETs a path of the registry; network failures and timeouts become `registry_unreachable`. */
function httpGetter(endpoint: Endpoint, timeoutMs: number): (path: string) => Promise<HttpAnswer> {
  const headers: Record<string, string> = { accept: ACCEPT };
  if (endpoint.auth) {
    const token = Buffer.from(`${endpoint.auth.username}:${endpoint.auth.password}`).toString('base64');
    headers['authorization'] = `Basic ${token}`;
  }
  return async (path) => {
    try {
      const res = await fetch(endpoint.base + path, { headers, signal: AbortSignal.timeout(timeoutMs) });
      const text = await res.text();
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      return { status: res.status, contentType: res.headers.get('content-type') ?? '', body };
    } catch (cause) {
      throw new RacingError(
        'registry_unreachable',
        `schema registry at ${endpoint.base} is unreachable: ${networkReason(cause, timeoutMs)}`,
        { cause, retriable: true, details: { url: endpoint.base } },
      );
    }
  };
}

function networkReason(e: unknown, timeoutMs: number): string {
  if (e instanceof Error && (e.name === 'TimeoutError' || e.name === 'AbortError')) {
    return `no answer within ${timeoutMs} ms`;
  }
  // fetch reports "fetch failed" and keeps the system error (ECONNREFUSED, ENOTFOUND...) as its cause.
  const cause = e instanceof Error ? (e.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (typeof cause?.code === 'string')
    return `${cause.code}${typeof cause.message === 'string' ? ` (${cause.message})` : ''}`;
  return e instanceof Error ? e.message : String(e);
}

function httpError(base: string, res: HttpAnswer, what: string): RacingError {
  const message = (res.body as { message?: unknown } | undefined)?.message;
  const detail = typeof message === 'string' ? message : `HTTP ${res.status}`;
  if (res.status === 401 || res.status === 403) {
    return new RacingError('config_invalid', `schema registry at ${base} refused to ${what}: ${detail}`);
  }
  return new RacingError('registry_unreachable', `schema registry at ${base} failed to ${what}: ${detail}`, {
    retriable: res.status >= 500,
    details: { url: base, status: res.status },
  });
}

function malformed(base: string, request: string): RacingError {
  return new RacingError('registry_unreachable', `schema registry at ${base} gave an unexpected answer to ${request}`, {
    details: { url: base },
  });
}

/**
 * Maps the client's errors. Its ResponseError carries the HTTP status and the registry's message
 * prefixed with the client id; a transport failure (refused, timed out) surfaces as a ResponseError
 * whose message has no registry text ("Error, status 400: ...").
 */
function clientError(base: string, e: unknown, what: string): RacingError {
  if (!(e instanceof Error)) return new RacingError('internal', `could not ${what}: ${String(e)}`);
  const status = (e as { status?: unknown }).status;
  const message = e.message.startsWith(`${CLIENT_ID} - `) ? e.message.slice(CLIENT_ID.length + 3) : e.message;
  switch (e.name) {
    case 'ConfluentSchemaRegistryArgumentError':
      return new RacingError('validation_failed', `cannot ${what}: ${message}`, { cause: e });
    case 'ConfluentSchemaRegistryCompatibilityError':
      return new RacingError(
        'config_invalid',
        `cannot ${what}: the subject's compatibility level on ${base} is not BACKWARD (${message})`,
        { cause: e },
      );
  }
  if (typeof status !== 'number') return new RacingError('internal', `could not ${what}: ${message}`, { cause: e });
  if (/^Error, status \d+/.test(message) || status >= 500) {
    return new RacingError('registry_unreachable', `schema registry at ${base} could not ${what}: ${message}`, {
      cause: e,
      retriable: true,
      details: { url: base, status },
    });
  }
  if (status === 409) return new RacingError('schema_incompatible', message, { cause: e, details: { url: base } });
  if (status === 422) return new RacingError('validation_failed', message, { cause: e, details: { url: base } });
  if (status === 404) return new RacingError('schema_not_found', message, { cause: e, details: { url: base } });
  if (status === 401 || status === 403) {
    return new RacingError('config_invalid', `schema registry at ${base} refused to ${what}: ${message}`, { cause: e });
  }
  return new RacingError('internal', `schema registry at ${base} could not ${what}: ${message}`, { cause: e });
}

/** Bounds each of the client's requests (mappersmith has no default timeout). */
function timeoutMiddleware(timeoutMs: number): Middleware {
  return () => ({
    async prepareRequest(next) {
      const request = await next();
      return request.enhance({ timeout: timeoutMs });
    },
  });
}

function isStringArray(v: unknown): v is string[] {
  return Array.isArray(v) && v.every((s) => typeof s === 'string');
}
