/**
 * The SchemaRegistryPort contract: the embedded registry and the Confluent client adapter (against the
 * project's registry server, or any Confluent-compatible registry) both run it. Each test gets a fresh
 * registry from the factory. Schema texts are compared in canonical form: a registry may return the
 * text it stored rather than the bytes it was sent.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canonicalSchema } from '../../streams/adapters/embedded-registry.js';
import { type SchemaRegistryPort, valueSubject } from '../../streams/registry-port.js';

/** Creates a registry for one test; `cleanup` closes it and whatever backs it. */
export type RegistryFactory = () => Promise<{ registry: SchemaRegistryPort; cleanup: () => Promise<void> }>;

const record = (fields: readonly object[], name = 'Ride') =>
  JSON.stringify({ type: 'record', name, namespace: 'racing.test', fields });

export const schemas = {
  v1: record([
    { name: 'horseId', type: 'string' },
    { name: 'weightLbs', type: 'int' },
  ]),
  /** v1 plus a field with a default: BACKWARD compatible */
  v2: record([
    { name: 'horseId', type: 'string' },
    { name: 'weightLbs', type: 'int' },
    { name: 'draw', type: ['null', 'int'], default: null },
  ]),
  /** v2 without weightLbs: BACKWARD compatible (the reader ignores the writer's extra field) */
  v3: record([
    { name: 'horseId', type: 'string' },
    { name: 'draw', type: ['null', 'int'], default: null },
  ]),
  /** v1 plus a field without a default: cannot read v1 data */
  missingDefault: record([
    { name: 'horseId', type: 'string' },
    { name: 'weightLbs', type: 'int' },
    { name: 'jockeyClaimLbs', type: 'int' },
  ]),
  /** weightLbs as a string: an int cannot be read as a string */
  changedType: record([
    { name: 'horseId', type: 'string' },
    { name: 'weightLbs', type: 'string' },
  ]),
  other: record([{ name: 'courseId', type: 'string' }], 'Course'),
};

const same = (a: string, b: string) => expect(canonicalSchema(a)).toBe(canonicalSchema(b));

export function describeRegistry(name: string, factory: RegistryFactory): void {
  describe(`SchemaRegistryPort contract: ${name}`, () => {
    let registry: SchemaRegistryPort;
    let cleanup: () => Promise<void>;
    const subject = valueSubject('racing.contract.v1');

    beforeEach(async () => {
      ({ registry, cleanup } = await factory());
    });
    afterEach(async () => {
      await cleanup();
    });

    it('assigns a global id per schema and versions 1, 2, 3 per subject', async () => {
      const id1 = await registry.register(subject, schemas.v1);
      const id2 = await registry.register(subject, schemas.v2);
      const id3 = await registry.register(subject, schemas.v3);
      expect(new Set([id1, id2, id3]).size).toBe(3);
      for (const id of [id1, id2, id3]) expect(Number.isInteger(id) && id > 0).toBe(true);
      expect(await registry.versions(subject)).toEqual([1, 2, 3]);
      const latest = await registry.latest(subject);
      expect(latest).toMatchObject({ id: id3, version: 3 });
      same(latest!.schema, schemas.v3);
      same(await registry.schemaById(id1), schemas.v1);
      same(await registry.schemaById(id2), schemas.v2);
    });

    it('returns the existing id for an identical schema, without a new version', async () => {
      const id = await registry.register(subject, schemas.v1);
      expect(await registry.register(subject, schemas.v1)).toBe(id);
      // Same schema, different text: whitespace and key order do not make a new schema.
      const reformatted = JSON.stringify(JSON.parse(schemas.v1), null, 2);
      expect(await registry.register(subject, reformatted)).toBe(id);
      await registry.register(subject, schemas.v2);
      // An identical earlier version is found too, not only the latest.
      expect(await registry.register(subject, schemas.v1)).toBe(id);
      expect(await registry.versions(subject)).toEqual([1, 2]);
    });

    it('shares the id of an identical schema across subjects, as Confluent does', async () => {
      const id = await registry.register(subject, schemas.v1);
      const elsewhere = valueSubject('racing.contract-copy.v1');
      expect(await registry.register(elsewhere, schemas.v1)).toBe(id);
      expect(await registry.versions(elsewhere)).toEqual([1]);
      expect(await registry.register(valueSubject('racing.contract-other.v1'), schemas.other)).not.toBe(id);
    });

    it('refuses a schema that cannot read the latest version with schema_incompatible naming the problem', async () => {
      const id = await registry.register(subject, schemas.v1);
      const refused = await registry.register(subject, schemas.missingDefault).catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 'schema_incompatible' });
      expect((refused as Error).message).toMatch(/jockeyClaimLbs/);
      await expect(registry.register(subject, schemas.changedType)).rejects.toMatchObject({
        code: 'schema_incompatible',
      });
      expect(await registry.versions(subject)).toEqual([1]);
      expect(await registry.latest(subject)).toMatchObject({ id, version: 1 });
      // The refusal concerns this subject's history only.
      expect(await registry.register(valueSubject('racing.fresh.v1'), schemas.missingDefault)).toBeGreaterThan(0);
    });

    it('checks against the latest version only (BACKWARD, not transitive)', async () => {
      await registry.register(subject, schemas.v1);
      await registry.register(subject, schemas.v2);
      await registry.register(subject, schemas.v3);
      // Re-adds weightLbs without a default: it cannot read v1 data, but it can read v3's, which is what BACKWARD asks.
      const v4 = record([
        { name: 'horseId', type: 'string' },
        { name: 'draw', type: ['null', 'int'], default: null },
        { name: 'weightLbs', type: ['null', 'string'], default: null },
      ]);
      await registry.register(subject, v4);
      expect(await registry.versions(subject)).toEqual([1, 2, 3, 4]);
    });

    it('throws schema_not_found for an unknown id', async () => {
      const id = await registry.register(subject, schemas.v1);
      await expect(registry.schemaById(id + 1000)).rejects.toMatchObject({ code: 'schema_not_found' });
    });

    it('lists subjects in name order and versions ascending; unknown subjects have none', async () => {
      expect(await registry.subjects()).toEqual([]);
      await registry.register('zeta-value', schemas.other);
      await registry.register('alpha-value', schemas.v1);
      await registry.register('alpha-value', schemas.v2);
      await registry.register('mid-value', schemas.v1);
      expect(await registry.subjects()).toEqual(['alpha-value', 'mid-value', 'zeta-value']);
      expect(await registry.versions('alpha-value')).toEqual([1, 2]);
      expect(await registry.versions('unknown-value')).toEqual([]);
      expect(await registry.latest('unknown-value')).toBeUndefined();
    });
  });
}
