import { createServer, type Socket } from 'node:net';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { RaceResult } from '../../domain/avro-types.generated.js';
import { silentLogger } from '../../domain/logger.js';
import { createConfluentRegistry } from '../../streams/adapters/confluent-registry.js';
import { createEmbeddedLog } from '../../streams/adapters/embedded-log.js';
import { createEmbeddedRegistry } from '../../streams/adapters/embedded-registry.js';
import type { LogPort } from '../../streams/log-port.js';
import { valueSubject } from '../../streams/registry-port.js';
import {
  buildRegistryServer,
  createLogSchemaStore,
  schemaStoreRegistry,
  startRegistryServer,
} from '../../streams/registry-server/index.js';
import { AvroSerde, loadSchemaText } from '../../streams/serde.js';
import { result } from '../support/builders.js';
import { memoryStore } from '../support/memory-store.js';
import { waitUntil } from './log-contract.js';
import { describeRegistry, schemas } from './registry-contract.js';

/** A registry server replica over `log`, listening on a free loopback port. */
async function startReplica(log: LogPort) {
  const store = await createLogSchemaStore(log);
  const app = buildRegistryServer({ store, logger: silentLogger() });
  const url = await startRegistryServer(app, { host: '127.0.0.1', port: 0 });
  return {
    url,
    store,
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}

/** A log with one registry server replica on it; `close` stops both. */
async function startServer() {
  const log = createEmbeddedLog(memoryStore());
  const replica = await startReplica(log);
  return {
    ...replica,
    log,
    close: async () => {
      await replica.close();
      await log.close();
    },
  };
}

describeRegistry('embedded registry (memory store)', async () => ({
  registry: createEmbeddedRegistry(memoryStore()),
  cleanup: async () => {},
}));

describeRegistry('log schema store (no HTTP)', async () => {
  const log = createEmbeddedLog(memoryStore());
  const store = await createLogSchemaStore(log);
  return {
    registry: schemaStoreRegistry(store),
    cleanup: async () => {
      await store.close();
      await log.close();
    },
  };
});

describeRegistry('Confluent client adapter against the registry server', async () => {
  const server = await startServer();
  const registry = await createConfluentRegistry({ url: server.url, logger: silentLogger() });
  return { registry, cleanup: server.close };
});

describe('Confluent client adapter', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  const server = async () => {
    const s = await startServer();
    cleanups.push(s.close);
    return s;
  };

  it('refuses to start when nothing listens at the URL, naming the URL', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const refused = await createConfluentRegistry({ url }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'registry_unreachable', retriable: true });
    expect((refused as Error).message).toContain(url);
    expect((refused as Error).message).toContain('ECONNREFUSED');
  });

  it('refuses to start when the URL answers but is not a schema registry', async () => {
    const other = Fastify();
    other.get('/*', async (_req, reply) => reply.type('text/html').send('<html>welcome</html>'));
    const url = await other.listen({ host: '127.0.0.1', port: 0 });
    cleanups.push(() => other.close());
    const refused = await createConfluentRegistry({ url }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'registry_unreachable' });
    expect((refused as Error).message).toContain(url);
    expect((refused as Error).message).toMatch(/not a Confluent-compatible schema registry/);
  });

  it('times out a registry that accepts the connection but never answers', async () => {
    const sockets = new Set<Socket>();
    const silent = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    });
    const address = silent.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const refused = await createConfluentRegistry({ url, timeoutMs: 300 }).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'registry_unreachable' });
    expect((refused as Error).message).toContain(`${url} is unreachable: no answer within 300 ms`);
  });

  it("maps the registry's 409 to schema_incompatible with the registry's own message", async () => {
    const { url } = await server();
    const registry = await createConfluentRegistry({ url });
    await registry.register('racing.x.v1-value', schemas.v1);
    const refused = await registry.register('racing.x.v1-value', schemas.missingDefault).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'schema_incompatible' });
    expect((refused as Error).message).toMatch(/^Schema being registered is incompatible .*"racing\.x\.v1-value"/);
    expect((refused as Error).message).not.toContain('racing-analytics - ');
  });

  it('reports registry_unreachable once the registry goes away', async () => {
    const s = await startServer();
    const registry = await createConfluentRegistry({ url: s.url });
    await s.close();
    await expect(registry.subjects()).rejects.toMatchObject({ code: 'registry_unreachable' });
    await expect(registry.register('racing.x.v1-value', schemas.v1)).rejects.toMatchObject({
      code: 'registry_unreachable',
    });
  });

  it('lets a second server replica on the same log see schemas registered through the first', async () => {
    const first = await server();
    const second = await startReplica(first.log);
    cleanups.push(second.close);
    const viaFirst = await createConfluentRegistry({ url: first.url });
    const viaSecond = await createConfluentRegistry({ url: second.url });

    const subject = valueSubject('racing.replicated.v1');
    const id1 = await viaFirst.register(subject, schemas.v1);
    const id2 = await viaFirst.register(subject, schemas.v2);
    await waitUntil(async () => (await viaSecond.versions(subject)).length === 2, 'the second replica to see v2');
    expect(await viaSecond.subjects()).toEqual([subject]);
    expect(await viaSecond.latest(subject)).toMatchObject({ id: id2, version: 2 });
    expect(JSON.parse(await viaSecond.schemaById(id1))).toEqual(JSON.parse(await viaFirst.schemaById(id1)));
    // The second replica registers on top of what it read: same id for an identical schema, next id otherwise.
    expect(await viaSecond.register(subject, schemas.v2)).toBe(id2);
    const id3 = await viaSecond.register(subject, schemas.v3);
    expect(id3).toBe(id2 + 1);
    await waitUntil(async () => (await viaFirst.versions(subject)).length === 3, 'the first replica to see v3');
  });
});

describe('wire format interop with the official client', () => {
  const topic = 'racing.results.v1';
  const value = result({
    r: 'INTEROP',
    pub: '2024-05-01T15:00:00Z',
    runners: [
      { h: 'Dancing Brave', pos: 1, sp: 2.5, fav: true },
      { h: 'Shergar', pos: 2, sp: 4 },
    ],
  });
  let close: () => Promise<void> = async () => {};
  afterEach(() => close());

  async function setup() {
    const s = await startServer();
    close = s.close;
    const serde = new AvroSerde(await createConfluentRegistry({ url: s.url }));
    const codec = await serde.codec<RaceResult>(topic, loadSchemaText('RaceResult'));
    return { serde, codec, client: new SchemaRegistry({ host: s.url }) };
  }

  it("decodes with the official client's decode() a value our serde encoded", async () => {
    const { codec, client } = await setup();
    const buf = codec.encode(value);
    expect(buf[0]).toBe(0);
    expect(buf.readUInt32BE(1)).toBe(codec.schemaId);
    expect(await client.decode(buf)).toEqual(value);
  });

  it("decodes through our serde a value the official client's encode() wrote", async () => {
    const { serde, codec, client } = await setup();
    const buf = await client.encode(codec.schemaId, value);
    expect(buf.equals(codec.encode(value))).toBe(true);
    expect(await serde.decode<RaceResult>(topic, buf)).toEqual(value);
  });
});

/** A loopback port nothing listens on (bound, then released). */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const address = s.address();
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return typeof address === 'object' && address ? address.port : 0;
}
