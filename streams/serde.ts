/**
 * Avro serde in the Confluent wire format: magic byte 0, 4-byte big-endian schema id, Avro binary body.
 * Writers encode with the schema registered for the topic's value subject; readers resolve the
 * writer's schema by id (so a value written with an older schema is read with the current one).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';
import { avroBytes } from './avro-bytes.js';
import { RacingError } from '../domain/errors.js';
import { type SchemaRegistryPort, valueSubject } from './registry-port.js';

export const SCHEMA_DIR = join(import.meta.dirname, '..', '..', 'schemas');

/** Reads a schema of schemas/ by record name (works from source and from dist/). */
export function loadSchemaText(name: string): string {
  for (const dir of [SCHEMA_DIR, join(import.meta.dirname, '..', 'schemas')]) {
    try {
      return readFileSync(join(dir, `${name}.avsc`), 'utf8');
    } catch {
      // try the next location
    }
  }
  throw new RacingError('schema_not_found', `schemas/${name}.avsc not found`);
}

/** The Confluent wire format's header: magic byte 0, then the 4-byte big-endian schema id. */
export const WIRE_HEADER_BYTES = 5;

export interface TopicCodec<T> {
  readonly schemaId: number;
  encode(value: T): Buffer;
  /**
   * Writes the wire-format header into the first WIRE_HEADER_BYTES of `bytes`, an Avro binary of the
   * codec's schema encoded after that many bytes left free (e.g. the engine's `encodeRow`); returns it.
   */
  frame(bytes: Buffer): Buffer;
  /** Whether a framed value was written with this codec's schema (its binary is then this codec's own). */
  isOwn(value: Buffer): boolean;
}

export class AvroSerde {
  private readonly writers = new Map<number, avro.Type>();
  /** per reader type, per writer schema id */
  private readonly resolvers = new Map<avro.Type, Map<number, avro.Resolver>>();
  private readonly readers = new Map<string, avro.Type>();

  constructor(private readonly registry: SchemaRegistryPort) {}

  /** Registers (or finds) the topic's value schema and returns an encoder. */
  async codec<T>(topic: string, schemaText: string): Promise<TopicCodec<T>> {
    const id = await this.registry.register(valueSubject(topic), schemaText);
    const type = avro.Type.forSchema(JSON.parse(schemaText) as avro.Schema);
    this.writers.set(id, type);
    this.readers.set(topic, type);
    const frame = (bytes: Buffer): Buffer => {
      bytes[0] = 0;
      bytes.writeUInt32BE(id, 1);
      return bytes;
    };
    return {
      schemaId: id,
      encode(value: T): Buffer {
        return frame(avroBytes(type, value, WIRE_HEADER_BYTES));
      },
      frame,
      isOwn(value: Buffer): boolean {
        return value.length >= WIRE_HEADER_BYTES && value[0] === 0 && value.readUInt32BE(1) === id;
      },
    };
  }

  /**
   * Decodes a framed value with the reader schema registered for `topic` via codec(); throws
   * RacingError `bad_wire_format` for bytes that are not Confluent-framed Avro and `schema_not_found`
   * for an unknown id.
   */
  async decode<T>(topic: string, buf: Buffer): Promise<T> {
    return this.decodeAs<T>(this.readers.get(topic), buf);
  }

  /**
   * As decode, read with `reader` (a schema the writer's resolves to) instead of the topic's: fields
   * the reader leaves out are skipped unread (a consumer that ignores display names does not make
   * their strings). Without a reader, with the writer's own schema.
   */
  async decodeAs<T>(reader: avro.Type | undefined, buf: Buffer): Promise<T> {
    if (buf.length < 5 || buf[0] !== 0) {
      throw new RacingError('bad_wire_format', 'value is not in the Confluent wire format (magic byte 0 + schema id)');
    }
    const id = buf.readUInt32BE(1);
    let writer = this.writers.get(id);
    if (!writer) {
      const text = await this.registry.schemaById(id);
      writer = avro.Type.forSchema(JSON.parse(text) as avro.Schema);
      this.writers.set(id, writer);
    }
    try {
      if (!reader || reader === writer) return writer.fromBuffer(buf.subarray(5)) as T;
      let byWriter = this.resolvers.get(reader);
      if (!byWriter) this.resolvers.set(reader, (byWriter = new Map()));
      let resolver = byWriter.get(id);
      if (!resolver) {
        resolver = reader.createResolver(writer);
        byWriter.set(id, resolver);
      }
      return reader.fromBuffer(buf.subarray(5), resolver) as T;
    } catch (cause) {
      throw new RacingError(
        'bad_wire_format',
        `value does not decode with schema id ${id}: ${(cause as Error).message}`,
        {
          cause,
        },
      );
    }
  }
}
