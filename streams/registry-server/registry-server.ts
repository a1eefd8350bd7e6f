/**
 * A Confluent Schema Registry REST subset (AVRO, BACKWARD, no deletes) over a SchemaStore, built as a
 * Fastify factory: tests drive it with inject(), startRegistryServer() opens the socket. The JSON shapes,
 * statuses and error codes are Confluent's, so @kafkajs/confluent-schema-registry (or any other
 * Confluent client) talks to it unchanged. See docs/registry.md for the supported subset.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '../../domain/logger.js';
import { backwardProblem, parseAvroSchema } from './avro-schema.js';
import {
  invalidCompatibilityLevel,
  invalidSchema,
  invalidVersion,
  methodNotAllowed,
  schemaNotFound,
  subjectNotFound,
  toConfluentError,
  versionNotFound,
} from './confluent-errors.js';
import type { SchemaStore, StoredSchema } from './log-schema-store.js';

/** Confluent's media type; requests may also use application/vnd.schemaregistry+json or application/json. */
export const REGISTRY_CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';

/** The only compatibility level this registry enforces (and accepts in PUT /config). */
export const COMPATIBILITY_LEVEL = 'BACKWARD';

export interface RegistryServerDeps {
  store: SchemaStore;
  logger: Logger;
}

type SubjectParams = { Params: { subject: string } };
type VersionParams = { Params: { subject: string; version: string } };
type IdParams = { Params: { id: string } };
type VerboseQuery = { Querystring: { verbose?: string } };

/** Builds the registry's Fastify instance. Closing the app leaves the store open: its owner closes it. */
export function buildRegistryServer(deps: RegistryServerDeps): FastifyInstance {
  const { store } = deps;
  const app = Fastify({
    loggerInstance: deps.logger.child({ component: 'schema-registry' }) as FastifyBaseLogger,
    return503OnClosing: true,
  });

  // Bodies are JSON only: Confluent answers other media types (text/plain included) with 415.
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser(
    [REGISTRY_CONTENT_TYPE, 'application/vnd.schemaregistry+json'],
    { parseAs: 'string' },
    app.getDefaultJsonParser('error', 'error'),
  );
  app.addHook('onSend', async (_request, reply, payload) => {
    const type = reply.getHeader('content-type');
    if (typeof type === 'string' && /^application\/(json|vnd\.schemaregistry\.v1\+json)\b/.test(type)) {
      reply.header('content-type', REGISTRY_CONTENT_TYPE);
    }
    return payload;
  });
  app.setErrorHandler((error, request, reply) => {
    const e = toConfluentError(error);
    if (e.status >= 500) request.log.error({ err: error }, 'schema registry request failed');
    return reply.code(e.status).send(e.body());
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send({ error_code: 404, message: `HTTP 404 Not Found: no resource ${request.method} ${request.url}` }),
  );

  // Confluent answers {} at the root; clients and load balancers use it as a health check.
  app.get('/', async () => ({}));
  app.get('/schemas/types', async () => ['AVRO']);

  app.get<IdParams>('/schemas/ids/:id', async (request) => {
    const id = parseId(request.params.id);
    const schema = store.schemaById(id);
    if (schema === undefined) throw schemaNotFound(String(id));
    return { schema };
  });

  app.get<IdParams>('/schemas/ids/:id/versions', async (request) => {
    const id = parseId(request.params.id);
    if (store.schemaById(id) === undefined) throw schemaNotFound(String(id));
    return store.usagesOf(id);
  });

  app.get('/subjects', async () => store.subjects());

  app.get<SubjectParams>('/subjects/:subject/versions', async (request) => {
    const versions = store.versions(request.params.subject);
    if (versions.length === 0) throw subjectNotFound(request.params.subject);
    return versions;
  });

  app.post<SubjectParams>('/subjects/:subject/versions', async (request) => {
    const { id } = await store.register(request.params.subject, schemaText(request.body));
    return { id };
  });

  // Lookup: is this schema registered under the subject, and as which version?
  app.post<SubjectParams>('/subjects/:subject', async (request) => {
    const { subject } = request.params;
    const canonical = parse(schemaText(request.body));
    if (store.versions(subject).length === 0) throw subjectNotFound(subject);
    const found = store.lookup(subject, canonical);
    if (found === undefined) throw schemaNotFound(`under subject '${subject}'`);
    return versionBody(found);
  });

  app.get<VersionParams>('/subjects/:subject/versions/:version', async (request) =>
    versionBody(findVersion(store, request.params)),
  );

  app.get<VersionParams>('/subjects/:subject/versions/:version/schema', async (request, reply) =>
    reply.type(REGISTRY_CONTENT_TYPE).send(findVersion(store, request.params).schema),
  );

  app.post<VersionParams & VerboseQuery>('/compatibility/subjects/:subject/versions/:version', async (request) => {
    const canonical = parse(schemaText(request.body));
    const against = findVersion(store, request.params);
    return compatibilityBody(backwardProblem(canonical, against.schema), against, request.query.verbose);
  });

  // Without a version: against the versions the level compares with, i.e. the latest for BACKWARD.
  app.post<SubjectParams & VerboseQuery>('/compatibility/subjects/:subject/versions', async (request) => {
    const canonical = parse(schemaText(request.body));
    const latest = store.version(request.params.subject, 'latest');
    if (latest === undefined) return { is_compatible: true };
    return compatibilityBody(backwardProblem(canonical, latest.schema), latest, request.query.verbose);
  });

  app.get('/config', async () => ({ compatibilityLevel: COMPATIBILITY_LEVEL }));
  // Every subject has the global level (there are no subject-level overrides to report as missing), so
  // this answers 200 where Confluent would answer 40408 for a subject without its own setting.
  app.get<SubjectParams>('/config/:subject', async () => ({ compatibilityLevel: COMPATIBILITY_LEVEL }));
  app.put('/config', async (request) => setCompatibility(request.body));
  app.put<SubjectParams>('/config/:subject', async (request) => setCompatibility(request.body));

  for (const url of ['/subjects/:subject', '/subjects/:subject/versions/:version', '/config', '/config/:subject']) {
    app.delete(url, async (request, reply) => {
      reply.header('allow', url.startsWith('/config') ? 'GET, PUT' : 'GET, POST');
      throw methodNotAllowed(request.method, request.url);
    });
  }

  return app;
}

/** Listens on host:port (port 0 picks a free one) and resolves to the address, e.g. http://127.0.0.1:8081. */
export async function startRegistryServer(
  app: FastifyInstance,
  options: { host: string; port: number },
): Promise<string> {
  return app.listen({ host: options.host, port: options.port });
}

function schemaText(body: unknown): string {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalidSchema('the request body must be a JSON object {"schema": "<Avro schema JSON text>"}');
  }
  const { schema, schemaType, references } = body as Record<string, unknown>;
  if (schemaType !== undefined && schemaType !== 'AVRO') {
    throw invalidSchema(`schemaType ${JSON.stringify(schemaType)} is not supported; this registry stores AVRO only`);
  }
  if (Array.isArray(references) && references.length > 0) {
    throw invalidSchema('schema references are not supported by this registry');
  }
  if (typeof schema !== 'string' || schema.trim() === '') {
    throw invalidSchema('empty schema: "schema" must be the Avro schema as a JSON string');
  }
  return schema;
}

function parse(text: string): string {
  try {
    return parseAvroSchema(text);
  } catch (e) {
    throw invalidSchema((e as Error).message);
  }
}

function parseId(raw: string): number {
  const id = /^\d{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(id >= 1 && id <= 2 ** 31 - 1)) throw schemaNotFound(JSON.stringify(raw));
  return id;
}

/** `latest` (or Confluent's alias -1) or a version number in [1, 2^31-1]. */
function parseVersion(raw: string): number | 'latest' {
  if (raw === 'latest' || raw === '-1') return 'latest';
  const v = /^\d{1,10}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(v >= 1 && v <= 2 ** 31 - 1)) throw invalidVersion(raw);
  return v;
}

/** Checks in Confluent's order: version syntax (42202), subject (40401), version (40402). */
function findVersion(store: SchemaStore, params: { subject: string; version: string }): StoredSchema {
  const version = parseVersion(params.version);
  if (store.versions(params.subject).length === 0) throw subjectNotFound(params.subject);
  const found = store.version(params.subject, version);
  if (found === undefined) throw versionNotFound(params.subject, version);
  return found;
}

function versionBody(s: StoredSchema) {
  // schemaType is omitted for AVRO, as Confluent does.
  return { subject: s.subject, id: s.id, version: s.version, schema: s.schema };
}

function compatibilityBody(problem: string | undefined, against: StoredSchema, verbose: string | undefined) {
  if (verbose !== 'true') return { is_compatible: problem === undefined };
  const messages =
    problem === undefined
      ? []
      : [`BACKWARD: cannot read data written with version ${against.version} (id ${against.id}): ${problem}`];
  return { is_compatible: problem === undefined, messages };
}

function setCompatibility(body: unknown): { compatibility: string } {
  const level = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['compatibility'] : body;
  if (typeof level !== 'string' || level.toUpperCase() !== COMPATIBILITY_LEVEL) throw invalidCompatibilityLevel(level);
  return { compatibility: COMPATIBILITY_LEVEL };
}
