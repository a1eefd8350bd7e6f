/** The project's own Confluent-compatible schema registry (REST subset) over a `_schemas` topic. */
export { backwardProblem, parseAvroSchema } from './avro-schema.js';
export { type ConfluentErrorBody, RegistryHttpError } from './confluent-errors.js';
export {
  createLogSchemaStore,
  type LogSchemaStoreOptions,
  type Registration,
  type SchemaStore,
  type StoredSchema,
} from './log-schema-store.js';
export {
  buildRegistryServer,
  COMPATIBILITY_LEVEL,
  REGISTRY_CONTENT_TYPE,
  type RegistryServerDeps,
  startRegistryServer,
} from './registry-server.js';
export { schemaStoreRegistry } from './schema-store-registry.js';
