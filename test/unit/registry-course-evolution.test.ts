/**
 * Course v2 (versions with publishedAt; siblings, operator, shape, lengths, start positions; topology
 * with centreline, turns, profile, provenance and attribution) against the previous Course
 * (test/fixtures/schemas/Course.v1.avsc): the project's registry accepts v2 after v1 under BACKWARD,
 * and a course written with v1 reads with v2, every new field taking its default.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Course } from '../../domain/avro-types.generated.js';
import { courseRecord } from '../../domain/course-records.js';
import { courseByCode } from '../../domain/courses.js';
import { silentLogger } from '../../domain/logger.js';
import { validateCourse } from '../../domain/validate.js';
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
import { memoryStore } from '../support/memory-store.js';

const v1 = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'schemas', 'Course.v1.avsc'), 'utf8');
const v2 = loadSchemaText('Course');
const topic = 'racing.courses.v1';
const subject = valueSubject(topic);

const NEW_COURSE_FIELDS = {
  publishedAt: 0,
  siblingCourseIds: [],
  operator: '',
  shape: '',
  circuitLengthYards: null,
  straightLengthYards: null,
  startPositions: [],
};
const NEW_TOPOLOGY_FIELDS = {
  totalDescentM: null,
  closed: false,
  centreline: [],
  turns: [],
  profile: [],
  provenance: null,
  attribution: [],
};

interface Field {
  name: string;
  type: unknown;
  default?: unknown;
  doc?: string;
}
const fieldsOf = (s: string) => (JSON.parse(s) as { fields: Field[] }).fields;
const topologyFields = (s: string) =>
  ((fieldsOf(s).find((f) => f.name === 'topology')!.type as unknown[])[1] as { fields: Field[] }).fields;

/** A course as a v1 writer held it: the v1 fields only, with a v1 topology block. */
function v1Course(): Record<string, unknown> {
  const c = courseRecord(courseByCode('newcastle-aw')!, '2020-01-01');
  const copy: Record<string, unknown> = { ...c };
  for (const k of Object.keys(NEW_COURSE_FIELDS)) delete copy[k];
  copy.topology = { totalClimbM: 4.2, undulationIndex: 5.1, elevationRangeM: 3.3, circuitLengthM: 1609.3 };
  return copy;
}

describe('Course v2 in the registry (BACKWARD)', () => {
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

  it('the fixture is the previous schema: v2 adds fields only, each with a default and a doc where new', () => {
    const oldNames = fieldsOf(v1).map((f) => f.name);
    const added = fieldsOf(v2).filter((f) => !oldNames.includes(f.name));
    expect(added.map((f) => [f.name, f.default])).toEqual(Object.entries(NEW_COURSE_FIELDS));
    expect(
      fieldsOf(v2)
        .filter((f) => oldNames.includes(f.name))
        .map((f) => f.name),
    ).toEqual(oldNames);
    const oldTopology = topologyFields(v1).map((f) => f.name);
    const addedTopology = topologyFields(v2).filter((f) => !oldTopology.includes(f.name));
    expect(addedTopology.map((f) => [f.name, f.default])).toEqual(Object.entries(NEW_TOPOLOGY_FIELDS));
    for (const f of added) expect(f.doc).toBeTruthy();
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
      // The first `"default": ""` is operator's.
      const noDefault = v2.replace(/"default": "",\s*/, '');
      expect(noDefault).not.toBe(v2);
      const refused = await post(`/subjects/${subject}/versions`, noDefault);
      expect(refused.statusCode).toBe(409);
      expect((refused.json() as { message: string }).message).toMatch(/operator/);
      expect((await post(`/subjects/${subject}/versions`, v2)).statusCode).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('a course encoded with v1 decodes with the v2 reader, the new fields at their defaults', async () => {
    const registry = schemaStoreRegistry(store);
    const writer = await new AvroSerde(registry).codec<Record<string, unknown>>(topic, v1);
    const old = v1Course();
    const buf = writer.encode(old);

    const reader = new AvroSerde(registry);
    await reader.codec<Course>(topic, v2);
    const decoded = await reader.decode<Course>(topic, buf);
    expect(decoded).toEqual({
      ...old,
      ...NEW_COURSE_FIELDS,
      topology: { ...(old.topology as object), ...NEW_TOPOLOGY_FIELDS },
    });
    expect(validateCourse(decoded)).toEqual([]);
  });
});
