/**
 * RaceCard v2 (the catalogue's new inputs: isHandicap, pattern; runner sex, headgear, jockeyClaimLbs,
 * owner, dam, dam sire) against the previous RaceCard (test/fixtures/schemas/RaceCard.v1.avsc, the
 * schema as it was before): the project's registry accepts v2 after v1 under BACKWARD, and a card
 * written with v1 reads with v2, every new field taking its default.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RaceCard } from '../../domain/avro-types.generated.js';
import { silentLogger } from '../../domain/logger.js';
import { validateCard } from '../../domain/validate.js';
import { createEmbeddedLog } from '../../streams/adapters/embedded-log.js';
import type { LogPort } from '../../streams/log-port.js';
import { valueSubject } from '../../streams/registry-port.js';
import {
  backwardProblem,
  buildRegistryServer,
  createLogSchemaStore,
  parseAvroSchema,
  REGISTRY_CONTENT_TYPE,
  type SchemaStore,
  schemaStoreRegistry,
} from '../../streams/registry-server/index.js';
import { AvroSerde, loadSchemaText } from '../../streams/serde.js';
import { card } from '../support/builders.js';
import { memoryStore } from '../support/memory-store.js';

const v1 = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'schemas', 'RaceCard.v1.avsc'), 'utf8');
const v2 = loadSchemaText('RaceCard');
const topic = 'racing.cards.v1';
const subject = valueSubject(topic);

const NEW_CARD_FIELDS = { isHandicap: false, pattern: '' };
const NEW_RUNNER_FIELDS = {
  sex: '',
  headgear: '',
  jockeyClaimLbs: 0,
  ownerId: '',
  ownerName: '',
  damId: '',
  damName: '',
  damSireId: '',
  damSireName: '',
};

/** A card as a v1 writer holds it: without the v2 fields. */
function v1Card(): Record<string, unknown> {
  const c = card({
    r: 'EVOLVE',
    off: '2024-05-01T14:00:00Z',
    runners: [
      { h: 'Dancing Brave', draw: 2, or: 88 },
      { h: 'Shergar', s: null },
    ],
  });
  const { isHandicap: _h, pattern: _p, runners, ...rest } = c;
  return {
    ...rest,
    runners: runners.map((r) => {
      const copy: Record<string, unknown> = { ...r };
      for (const k of Object.keys(NEW_RUNNER_FIELDS)) delete copy[k];
      return copy;
    }),
  };
}

describe('RaceCard v2 in the registry (BACKWARD)', () => {
  let log: LogPort;
  let store: SchemaStore;

  beforeEach(async () => {
    log = createEmbeddedLog(memoryStore());
    store = await createLogSchemaStore(log);
  });
  afterEach(async () => {
    await store.close();
    await log.close();
  });

  it('the fixture is the previous schema: v2 adds fields only, each with a default', () => {
    const fields = (s: string) => JSON.parse(s) as { fields: { name: string; type: unknown; default?: unknown }[] };
    const runnerFields = (s: string) =>
      (fields(s).fields.find((f) => f.name === 'runners')!.type as { items: { fields: { name: string }[] } }).items
        .fields;
    const oldNames = fields(v1).fields.map((f) => f.name);
    const added = fields(v2).fields.filter((f) => !oldNames.includes(f.name));
    expect(added.map((f) => [f.name, f.default])).toEqual(Object.entries(NEW_CARD_FIELDS));
    const oldRunner = runnerFields(v1).map((f) => f.name);
    const addedRunner = (runnerFields(v2) as { name: string; default?: unknown; doc?: string }[]).filter(
      (f) => !oldRunner.includes(f.name),
    );
    expect(addedRunner.map((f) => [f.name, f.default])).toEqual(Object.entries(NEW_RUNNER_FIELDS));
    for (const f of [...added, ...addedRunner] as { doc?: string }[]) expect(f.doc).toBeTruthy();
  });

  it("the registry's compatibility check accepts v2 after v1 and registers it as version 2", async () => {
    expect(backwardProblem(parseAvroSchema(v2), parseAvroSchema(v1))).toBeUndefined();
    const registry = schemaStoreRegistry(store);
    const id1 = await registry.register(subject, v1);
    const id2 = await registry.register(subject, v2);
    expect(id2).not.toBe(id1);
    expect(await registry.versions(subject)).toEqual([1, 2]);
    expect(await registry.latest(subject)).toMatchObject({ id: id2, version: 2 });
  });

  it('answers is_compatible over REST, and refuses a v2 that dropped a default (the check is real)', async () => {
    const app = buildRegistryServer({ store, logger: silentLogger() });
    try {
      const post = (url: string, schema: string) =>
        app.inject({
          method: 'POST',
          url,
          payload: JSON.stringify({ schema }),
          headers: { 'content-type': REGISTRY_CONTENT_TYPE },
        });
      expect((await post(`/subjects/${subject}/versions`, v1)).json()).toHaveProperty('id');
      const compat = await post(`/compatibility/subjects/${subject}/versions/latest?verbose=true`, v2);
      expect(compat.json()).toMatchObject({ is_compatible: true });
      const noDefault = v2.replace(/"default": 0,\s*/, '');
      expect(noDefault).not.toBe(v2);
      const refused = await post(`/subjects/${subject}/versions`, noDefault);
      expect(refused.statusCode).toBe(409);
      expect((refused.json() as { message: string }).message).toMatch(/jockeyClaimLbs/);
      expect((await post(`/subjects/${subject}/versions`, v2)).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('a card encoded with v1 decodes with the v2 reader, the new fields at their defaults', async () => {
    const registry = schemaStoreRegistry(store);
    const writer = await new AvroSerde(registry).codec<Record<string, unknown>>(topic, v1);
    const old = v1Card();
    const buf = writer.encode(old);

    const reader = new AvroSerde(registry);
    await reader.codec<RaceCard>(topic, v2);
    const decoded = await reader.decode<RaceCard>(topic, buf);
    expect(decoded).toEqual({
      ...old,
      ...NEW_CARD_FIELDS,
      runners: (old.runners as object[]).map((r) => ({ ...r, ...NEW_RUNNER_FIELDS })),
    });
    expect(validateCard(decoded)).toEqual([]);
  });
});
