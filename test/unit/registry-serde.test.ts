import { describe, expect, it } from 'vitest';
import type { RaceResult } from '../../domain/avro-types.generated.js';
import { createEmbeddedRegistry } from '../../streams/adapters/embedded-registry.js';
import { AvroSerde, loadSchemaText } from '../../streams/serde.js';
import { result } from '../support/builders.js';
import { memoryStore } from '../support/memory-store.js';

const v1 = JSON.stringify({ type: 'record', name: 'T', fields: [{ name: 'a', type: 'int' }] });
const v2ok = JSON.stringify({
  type: 'record',
  name: 'T',
  fields: [
    { name: 'a', type: 'int' },
    { name: 'b', type: 'string', default: 'x' },
  ],
});
const v2bad = JSON.stringify({
  type: 'record',
  name: 'T',
  fields: [
    { name: 'a', type: 'int' },
    { name: 'c', type: 'string' },
  ],
});

describe('embedded schema registry', () => {
  it('assigns ids and versions, reuses the id of an identical schema', async () => {
    const reg = createEmbeddedRegistry(memoryStore());
    const id1 = await reg.register('t-value', v1);
    expect(await reg.register('t-value', v1)).toBe(id1);
    const id2 = await reg.register('t-value', v2ok);
    expect(id2).toBe(id1 + 1);
    expect(await reg.versions('t-value')).toEqual([1, 2]);
    expect((await reg.latest('t-value'))?.id).toBe(id2);
    expect(await reg.register('other-value', v1)).toBe(id1);
    expect(await reg.subjects()).toEqual(['other-value', 't-value']);
  });

  it('refuses a change that breaks BACKWARD compatibility with a clear error', async () => {
    const reg = createEmbeddedRegistry(memoryStore());
    await reg.register('t-value', v1);
    await expect(reg.register('t-value', v2bad)).rejects.toMatchObject({ code: 'schema_incompatible' });
    await expect(reg.schemaById(99)).rejects.toMatchObject({ code: 'schema_not_found' });
  });
});

describe('Confluent wire format serde', () => {
  it('frames values as magic byte 0 + 4-byte id + Avro body and round-trips them', async () => {
    const serde = new AvroSerde(createEmbeddedRegistry(memoryStore()));
    const codec = await serde.codec<RaceResult>('racing.results.v1', loadSchemaText('RaceResult'));
    const value = result({ r: 'X', pub: '2024-01-01T12:00:00Z', runners: [{ h: 'A', pos: 1, sp: 2.5, fav: true }] });
    const buf = codec.encode(value);
    expect(buf[0]).toBe(0);
    expect(buf.readUInt32BE(1)).toBe(codec.schemaId);
    expect(await serde.decode('racing.results.v1', buf)).toEqual(value);
  });

  it('rejects bytes that are not framed Avro and unknown schema ids', async () => {
    const serde = new AvroSerde(createEmbeddedRegistry(memoryStore()));
    await serde.codec('t', v1);
    await expect(serde.decode('t', Buffer.from('{"json":true}'))).rejects.toMatchObject({ code: 'bad_wire_format' });
    const unknown = Buffer.from([0, 0, 0, 0, 42, 2]);
    await expect(serde.decode('t', unknown)).rejects.toMatchObject({ code: 'schema_not_found' });
  });

  it('reads a value written with an older schema through the current reader schema', async () => {
    const store = memoryStore();
    const reg = createEmbeddedRegistry(store);
    const old = await new AvroSerde(reg).codec<{ a: number }>('t', v1);
    const buf = old.encode({ a: 7 });
    const serde = new AvroSerde(reg);
    await serde.codec('t', v2ok);
    expect(await serde.decode('t', buf)).toEqual({ a: 7, b: 'x' });
  });
});
