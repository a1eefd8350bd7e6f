/**
 * Avro schema -> JSON Schema (as TypeBox schemas), so the API's response schemas, OpenAPI document and
 * data dictionary are derived from schemas/*.avsc at runtime and cannot drift from the topic values.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type TSchema, Type } from '@sinclair/typebox';
import { RacingError } from '../domain/errors.js';

/** The subset of the Avro schema grammar we read (primitives, records, enums, arrays, maps, unions). */
export type AvroType = string | AvroType[] | AvroComplex;

export interface AvroComplex {
  type: string;
  name?: string;
  namespace?: string;
  doc?: string;
  fields?: AvroField[];
  symbols?: string[];
  items?: AvroType;
  values?: AvroType;
  logicalType?: string;
}

export interface AvroField {
  name: string;
  type: AvroType;
  doc?: string;
  default?: unknown;
}

export interface AvroRecordSchema extends AvroComplex {
  type: 'record';
  name: string;
  fields: AvroField[];
}

const INT32 = { minimum: -2147483648, maximum: 2147483647 } as const;

/** Finds the schemas/ folder whether running from sources (api/) or from the build (dist/api/). */
function schemasDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++) {
    const candidate = join(dir, 'schemas');
    if (existsSync(join(candidate, 'AnalyticsRow.avsc'))) return candidate;
    dir = dirname(dir);
  }
  throw new RacingError('config_invalid', 'cannot find the schemas/ folder (looked above ' + import.meta.url + ')');
}

const loaded = new Map<string, AvroRecordSchema>();

/** Reads and caches `schemas/<name>.avsc`; it must be a record schema. */
export function loadAvroSchema(name: string): AvroRecordSchema {
  const cached = loaded.get(name);
  if (cached) return cached;
  const file = join(schemasDir(), `${name}.avsc`);
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as AvroType;
  if (typeof parsed !== 'object' || Array.isArray(parsed) || parsed.type !== 'record' || !parsed.fields) {
    throw new RacingError('config_invalid', `${file} is not an Avro record schema`);
  }
  const record = parsed as AvroRecordSchema;
  loaded.set(name, record);
  return record;
}

/**
 * The JSON Schema of the JSON form of an Avro value: int/long -> integer, float/double -> number,
 * string, boolean, null, record -> object (every field required, no additional properties),
 * enum -> string enum, array, map -> object of values, union -> anyOf (so ["null", X] is nullable).
 * The JSON form of a union is the bare value (not Avro's {"type": value} wrapping), as the API serves it.
 */
export function avroToJsonSchema(type: AvroType, named: Map<string, TSchema> = new Map()): TSchema {
  if (Array.isArray(type)) {
    if (type.length === 0) throw new RacingError('config_invalid', 'empty Avro union');
    return Type.Union(type.map((t) => avroToJsonSchema(t, named)));
  }
  if (typeof type === 'string') return primitive(type, named, undefined);
  const doc = type.doc === undefined ? {} : { description: type.doc };
  switch (type.type) {
    case 'record':
    case 'error': {
      if (!type.name || !type.fields) throw new RacingError('config_invalid', 'Avro record without name or fields');
      const props: Record<string, TSchema> = {};
      for (const f of type.fields) {
        const s = avroToJsonSchema(f.type, named);
        props[f.name] = f.doc === undefined ? s : { ...s, description: f.doc };
      }
      const schema = Type.Object(props, { additionalProperties: false, title: type.name, ...doc });
      named.set(type.name, schema);
      if (type.namespace) named.set(`${type.namespace}.${type.name}`, schema);
      return schema;
    }
    case 'enum': {
      if (!type.symbols) throw new RacingError('config_invalid', 'Avro enum without symbols');
      const schema = Type.Union(
        type.symbols.map((s) => Type.Literal(s)),
        doc,
      );
      if (type.name) named.set(type.name, schema);
      return schema;
    }
    case 'array':
      if (type.items === undefined) throw new RacingError('config_invalid', 'Avro array without items');
      return Type.Array(avroToJsonSchema(type.items, named), doc);
    case 'map':
      if (type.values === undefined) throw new RacingError('config_invalid', 'Avro map without values');
      return Type.Record(Type.String(), avroToJsonSchema(type.values, named), doc);
    default:
      return primitive(type.type, named, type.doc);
  }
}

function primitive(name: string, named: Map<string, TSchema>, description: string | undefined): TSchema {
  const doc = description === undefined ? {} : { description };
  switch (name) {
    case 'null':
      return Type.Null(doc);
    case 'boolean':
      return Type.Boolean(doc);
    case 'int':
      return Type.Integer({ ...INT32, ...doc });
    case 'long':
      return Type.Integer(doc);
    case 'float':
    case 'double':
      return Type.Number(doc);
    case 'string':
      return Type.String(doc);
    default: {
      const ref = named.get(name);
      if (ref) return ref;
      // bytes and fixed have no faithful JSON form in this API; refuse rather than guess.
      throw new RacingError('config_invalid', `Avro type '${name}' has no JSON Schema mapping here`);
    }
  }
}

/** A compact human-readable Avro type, e.g. `int`, `double | null`, `array<string>` (for the data dictionary). */
export function avroTypeName(type: AvroType): string {
  if (Array.isArray(type)) {
    // Put null last: "double | null" reads better than "null | double".
    const names = type.map(avroTypeName);
    return [...names.filter((n) => n !== 'null'), ...names.filter((n) => n === 'null')].join(' | ');
  }
  if (typeof type === 'string') return type;
  if (type.type === 'array' && type.items !== undefined) return `array<${avroTypeName(type.items)}>`;
  if (type.type === 'map' && type.values !== undefined) return `map<${avroTypeName(type.values)}>`;
  return type.name ?? type.type;
}
