/**
 * `racing publish card|result|course FILE.json...`: operators publish input values given as JSON of
 * their Avro schema (the TS types in domain/avro-types.generated.ts: timestamps as epoch ms numbers,
 * nullable fields as the value or null, fields with a default may be left out; docs/examples/). A file
 * holds one object or an array of them. `publishedAt` may be left out: it is then the time of publishing.
 *
 * Each value is checked as the processor would check it: first against the topic's Avro schema, then by
 * domain/validate.ts. What it does with a value:
 *   - valid: published to the input topic (key raceId or courseId, record timestamp = publishedAt);
 *   - Avro-shaped but invalid (a bad id, an unknown discipline, a runner declared twice...): published
 *     too, as any producer's record would be, and the analytics processor sends it to the dead-letter
 *     topic with the reasons; so the dead letter has its source topic, partition and offset, is counted
 *     in the processor's figures, and is made again by every rebuild (which replays the input topics);
 *   - not JSON, or not the schema's shape (a missing field, a string for a number): it cannot be
 *     encoded, so it never reaches an input topic; its bytes are written to the dead-letter topic here,
 *     with the same headers (dlq.source.partition and dlq.source.offset -1, and dlq.source.file).
 * Any rejected value prints its reason and makes the command exit 1. `--check` only validates.
 *
 * Where it goes: in Kafka mode straight to the broker (no data dir needed); in embedded mode through
 * the running service's admin endpoint when one holds the data dir, else into the data dir directly.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import avro from 'avsc';
import type { AdminInputDeps, PublishKind, PublishReport } from '../../api/admin.js';
import type { Course, RaceCard, RaceResult } from '../../domain/avro-types.generated.js';
import { RacingError } from '../../domain/errors.js';
import type { PublishableEvent } from '../../domain/events.js';
import type { Logger } from '../../domain/logger.js';
import { validateCard, validateCourse, validateResult } from '../../domain/validate.js';
import type { Codecs } from '../../streams/codecs.js';
import type { LogPort, OutRecord } from '../../streams/log-port.js';
import { publishEvents } from '../../streams/publisher.js';
import { loadSchemaText } from '../../streams/serde.js';
import type { ServiceConfig } from '../config.js';
import type { Runtime } from '../runtime.js';
import { runningService, type ServiceFile } from '../service-file.js';
import { callAdmin } from './admin-client.js';
import { withPublisher } from './pipeline.js';
import { importResults } from './import.js';

export type { PublishKind, PublishReport };

const SCHEMA_OF: Record<PublishKind, string> = { card: 'RaceCard', result: 'RaceResult', course: 'Course' };

const types = new Map<PublishKind, avro.Type>();
function typeOf(kind: PublishKind): avro.Type {
  let t = types.get(kind);
  if (!t) {
    t = avro.Type.forSchema(JSON.parse(loadSchemaText(SCHEMA_OF[kind])) as avro.Schema);
    types.set(kind, t);
  }
  return t;
}

/** A record type's name without its namespace (RaceCard, not racing.v1.RaceCard). */
const recordName = (t: avro.Type): string => (t.name ?? 'record').split('.').pop()!;

const describe = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : JSON.stringify(v);

const EXPECTED: Record<string, string> = {
  int: 'an integer (int)',
  long: 'an integer (long; instants are epoch milliseconds)',
  float: 'a number',
  double: 'a number',
  string: 'a string',
  boolean: 'true or false',
  null: 'null',
};

/** Where `value` departs from the Avro type, as "path: problem" (empty when it matches). */
export function shapeErrors(type: avro.Type, value: unknown, path = ''): string[] {
  const at = path === '' ? 'the value' : path;
  const name = type.typeName;
  if (type instanceof avro.types.RecordType) {
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      return [`${at}: expected an object (${recordName(type)}), got ${describe(value)}`];
    const obj = value as Record<string, unknown>;
    const out: string[] = [];
    for (const f of type.fields) {
      const v = obj[f.name];
      if (v === undefined) {
        if (f.defaultValue() === undefined) out.push(`${path === '' ? '' : `${path}.`}${f.name}: missing`);
        continue;
      }
      out.push(...shapeErrors(f.type, v, path === '' ? f.name : `${path}.${f.name}`));
    }
    const known = new Set(type.fields.map((f) => f.name));
    for (const k of Object.keys(obj))
      if (!known.has(k)) out.push(`${path === '' ? '' : `${path}.`}${k}: not a field of ${recordName(type)}`);
    return out;
  }
  if (type instanceof avro.types.ArrayType) {
    if (!Array.isArray(value)) return [`${at}: expected an array, got ${describe(value)}`];
    return value.flatMap((v, i) => shapeErrors(type.itemsType, v, `${path}[${i}]`));
  }
  if (type instanceof avro.types.UnwrappedUnionType || type instanceof avro.types.WrappedUnionType) {
    const branches = type.types;
    if (value === null && branches.some((b) => b.typeName === 'null')) return [];
    const nonNull = branches.filter((b) => b.typeName !== 'null');
    const errors = nonNull.map((b) => shapeErrors(b, value, path));
    if (errors.some((e) => e.length === 0)) return [];
    const nullable = nonNull.length < branches.length;
    if (nonNull.length === 1) return errors[0]!.map((e) => (nullable ? `${e} (or null)` : e));
    return [`${at}: expected one of ${branches.map((b) => b.typeName).join(', ')}, got ${describe(value)}`];
  }
  if (type instanceof avro.types.LogicalType) return shapeErrors(type.underlyingType, value, path);
  const ok =
    name === 'int'
      ? Number.isInteger(value) && (value as number) >= -(2 ** 31) && (value as number) < 2 ** 31
      : name === 'long'
        ? Number.isSafeInteger(value)
        : name === 'float' || name === 'double'
          ? typeof value === 'number' && Number.isFinite(value)
          : type.isValid(value);
  return ok ? [] : [`${at}: expected ${EXPECTED[name] ?? `a valid ${name}`}, got ${describe(value)}`];
}

/** One value of a file, checked. */
export type CheckedValue =
  | { ok: true; index: number; event: PublishableEvent; id: string; problems: string[] }
  | {
      ok: false;
      index: number;
      id: string | null;
      code: 'bad_wire_format' | 'schema_incompatible';
      reason: string;
      raw: Buffer;
    };

const idOf = (kind: PublishKind, v: unknown): string | null => {
  if (v === null || typeof v !== 'object') return null;
  const id = (v as Record<string, unknown>)[kind === 'course' ? 'courseId' : 'raceId'];
  return typeof id === 'string' ? id : null;
};

/** Parses and checks a publish file: one object or an array of objects of the kind's schema. */
export function checkPublishFile(kind: PublishKind, bytes: Buffer, now: number): CheckedValue[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (e) {
    return [
      {
        ok: false,
        index: 0,
        id: null,
        code: 'bad_wire_format',
        reason: `not JSON: ${(e as Error).message}`,
        raw: bytes,
      },
    ];
  }
  const single = !Array.isArray(parsed);
  const values: unknown[] = single ? [parsed] : (parsed as unknown[]);
  const type = typeOf(kind);
  return values.map((v, index): CheckedValue => {
    const raw = single ? bytes : Buffer.from(JSON.stringify(v));
    // publishedAt left out: the value is published now
    const value =
      v !== null && typeof v === 'object' && !Array.isArray(v) && !('publishedAt' in v)
        ? { ...v, publishedAt: now }
        : v;
    const errors = shapeErrors(type, value);
    if (errors.length > 0)
      return { ok: false, index, id: idOf(kind, v), code: 'schema_incompatible', reason: errors.join('; '), raw };
    // fills the fields left out with their defaults
    const filled = type.clone(value) as RaceCard | RaceResult | Course;
    let event: PublishableEvent;
    let problems: string[];
    if (kind === 'card') {
      const c = filled as RaceCard;
      event = { kind, value: c, publishedAt: c.publishedAt };
      problems = validateCard(c);
    } else if (kind === 'result') {
      const r = filled as RaceResult;
      event = { kind, value: r, publishedAt: r.publishedAt };
      problems = validateResult(r);
    } else {
      const c = filled as Course;
      event = { kind, value: c, publishedAt: c.publishedAt };
      problems = validateCourse(c);
    }
    return { ok: true, index, event, id: idOf(kind, filled)!, problems };
  });
}

/**
 * Checks a file's values and publishes them with `p` (the log and codecs of a runtime, a Kafka
 * publisher or the running service's): see the header for what happens to each.
 */
export async function publishBytes(
  p: { log: LogPort; codecs: Codecs },
  kind: PublishKind,
  bytes: Buffer,
  options: { file: string; check?: boolean; now?: number },
): Promise<PublishReport> {
  const now = options.now ?? Date.now();
  const check = options.check ?? false;
  const topics = p.codecs.topics;
  const topic = kind === 'card' ? topics.cards : kind === 'result' ? topics.results : topics.courses;
  const checked = checkPublishFile(kind, bytes, now);
  const items: PublishReport['items'] = checked.map((c) => {
    if (c.ok && c.problems.length === 0)
      return {
        index: c.index,
        id: c.id,
        status: check ? 'valid' : 'published',
        code: null,
        reason: null,
        deadLetter: null,
      } as const;
    return {
      index: c.index,
      id: c.id,
      status: 'rejected',
      code: c.ok ? 'validation_failed' : c.code,
      reason: c.ok ? c.problems.join('; ') : c.reason,
      deadLetter: check ? null : c.ok ? 'processor' : 'written',
    } as const;
  });
  if (!check) {
    // Valid and merely invalid values alike go to the input topic in file order; the processor judges.
    const events = checked.flatMap((c) => (c.ok ? [c.event] : []));
    if (events.length > 0) await publishEvents(p.log, p.codecs, events);
    const dead: OutRecord[] = checked.flatMap((c) =>
      c.ok
        ? []
        : [
            {
              key: c.id ?? `racing-publish:${options.file}`,
              value: c.raw,
              timestamp: now,
              headers: {
                'dlq.error.code': c.code,
                'dlq.error.reason': c.reason.slice(0, 2000),
                'dlq.source.topic': topic,
                'dlq.source.partition': '-1',
                'dlq.source.offset': '-1',
                'dlq.source.file': options.file,
                'dlq.source.index': String(c.index),
              },
            },
          ],
    );
    if (dead.length > 0) await p.log.produce(topics.deadLetter, dead);
  }
  return {
    kind,
    file: options.file,
    topic,
    checkOnly: check,
    published: items.filter((i) => i.status === 'published').length,
    rejected: items.filter((i) => i.status === 'rejected').length,
    items,
  };
}

/** `racing publish`: each file through the running service, the Kafka broker or the data dir. */
export async function publishFiles(
  config: ServiceConfig,
  logger: Logger,
  kind: PublishKind,
  files: string[],
  options: { check: boolean; withRuntime: <T>(f: (rt: Runtime) => Promise<T>) => Promise<T> },
): Promise<PublishReport[]> {
  if (files.length === 0) throw new RacingError('validation_failed', `publish ${kind} needs at least one FILE.json`);
  const contents = files.map((f) => {
    try {
      return { file: basename(f), bytes: readFileSync(f) };
    } catch (e) {
      throw new RacingError('validation_failed', `cannot read ${f}: ${(e as Error).message}`);
    }
  });
  const each = async (p: { log: LogPort; codecs: Codecs }) => {
    const reports: PublishReport[] = [];
    for (const c of contents)
      reports.push(await publishBytes(p, kind, c.bytes, { file: c.file, check: options.check }));
    return reports;
  };
  if (config.mode === 'kafka') return withPublisher(config, logger, each);
  const service = runningService(config.dataDir);
  if (service) {
    const reports: PublishReport[] = [];
    for (const c of contents) reports.push(await publishThrough(service, kind, c.bytes, c.file, options.check));
    return reports;
  }
  return options.withRuntime((rt) => each(rt));
}

async function publishThrough(
  s: ServiceFile,
  kind: PublishKind,
  bytes: Buffer,
  file: string,
  check: boolean,
): Promise<PublishReport> {
  const query = new URLSearchParams({ file, ...(check ? { check: 'true' } : {}) });
  const text = await callAdmin(s, 'POST', `/publish/${kind}?${query}`, bytes, 'application/octet-stream');
  return JSON.parse(text) as PublishReport;
}

/** The report as text: one line per rejected value, then a summary. */
export function formatPublishReport(r: PublishReport): { out: string; err: string } {
  const err = r.items
    .filter((i) => i.status === 'rejected')
    .map((i) => {
      const where = r.items.length > 1 || i.index > 0 ? `${r.file}[${i.index}]` : r.file;
      const dl =
        i.deadLetter === 'processor'
          ? `published to ${r.topic}; the processor sends it to the dead-letter topic`
          : i.deadLetter === 'written'
            ? 'written to the dead-letter topic'
            : 'not published (--check)';
      return `racing: ${where}${i.id ? ` (${i.id})` : ''}: ${i.code}: ${i.reason} [${dl}]\n`;
    })
    .join('');
  const noun = r.kind === 'result' ? 'results' : `${r.kind}s`;
  const out = r.checkOnly
    ? `${r.file}: ${r.items.length - r.rejected} valid, ${r.rejected} rejected ${noun} (nothing published: --check)\n`
    : `${r.file}: published ${r.published} ${noun} to ${r.topic}${r.rejected > 0 ? `, ${r.rejected} rejected` : ''}\n`;
  return { out, err };
}

/**
 * What the running service does for `racing publish` and `racing import` (the admin endpoint's input
 * routes): the same functions on its own log and store, one request at a time (an import's ledger
 * must not be written by two at once).
 */
export function serviceInput(rt: Runtime): AdminInputDeps {
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(f: () => Promise<T>): Promise<T> => {
    const run = queue.then(f, f);
    queue = run.catch(() => undefined);
    return run;
  };
  return {
    publish: (kind, body, options) => serial(() => publishBytes(rt, kind, body, options)),
    importResultsCsv: (request) =>
      serial(() =>
        importResults(rt, {
          files: request.files,
          ...(request.officialRating ? { officialRating: request.officialRating } : {}),
          ...(request.fixMorningOffs !== undefined ? { fixMorningOffs: request.fixMorningOffs } : {}),
          ...(request.extendedFlatRaces !== undefined ? { extendedFlatRaces: request.extendedFlatRaces } : {}),
        }),
      ),
  };
}
