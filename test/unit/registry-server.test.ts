import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { silentLogger } from '../../domain/logger.js';
import { canonicalSchema } from '../../streams/adapters/embedded-registry.js';
import { createEmbeddedLog } from '../../streams/adapters/embedded-log.js';
import type { LogPort, TopicSpec } from '../../streams/log-port.js';
import {
  buildRegistryServer,
  createLogSchemaStore,
  REGISTRY_CONTENT_TYPE,
  type SchemaStore,
} from '../../streams/registry-server/index.js';
import { memoryStore } from '../support/memory-store.js';

const record = (fields: readonly object[]) => JSON.stringify({ type: 'record', name: 'Ride', fields });
const v1 = record([{ name: 'horseId', type: 'string' }]);
const v2 = record([
  { name: 'horseId', type: 'string' },
  { name: 'draw', type: 'int', default: 0 },
]);
const noDefault = record([
  { name: 'horseId', type: 'string' },
  { name: 'jockeyClaimLbs', type: 'int' },
]);

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

describe('registry server REST API', () => {
  let log: LogPort;
  let store: SchemaStore;
  let app: FastifyInstance;

  beforeEach(async () => {
    log = createEmbeddedLog(memoryStore());
    store = await createLogSchemaStore(log);
    app = buildRegistryServer({ store, logger: silentLogger() });
  });
  afterEach(async () => {
    await app.close();
    await store.close();
    await log.close();
  });

  const call = (method: Method, url: string, body?: unknown, contentType = REGISTRY_CONTENT_TYPE) =>
    app.inject({
      method,
      url,
      ...(body === undefined
        ? {}
        : {
            payload: typeof body === 'string' ? body : JSON.stringify(body),
            headers: { 'content-type': contentType },
          }),
    });
  const register = (subject: string, schema: string) => call('POST', `/subjects/${subject}/versions`, { schema });
  const expectError = (res: LightMyRequestResponse, status: number, errorCode: number, message?: RegExp) => {
    expect(res.statusCode).toBe(status);
    expect(res.headers['content-type']).toBe(REGISTRY_CONTENT_TYPE);
    const body = res.json() as { error_code: number; message: string };
    expect(body.error_code).toBe(errorCode);
    expect(typeof body.message).toBe('string');
    if (message) expect(body.message).toMatch(message);
  };

  it('answers {} at the root, the way clients health-check a Confluent registry', async () => {
    const res = await call('GET', '/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe(REGISTRY_CONTENT_TYPE);
    expect(res.json()).toEqual({});
    expect((await call('GET', '/schemas/types')).json()).toEqual(['AVRO']);
  });

  it('registers with either content type and answers {id}; an identical schema keeps its id and version', async () => {
    const first = await register('rides-value', v1);
    expect(first.statusCode).toBe(200);
    expect(first.headers['content-type']).toBe(REGISTRY_CONTENT_TYPE);
    expect(first.json()).toEqual({ id: 1 });
    const again = await call('POST', '/subjects/rides-value/versions', { schema: v1 }, 'application/json');
    expect(again.json()).toEqual({ id: 1 });
    const explicit = await call('POST', '/subjects/rides-value/versions', { schema: v2, schemaType: 'AVRO' });
    expect(explicit.json()).toEqual({ id: 2 });
    expect((await call('GET', '/subjects/rides-value/versions')).json()).toEqual([1, 2]);
    // The same schema under another subject shares its id.
    expect((await register('copy-value', v1)).json()).toEqual({ id: 1 });
    const vnd = await call('POST', '/subjects/x-value/versions', { schema: v1 }, 'application/vnd.schemaregistry+json');
    expect(vnd.json()).toEqual({ id: 1 });
  });

  it('serves subjects, versions, a version, latest and the raw schema', async () => {
    await register('b-value', v1);
    await register('b-value', v2);
    await register('a-value', v1);
    expect((await call('GET', '/subjects')).json()).toEqual(['a-value', 'b-value']);
    const one = await call('GET', '/subjects/b-value/versions/1');
    expect(one.json()).toEqual({ subject: 'b-value', id: 1, version: 1, schema: canonicalSchema(v1) });
    const latest = (await call('GET', '/subjects/b-value/versions/latest')).json();
    expect(latest).toEqual({ subject: 'b-value', id: 2, version: 2, schema: canonicalSchema(v2) });
    expect((await call('GET', '/subjects/b-value/versions/-1')).json()).toEqual(latest);
    const raw = await call('GET', '/subjects/b-value/versions/2/schema');
    expect(raw.statusCode).toBe(200);
    expect(raw.headers['content-type']).toBe(REGISTRY_CONTENT_TYPE);
    expect(raw.body).toBe(canonicalSchema(v2));
    expect((await call('GET', '/schemas/ids/2')).json()).toEqual({ schema: canonicalSchema(v2) });
    expect((await call('GET', '/schemas/ids/1/versions')).json()).toEqual([
      { subject: 'a-value', version: 1 },
      { subject: 'b-value', version: 1 },
    ]);
  });

  it('answers 40401, 40402, 40403 and 42202 like Confluent', async () => {
    await register('rides-value', v1);
    expectError(await call('GET', '/subjects/nope-value/versions'), 404, 40401, /Subject 'nope-value' not found/);
    expectError(await call('GET', '/subjects/nope-value/versions/1'), 404, 40401);
    expectError(await call('GET', '/subjects/rides-value/versions/7'), 404, 40402, /Version 7 not found/);
    expectError(await call('GET', '/subjects/rides-value/versions/7/schema'), 404, 40402);
    expectError(await call('GET', '/schemas/ids/99'), 404, 40403, /Schema 99 not found/);
    expectError(await call('GET', '/schemas/ids/99/versions'), 404, 40403);
    expectError(await call('GET', '/schemas/ids/abc'), 404, 40403);
    // Version syntax is checked before the subject, as Confluent does.
    expectError(await call('GET', '/subjects/nope-value/versions/0'), 422, 42202, /'0' is not a valid version/);
    expectError(await call('GET', '/subjects/rides-value/versions/first'), 422, 42202);
  });

  it('refuses a BACKWARD-incompatible schema with 409 / error_code 409 and a message naming the field', async () => {
    await register('rides-value', v1);
    const res = await register('rides-value', noDefault);
    expectError(res, 409, 409, /incompatible with an earlier schema for subject "rides-value"/);
    expect(res.json().message).toMatch(/version 1 \(id 1\).*jockeyClaimLbs/);
    expect((await call('GET', '/subjects/rides-value/versions')).json()).toEqual([1]);
  });

  it('refuses invalid schemas and unsupported schema types with 42201', async () => {
    expectError(await register('rides-value', '{"type": "record", "name": "R"}'), 422, 42201, /invalid Avro schema/);
    expectError(await register('rides-value', 'not json'), 422, 42201);
    expectError(
      await call('POST', '/subjects/rides-value/versions', { schema: v1, schemaType: 'PROTOBUF' }),
      422,
      42201,
      /PROTOBUF/,
    );
    expectError(
      await call('POST', '/subjects/rides-value/versions', { schemaType: 'AVRO' }),
      422,
      42201,
      /empty schema/,
    );
    expectError(
      await call('POST', '/subjects/rides-value/versions', {
        schema: v1,
        references: [{ name: 'x', subject: 'y', version: 1 }],
      }),
      422,
      42201,
      /references/,
    );
    expect((await call('GET', '/subjects')).json()).toEqual([]);
  });

  it('answers malformed JSON with 400, other media types with 415, unknown routes with 404', async () => {
    const bad = await call('POST', '/subjects/rides-value/versions', '{"schema": ');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error_code: 400 });
    const text = await call('POST', '/subjects/rides-value/versions', 'schema', 'text/plain');
    expectError(text, 415, 415);
    expectError(await call('GET', '/nowhere'), 404, 404, /GET \/nowhere/);
  });

  it('looks a schema up under a subject: its version, else 40403 (schema) or 40401 (subject)', async () => {
    await register('rides-value', v1);
    await register('rides-value', v2);
    const found = await call('POST', '/subjects/rides-value', { schema: JSON.stringify(JSON.parse(v1), null, 2) });
    expect(found.statusCode).toBe(200);
    expect(found.json()).toEqual({ subject: 'rides-value', id: 1, version: 1, schema: canonicalSchema(v1) });
    expectError(await call('POST', '/subjects/rides-value', { schema: noDefault }), 404, 40403);
    expectError(await call('POST', '/subjects/nope-value', { schema: v1 }), 404, 40401);
    expectError(await call('POST', '/subjects/rides-value', { schema: '{' }), 422, 42201);
  });

  it('tests compatibility against a version or the latest, with messages when verbose', async () => {
    await register('rides-value', v1);
    const url = '/compatibility/subjects/rides-value/versions';
    expect((await call('POST', `${url}/latest`, { schema: v2 })).json()).toEqual({ is_compatible: true });
    expect((await call('POST', `${url}/1`, { schema: noDefault })).json()).toEqual({ is_compatible: false });
    const verbose = (await call('POST', `${url}/latest?verbose=true`, { schema: noDefault })).json();
    expect(verbose.is_compatible).toBe(false);
    expect(verbose.messages[0]).toMatch(/jockeyClaimLbs/);
    expect((await call('POST', url, { schema: noDefault })).json()).toEqual({ is_compatible: false });
    expect((await call('POST', '/compatibility/subjects/new-value/versions', { schema: v1 })).json()).toEqual({
      is_compatible: true,
    });
    expectError(await call('POST', `${url}/5`, { schema: v2 }), 404, 40402);
    expectError(await call('POST', '/compatibility/subjects/nope-value/versions/latest', { schema: v2 }), 404, 40401);
    // Nothing was registered by the checks.
    expect((await call('GET', '/subjects/rides-value/versions')).json()).toEqual([1]);
  });

  it('reports BACKWARD as the global and subject level and accepts only BACKWARD in PUT /config', async () => {
    expect((await call('GET', '/config')).json()).toEqual({ compatibilityLevel: 'BACKWARD' });
    expect((await call('GET', '/config/rides-value')).json()).toEqual({ compatibilityLevel: 'BACKWARD' });
    const put = await call('PUT', '/config', { compatibility: 'BACKWARD' });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toEqual({ compatibility: 'BACKWARD' });
    expect((await call('PUT', '/config/rides-value', { compatibility: 'backward' })).json()).toEqual({
      compatibility: 'BACKWARD',
    });
    expectError(await call('PUT', '/config', { compatibility: 'FULL' }), 422, 42203, /"FULL".*BACKWARD/);
    expectError(await call('PUT', '/config/rides-value', { compatibility: 'NONE' }), 422, 42203);
    expectError(await call('PUT', '/config', {}), 422, 42203);
    expect((await call('GET', '/config')).json()).toEqual({ compatibilityLevel: 'BACKWARD' });
  });

  it('refuses DELETE with 405 and a clear message', async () => {
    await register('rides-value', v1);
    for (const url of ['/subjects/rides-value', '/subjects/rides-value/versions/1', '/config', '/config/rides-value']) {
      const res = await call('DELETE', url);
      expectError(res, 405, 405, /never deletes schemas/);
      expect(res.headers['allow']).toBeDefined();
    }
    expect((await call('GET', '/subjects/rides-value/versions')).json()).toEqual([1]);
  });
});

describe('the _schemas topic', () => {
  /** Records the specs the store asks the log to create. */
  function spied(log: LogPort, specs: TopicSpec[]): LogPort {
    return new Proxy(log, {
      get(target, prop, receiver) {
        if (prop === 'ensureTopics') {
          return (s: readonly TopicSpec[]) => {
            specs.push(...s);
            return target.ensureTopics(s);
          };
        }
        const v = Reflect.get(target, prop, receiver);
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
  }

  it('is created compacted with one partition and holds one record per registration', async () => {
    const specs: TopicSpec[] = [];
    const log = createEmbeddedLog(memoryStore());
    const store = await createLogSchemaStore(spied(log, specs));
    expect(specs).toEqual([
      { name: '_schemas', partitions: 1, compacted: true, config: { 'cleanup.policy': 'compact' } },
    ]);
    expect(await store.register('rides-value', v1)).toEqual({ id: 1, version: 1, created: true });
    expect(await store.register('rides-value', v2)).toEqual({ id: 2, version: 2, created: true });
    expect(await store.register('rides-value', v1)).toEqual({ id: 1, version: 1, created: false });
    expect(await store.register('copy-value', v2)).toEqual({ id: 2, version: 1, created: true });
    await expect(store.register('rides-value', noDefault)).rejects.toMatchObject({ code: 'schema_incompatible' });
    await log.compact('_schemas');
    const records = await log.read('_schemas', 0, 0, 100);
    expect(records.map((r) => [JSON.parse(r.key), JSON.parse(r.value!.toString())])).toEqual([
      [
        { subject: 'rides-value', version: 1 },
        { subject: 'rides-value', version: 1, id: 1, schema: canonicalSchema(v1), schemaType: 'AVRO' },
      ],
      [
        { subject: 'rides-value', version: 2 },
        { subject: 'rides-value', version: 2, id: 2, schema: canonicalSchema(v2), schemaType: 'AVRO' },
      ],
      [
        { subject: 'copy-value', version: 1 },
        { subject: 'copy-value', version: 1, id: 2, schema: canonicalSchema(v2), schemaType: 'AVRO' },
      ],
    ]);
    await store.close();
    await log.close();
  });

  it('rebuilds the same subjects, versions and ids when a server restarts over the same log', async () => {
    const log = createEmbeddedLog(memoryStore());
    const before = await createLogSchemaStore(log);
    const app = buildRegistryServer({ store: before, logger: silentLogger() });
    for (const [subject, schema] of [
      ['rides-value', v1],
      ['rides-value', v2],
      ['copy-value', v1],
    ] as const) {
      await app.inject({ method: 'POST', url: `/subjects/${subject}/versions`, payload: { schema } });
    }
    const snapshot = async (a: FastifyInstance) => ({
      subjects: (await a.inject('/subjects')).json(),
      rides: (await a.inject('/subjects/rides-value/versions/latest')).json(),
      copy: (await a.inject('/subjects/copy-value/versions/1')).json(),
      id2: (await a.inject('/schemas/ids/2')).json(),
    });
    const expected = await snapshot(app);
    await app.close();
    await before.close();

    const after = await createLogSchemaStore(log);
    const restarted = buildRegistryServer({ store: after, logger: silentLogger() });
    expect(await snapshot(restarted)).toEqual(expected);
    expect(expected.subjects).toEqual(['copy-value', 'rides-value']);
    // Ids continue after the replayed ones rather than starting again at 1.
    const v3 = record([
      { name: 'horseId', type: 'string' },
      { name: 'draw', type: 'int', default: 0 },
      { name: 'age', type: 'int', default: 4 },
    ]);
    const res = await restarted.inject({
      method: 'POST',
      url: '/subjects/rides-value/versions',
      payload: { schema: v3 },
    });
    expect(res.json()).toEqual({ id: 3 });
    await restarted.close();
    await after.close();
    await log.close();
  });

  it('skips malformed records while replaying and keeps serving the rest', async () => {
    const log = createEmbeddedLog(memoryStore());
    await log.ensureTopics([{ name: '_schemas', partitions: 1, compacted: true }]);
    const good = { subject: 'rides-value', version: 1, id: 5, schema: v1, schemaType: 'AVRO' };
    await log.produce('_schemas', [
      { key: 'not json', value: Buffer.from('{}') },
      { key: JSON.stringify({ subject: 'rides-value', version: 1 }), value: Buffer.from(JSON.stringify(good)) },
      { key: JSON.stringify({ subject: 'bad-value', version: 1 }), value: Buffer.from('{"subject":"bad-value"}') },
      // Confluent's own _schemas also holds config records; they are not schemas.
      {
        key: JSON.stringify({ keytype: 'CONFIG', subject: null, magic: 0 }),
        value: Buffer.from('{"compatibilityLevel":"BACKWARD"}'),
      },
    ]);
    const store = await createLogSchemaStore(log);
    expect(store.subjects()).toEqual(['rides-value']);
    expect(store.schemaById(5)).toBe(canonicalSchema(v1));
    expect(await store.register('rides-value', v2)).toEqual({ id: 6, version: 2, created: true });
    await store.close();
    await log.close();
  });

  it('refuses an existing schema topic with more than one partition', async () => {
    const log = createEmbeddedLog(memoryStore());
    await log.ensureTopics([{ name: '_schemas', partitions: 3, compacted: true }]);
    await expect(createLogSchemaStore(log)).rejects.toMatchObject({ code: 'config_invalid' });
    await log.close();
  });

  it('applies records another writer appends while it runs', async () => {
    const log = createEmbeddedLog(memoryStore());
    const writer = await createLogSchemaStore(log);
    const reader = await createLogSchemaStore(log);
    await writer.register('rides-value', v1);
    await reader.sync();
    expect(reader.version('rides-value', 'latest')).toMatchObject({ id: 1, version: 1 });
    expect(await reader.register('rides-value', v2)).toEqual({ id: 2, version: 2, created: true });
    await writer.sync();
    expect(writer.versions('rides-value')).toEqual([1, 2]);
    await Promise.all([writer.close(), reader.close()]);
    await log.close();
  });
});
