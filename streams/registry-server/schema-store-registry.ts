/**
 * The SchemaRegistryPort straight over a SchemaStore, without HTTP: for a process that both serves the
 * registry and encodes with it (the ids it writes are then the ids its HTTP clients resolve).
 */
import { RacingError } from '../../domain/errors.js';
import type { SchemaRegistryPort } from '../registry-port.js';
import type { SchemaStore } from './log-schema-store.js';

export function schemaStoreRegistry(store: SchemaStore): SchemaRegistryPort {
  return {
    async register(subject, schema) {
      return (await store.register(subject, schema)).id;
    },
    async schemaById(id) {
      const schema = store.schemaById(id);
      if (schema === undefined) throw new RacingError('schema_not_found', `no schema with id ${id}`);
      return schema;
    },
    async latest(subject) {
      const s = store.version(subject, 'latest');
      return s === undefined ? undefined : { id: s.id, version: s.version, schema: s.schema };
    },
    async subjects() {
      return store.subjects();
    },
    async versions(subject) {
      return store.versions(subject);
    },
  };
}
