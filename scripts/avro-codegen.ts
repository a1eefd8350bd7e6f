/**
 * Generates TypeScript types from the .avsc files in schemas/, so a field cannot drift between Avro and
 * TypeScript. `npm run gen:types` writes domain/avro-types.generated.ts; a unit test fails when the
 * committed file differs from what this produces.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

type AvroType = string | AvroType[] | { type: string; [k: string]: unknown };

interface AvroField {
  name: string;
  type: AvroType;
  doc?: string;
}

const PRIMITIVES: Record<string, string> = {
  null: 'null',
  boolean: 'boolean',
  int: 'number',
  long: 'number',
  float: 'number',
  double: 'number',
  string: 'string',
  bytes: 'Buffer',
};

export const SCHEMA_FILES = ['RaceCard', 'RaceResult', 'Course', 'AnalyticsRow', 'CourseSnapshot'] as const;

export function generateTypes(schemaDir: string): string {
  const out: string[] = ['// Generated from schemas/*.avsc by `npm run gen:types`. Do not edit by hand.', ''];
  const emitted = new Set<string>();
  const files = readdirSync(schemaDir)
    .filter((f) => f.endsWith('.avsc'))
    .sort();
  for (const file of files) {
    const schema = JSON.parse(readFileSync(join(schemaDir, file), 'utf8')) as AvroType;
    emit(schema, out, emitted);
  }
  return `${out.join('\n').trimEnd()}\n`;
}

function emit(t: AvroType, out: string[], emitted: Set<string>): string {
  if (typeof t === 'string') {
    const p = PRIMITIVES[t];
    if (p) return p;
    return t.includes('.') ? t.slice(t.lastIndexOf('.') + 1) : t;
  }
  if (Array.isArray(t)) {
    return t.map((m) => emit(m, out, emitted)).join(' | ');
  }
  switch (t.type) {
    case 'record': {
      const name = String(t['name']);
      const fields = t['fields'] as AvroField[];
      const lines: string[] = [];
      if (typeof t['doc'] === 'string') lines.push(`/** ${t['doc']} */`);
      lines.push(`export interface ${name} {`);
      const body: string[] = [];
      for (const f of fields) {
        const ts = emit(f.type, out, emitted);
        if (f.doc) body.push(`  /** ${f.doc} */`);
        body.push(`  ${f.name}: ${ts};`);
      }
      lines.push(...body, '}', '');
      if (!emitted.has(name)) {
        emitted.add(name);
        out.push(...lines);
      }
      return name;
    }
    case 'array':
      return `Array<${emit(t['items'] as AvroType, out, emitted)}>`;
    case 'map':
      return `Record<string, ${emit(t['values'] as AvroType, out, emitted)}>`;
    case 'enum':
      return (t['symbols'] as string[]).map((s) => `'${s}'`).join(' | ');
    default:
      return emit(t.type, out, emitted);
  }
}
