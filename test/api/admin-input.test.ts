/**
 * The admin endpoint's input routes (racing publish, racing import): behind the admin token like the
 * other operator routes, the file's bytes passed through untouched, the kind checked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { type AdminInputDeps, type ImportRequest, type PublishKind } from '../../api/admin.js';
import { buildAdminApp } from '../../api/admin-app.js';
import { silentLogger } from '../../domain/logger.js';
import { AccountStore } from '../../state/credentials/account-store.js';
import { KeyStore } from '../../state/credentials/key-store.js';
import { sampleReadModel } from '../support/fake-read-model.js';
import { memoryStore } from '../support/memory-store.js';

const TOKEN = 'admin-token-for-input-tests-0123';
const calls: { kind: PublishKind; body: string; file: string; check: boolean }[] = [];
const imports: ImportRequest[] = [];
const input: AdminInputDeps = {
  publish: async (kind, body, { file, check }) => {
    calls.push({ kind, body: body.toString('utf8'), file, check });
    return { kind, file, topic: `racing.${kind}s.v1`, checkOnly: check, published: 1, rejected: 0, items: [] };
  },
  importResultsCsv: async (request) => {
    imports.push(request);
    return { report: { files: request.files.length } };
  },
};

let app: FastifyInstance;
beforeAll(async () => {
  app = buildAdminApp({
    token: TOKEN,
    keys: new KeyStore(memoryStore()),
    accounts: new AccountStore(memoryStore()),
    readModel: sampleReadModel(),
    logger: silentLogger(),
    input,
  });
  await app.ready();
});
afterAll(async () => {
  await app.close();
});

describe('admin input routes', () => {
  it('need the admin token', async () => {
    for (const [url, payload, type] of [
      ['/admin/v1/publish/card', 'x', 'application/octet-stream'],
      ['/admin/v1/import/results-csv', '{"files":["/a.csv"]}', 'application/json'],
    ] as const) {
      const res = await app.inject({ method: 'POST', url, payload, headers: { 'content-type': type } });
      expect(res.statusCode).toBe(401);
    }
    expect(calls).toEqual([]);
    expect(imports).toEqual([]);
  });

  it('pass the file bytes through as they are, even when they are not JSON', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/admin/v1/publish/result?file=r.json&check=true',
      payload: Buffer.from('{"not json'),
      headers: { 'x-admin-token': TOKEN, 'content-type': 'application/octet-stream' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ kind: 'result', file: 'r.json', checkOnly: true });
    expect(calls.at(-1)).toEqual({ kind: 'result', body: '{"not json', file: 'r.json', check: true });
  });

  it('refuse an unknown kind and a bad import request', async () => {
    const kind = await app.inject({
      method: 'POST',
      url: '/admin/v1/publish/horse',
      payload: Buffer.from('{}'),
      headers: { 'x-admin-token': TOKEN, 'content-type': 'application/octet-stream' },
    });
    expect(kind.statusCode).toBe(400);
    const bad = await app.inject({
      method: 'POST',
      url: '/admin/v1/import/results-csv',
      payload: { files: [] },
      headers: { 'x-admin-token': TOKEN },
    });
    expect(bad.statusCode).toBe(400);
    const ok = await app.inject({
      method: 'POST',
      url: '/admin/v1/import/results-csv',
      payload: { files: ['/data/Results_2024_01.csv'], fixMorningOffs: true },
      headers: { 'x-admin-token': TOKEN },
    });
    expect(ok.statusCode).toBe(200);
    expect(imports).toEqual([{ files: ['/data/Results_2024_01.csv'], fixMorningOffs: true }]);
  });
});
