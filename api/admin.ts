/**
 * Operator routes under /admin/v1, registered only when the app is given admin deps. Authenticated by
 * the X-Admin-Token header (constant-time comparison). The CLI calls these against a running service:
 *
 *   POST   /admin/v1/keys {"name": "..."}  -> 201 {id, key, name, createdAt}  (the key is shown only here)
 *   GET    /admin/v1/keys                  -> 200 {keys: [{id, name, createdAt, revokedAt}]}
 *   DELETE /admin/v1/keys/:id              -> 204 (404 when no key has that id; revoking twice is fine)
 *   GET    /admin/v1/export/analytics      -> 200 application/x-ndjson, one canonical JSON row per line
 *   POST   /admin/v1/publish/:kind?file=NAME[&check=true]  (kind card | result | course; the body is the
 *                                          file's bytes, application/octet-stream) -> 200 PublishReport
 *   POST   /admin/v1/import/results-csv {files: [absolute paths], officialRating?, fixMorningOffs?,
 *                                          extendedFlatRaces?} -> 200 the import's figures and report
 *
 * The publish and import routes exist when the service gives `input` (it applies them with its own log,
 * registry and, for imports, the import ledger in its store): `racing publish` and `racing import`
 * call them while the service holds the data dir.
 */
import { Readable } from 'node:stream';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { RacingError } from '../domain/errors.js';
import { adminTokenHook } from './auth.js';
import { canonicalJson } from './canonical-json.js';
import { invalidParam } from './errors.js';
import { isKeyId, type KeyStore } from '../state/credentials/key-store.js';
import type { ReadModel } from '../state/read-model-port.js';
import { AnalyticsRowSchema, CreatedKeySchema, KeyListResponse } from './schemas.js';

export interface AdminDeps {
  /** The operator token expected in X-Admin-Token; at least 16 characters. */
  token: string;
}

export const ADMIN_PREFIX = '/admin/v1';

export const PUBLISH_KINDS = ['card', 'result', 'course'] as const;
export type PublishKind = (typeof PUBLISH_KINDS)[number];

/** What `racing publish` did with each value of a file. */
export const PublishItemSchema = Type.Object(
  {
    /** 0-based position in the file (0 for a file holding one object) */
    index: Type.Integer(),
    /** raceId (card, result) or courseId (course), when the value has one */
    id: Type.Union([Type.Null(), Type.String()]),
    /** published: in the input topic; rejected: not applied (see deadLetter); valid: checked only (--check) */
    status: Type.Union([Type.Literal('published'), Type.Literal('rejected'), Type.Literal('valid')]),
    /** dead-letter code of a rejected value: validation_failed, bad_wire_format (not JSON) or schema_incompatible */
    code: Type.Union([Type.Null(), Type.String()]),
    reason: Type.Union([Type.Null(), Type.String()]),
    /**
     * processor: the value matched the Avro schema but failed validation; it was published and the
     * processor dead-letters it (as any producer's). written: it could not be encoded; its bytes were
     * written to the dead-letter topic directly. null: not rejected, or --check.
     */
    deadLetter: Type.Union([Type.Null(), Type.Literal('processor'), Type.Literal('written')]),
  },
  { additionalProperties: false },
);

export const PublishReportSchema = Type.Object(
  {
    kind: Type.Union(PUBLISH_KINDS.map((k) => Type.Literal(k))),
    file: Type.String(),
    topic: Type.String(),
    checkOnly: Type.Boolean(),
    published: Type.Integer(),
    rejected: Type.Integer(),
    items: Type.Array(PublishItemSchema),
  },
  { additionalProperties: false },
);
export type PublishReport = Static<typeof PublishReportSchema>;

export interface ImportRequest {
  /** absolute paths on the service's machine (the CLI resolves them) */
  files: string[];
  officialRating?: 'result' | 'card-when-present';
  fixMorningOffs?: boolean;
  extendedFlatRaces?: boolean;
}

/** What the service does for `racing publish` and `racing import` while it holds the data dir. */
export interface AdminInputDeps {
  publish(kind: PublishKind, body: Buffer, options: { file: string; check: boolean }): Promise<PublishReport>;
  importResultsCsv(request: ImportRequest): Promise<unknown>;
}

/** The largest file `racing publish` sends through the admin endpoint. */
export const PUBLISH_BODY_LIMIT = 64 * 1024 * 1024;
export const MIN_ADMIN_TOKEN_LENGTH = 16;

/** Rows are sent in chunks of about this size rather than one socket write per ~1 KB row. */
const EXPORT_CHUNK_BYTES = 64 * 1024;

/** Every current analytics row as NDJSON: canonical JSON, one row per line, in raceId then horseId order. */
export function analyticsNdjson(readModel: ReadModel): Readable {
  return Readable.from(
    (async function* () {
      // One chunk per row made every reader pay per row: a fetch() reader whose sink applied
      // backpressure (a file) fell to a few hundred rows/s; 64 KiB chunks keep every reader at disk speed.
      let pending: string[] = [];
      let size = 0;
      for await (const row of readModel.allAnalytics()) {
        const line = canonicalJson(row) + '\n';
        pending.push(line);
        size += line.length;
        if (size >= EXPORT_CHUNK_BYTES) {
          yield pending.join('');
          pending = [];
          size = 0;
        }
      }
      if (pending.length > 0) yield pending.join('');
    })(),
    { objectMode: false },
  );
}

export function adminRoutes(deps: { admin: AdminDeps; keys: KeyStore; readModel: ReadModel; input?: AdminInputDeps }) {
  const { admin, keys, readModel, input } = deps;
  if (admin.token.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new RacingError('config_invalid', `the admin token must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters`);
  }
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('onRequest', adminTokenHook(admin.token));

    app.post<{ Body: { name: string } }>(
      '/keys',
      {
        config: { access: 'admin' },
        schema: {
          summary: 'Create an API key (the key is in this response only)',
          tags: ['admin'],
          body: Type.Object(
            { name: Type.String({ minLength: 1, maxLength: 200, description: 'who or what the key is for' }) },
            { additionalProperties: false },
          ),
          response: { 201: CreatedKeySchema },
        },
      },
      async (request, reply) => {
        const created = await keys.create(request.body.name);
        request.log.info({ keyId: created.id }, 'api key created');
        return reply.code(201).send(created);
      },
    );

    app.get(
      '/keys',
      {
        config: { access: 'admin' },
        schema: {
          summary: 'List API keys (never the keys themselves)',
          tags: ['admin'],
          response: { 200: KeyListResponse },
        },
      },
      async () => ({ keys: await keys.list() }),
    );

    app.delete<{ Params: { id: string } }>(
      '/keys/:id',
      {
        config: { access: 'admin' },
        schema: {
          summary: 'Revoke an API key, effective at once',
          tags: ['admin'],
          params: Type.Object({ id: Type.String({ description: 'key_ followed by 20 hex digits', maxLength: 100 }) }),
          response: { 204: Type.Null({ description: 'revoked' }) },
        },
      },
      async (request, reply) => {
        const { id } = request.params;
        if (!isKeyId(id)) throw invalidParam('path', 'id', 'must be a key id: key_ followed by 20 hex digits');
        const revoked = await keys.revoke(id);
        if (!revoked) throw new RacingError('not_found', `no key ${id}`);
        request.log.info({ keyId: id }, 'api key revoked');
        return reply.code(204).send();
      },
    );

    app.get(
      '/export/analytics',
      {
        config: { access: 'admin', produces: 'application/x-ndjson', lineSchema: AnalyticsRowSchema },
        schema: {
          summary: 'Every current analytics row as NDJSON (canonical JSON, one row per line)',
          description: 'Ordered by raceId, then horseId. Streamed; no ETag.',
          tags: ['admin'],
        },
      },
      async (_request, reply) => reply.type('application/x-ndjson; charset=utf-8').send(analyticsNdjson(readModel)),
    );

    if (input) inputRoutes(app, input);
  };
}

function inputRoutes(app: FastifyInstance, input: AdminInputDeps): void {
  // The file's bytes as they are: a value that is not even JSON still goes to the dead-letter topic.
  app.addContentTypeParser(
    'application/octet-stream',
    { parseAs: 'buffer', bodyLimit: PUBLISH_BODY_LIMIT },
    (_request, body, done) => done(null, body),
  );

  app.post<{ Params: { kind: PublishKind }; Querystring: { file?: string; check?: boolean }; Body: unknown }>(
    '/publish/:kind',
    {
      bodyLimit: PUBLISH_BODY_LIMIT,
      config: { access: 'admin' },
      schema: {
        summary: 'Publish cards, results or courses given as JSON of their Avro schema (racing publish)',
        tags: ['admin'],
        params: Type.Object({ kind: Type.Union(PUBLISH_KINDS.map((k) => Type.Literal(k))) }),
        querystring: Type.Object(
          {
            file: Type.Optional(Type.String({ maxLength: 1000, description: 'the file name, for reports' })),
            check: Type.Optional(Type.Boolean({ description: 'validate only: publish nothing' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: PublishReportSchema },
      },
    },
    async (request) => {
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.from(JSON.stringify(request.body ?? null));
      const report = await input.publish(request.params.kind, body, {
        file: request.query.file ?? 'request body',
        check: request.query.check ?? false,
      });
      request.log.info(
        { kind: report.kind, file: report.file, published: report.published, rejected: report.rejected },
        'published through the admin endpoint',
      );
      return report;
    },
  );

  app.post<{ Body: ImportRequest }>(
    '/import/results-csv',
    {
      config: { access: 'admin' },
      schema: {
        summary: 'Import results files into the input topics (racing import results-csv), with the import ledger',
        tags: ['admin'],
        body: Type.Object(
          {
            files: Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), { minItems: 1, maxItems: 10_000 }),
            officialRating: Type.Optional(Type.Union([Type.Literal('result'), Type.Literal('card-when-present')])),
            fixMorningOffs: Type.Optional(Type.Boolean()),
            extendedFlatRaces: Type.Optional(Type.Boolean()),
          },
          { additionalProperties: false },
        ),
      },
    },
    async (request) => input.importResultsCsv(request.body),
  );
}
