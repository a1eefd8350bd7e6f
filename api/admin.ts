/**
 * Operator routes under /admin/v1, registered only when the app is given admin deps. Authenticated by
 * the X-Admin-Token header (constant-time comparison). The CLI calls these against a running service:
 *
 *   POST   /admin/v1/keys {"name": "..."}  -> 201 {id, key, name, createdAt}  (the key is shown only here)
 *   GET    /admin/v1/keys                  -> 200 {keys: [{id, name, createdAt, revokedAt}]}
 *   DELETE /admin/v1/keys/:id              -> 204 (404 when no key has that id; revoking twice is fine)
 *   GET    /admin/v1/export/analytics      -> 200 application/x-ndjson, one canonical JSON row per line
 */
import { Readable } from 'node:stream';
import { Type } from '@sinclair/typebox';
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

export function adminRoutes(deps: { admin: AdminDeps; keys: KeyStore; readModel: ReadModel }) {
  const { admin, keys, readModel } = deps;
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
  };
}
