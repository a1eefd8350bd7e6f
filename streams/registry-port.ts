/**
 * The schema-registry port: subjects (TopicNameStrategy, `<topic>-value`), versions and global ids,
 * with BACKWARD compatibility enforced on register. Adapters: the embedded registry (state store) and
 * a Confluent-compatible HTTP registry through @kafkajs/confluent-schema-registry.
 */
export interface RegisteredSchema {
  id: number;
  version: number;
  /** Avro schema JSON text */
  schema: string;
}

export interface SchemaRegistryPort {
  /**
   * Registers a schema under a subject and returns its global id; registering an identical schema
   * again returns the existing id. Throws RacingError `schema_incompatible` when the schema cannot
   * read data written with the subject's latest version (BACKWARD).
   */
  register(subject: string, schema: string): Promise<number>;
  /** The schema text for a global id; throws RacingError `schema_not_found` when unknown. */
  schemaById(id: number): Promise<string>;
  /** The latest version of a subject, or undefined. */
  latest(subject: string): Promise<RegisteredSchema | undefined>;
  /** Subjects in name order. */
  subjects(): Promise<string[]>;
  /** Versions of a subject, ascending. */
  versions(subject: string): Promise<number[]>;
}

/** TopicNameStrategy subject of a topic's values. */
export const valueSubject = (topic: string): string => `${topic}-value`;
