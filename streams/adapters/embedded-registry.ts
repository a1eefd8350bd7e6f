/**
 * The embedded schema registry: Confluent registry semantics (subjects, versions, global ids,
 * BACKWARD compatibility) kept in the state store, so the embedded default writes the same wire
 * format (magic byte, 4-byte schema id, Avro body) as a Kafka deployment with a real registry.
 */
import avro from 'avsc';
import { RacingError } from '../../domain/errors.js';
import type { StorePort } from '../../state/store-port.js';
import type { RegisteredSchema, SchemaRegistryPort } from '../registry-port.js';

const pad = (n: number) => String(n).padStart(10, '0');

/** Canonical text of an Avro schema (parsing canonical form is what ids are assigned to). */
export function canonicalSchema(schema: string): string {
  return JSON.stringify(avro.Type.forSchema(JSON.parse(schema) as avro.Schema).schema({ exportAttrs: true }));
}

/** Throws `schema_incompatible` unless `reader` can read data written with `writer`. */
export function assertBackwardCompatible(subject: string, reader: string, writer: string): void {
  const r = avro.Type.forSchema(JSON.parse(reader) as avro.Schema);
  const w = avro.Type.forSchema(JSON.parse(writer) as avro.Schema);
  try {
    r.createResolver(w);
  } catch (cause) {
    throw new RacingError(
      'schema_incompatible',
      `schema for ${subject} is not BACKWARD compatible with the latest registered version: ${(cause as Error).message}`,
      { cause },
    );
  }
}

export function createEmbeddedRegistry(store: StorePort): SchemaRegistryPort {
  let chain: Promise<unknown> = Promise.resolve();
  const serial = <T>(f: () => Promise<T>): Promise<T> => {
    const p = chain.then(f, f);
    chain = p.catch(() => undefined);
    return p;
  };
  const byId = new Map<number, string>();

  const latest = async (subject: string): Promise<RegisteredSchema | undefined> => {
    for await (const [, v] of store.entries({ gte: `s!${subject}!`, lt: `s!${subject}!~`, reverse: true, limit: 1 })) {
      return JSON.parse(v.toString()) as RegisteredSchema;
    }
    return undefined;
  };

  return {
    register(subject, schema) {
      return serial(async () => {
        const canon = canonicalSchema(schema);
        for await (const [, v] of store.entries({ gte: `s!${subject}!`, lt: `s!${subject}!~` })) {
          const s = JSON.parse(v.toString()) as RegisteredSchema;
          if (s.schema === canon) return s.id;
        }
        const last = await latest(subject);
        if (last) assertBackwardCompatible(subject, canon, last.schema);
        let id = 0;
        for await (const [k] of store.entries({ gte: 'id!', lt: 'id!~', reverse: true, limit: 1 }))
          id = Number(k.slice(3));
        // Identical schema text under another subject shares its id, as in Confluent's registry.
        for await (const [k, v] of store.entries({ gte: 'id!', lt: 'id!~' })) {
          if (v.toString() === canon) id = Number(k.slice(3)) - 1;
        }
        const newId = id + 1;
        const version = (last?.version ?? 0) + 1;
        await store.batch([
          { type: 'put', key: `id!${pad(newId)}`, value: Buffer.from(canon) },
          {
            type: 'put',
            key: `s!${subject}!${pad(version)}`,
            value: Buffer.from(JSON.stringify({ id: newId, version, schema: canon })),
          },
        ]);
        byId.set(newId, canon);
        return newId;
      });
    },
    async schemaById(id) {
      const cached = byId.get(id);
      if (cached) return cached;
      const v = await store.get(`id!${pad(id)}`);
      if (!v) throw new RacingError('schema_not_found', `no schema with id ${id}`);
      byId.set(id, v.toString());
      return v.toString();
    },
    latest,
    async subjects() {
      const out = new Set<string>();
      for await (const [k] of store.entries({ gte: 's!', lt: 's!~' })) out.add(k.slice(2, k.lastIndexOf('!')));
      return [...out].sort();
    },
    async versions(subject) {
      const out: number[] = [];
      for await (const [, v] of store.entries({ gte: `s!${subject}!`, lt: `s!${subject}!~` })) {
        out.push((JSON.parse(v.toString()) as RegisteredSchema).version);
      }
      return out;
    },
  };
}
