/**
 * The registry server's storage: a compacted, single-partition `_schemas` topic on the LogPort, as
 * Confluent's own registry keeps it. Every replica replays the topic on start to rebuild its in-memory
 * view and keeps tailing it, so replicas on the same log converge; reads are served from memory.
 *
 * Record per registration (one partition, so every replica applies them in the same order):
 *   key   JSON {subject, version}
 *   value JSON {subject, version, id, schema, schemaType: 'AVRO'}   (schema in canonical form)
 * Compaction keeps the latest record per key, i.e. exactly one record per registered version.
 *
 * Ids are assigned by the writer (highest id seen + 1, or the id of an identical schema registered
 * under any subject, as Confluent does). The writer reads the topic to its end before each
 * registration, but two replicas registering at the same instant could still hand out the same id or
 * version: run one writer (the service, or CI registering the schemas) and let other replicas read.
 */
import { randomUUID } from 'node:crypto';
import { isRacingError, RacingError } from '../../domain/errors.js';
import type { Logger } from '../../domain/logger.js';
import type { LogPort, LogRecord } from '../log-port.js';
import { backwardProblem, parseAvroSchema } from './avro-schema.js';
import { abortableDelay } from '../../domain/time.js';

/** One registered version of a subject, as stored in the `_schemas` topic. */
export interface StoredSchema {
  subject: string;
  version: number;
  id: number;
  /** canonical Avro schema text */
  schema: string;
  schemaType: 'AVRO';
}

export interface Registration {
  id: number;
  version: number;
  /** false when an identical schema was already registered under the subject (nothing was written) */
  created: boolean;
}

export interface SchemaStore {
  /**
   * Registers `schema` under `subject` after reading the topic to its end. An identical schema
   * (canonical form) returns the existing registration. Throws RacingError `validation_failed` for text
   * that is not an Avro schema and `schema_incompatible` when the schema cannot read data written with
   * the subject's latest version.
   */
  register(subject: string, schema: string): Promise<Registration>;
  /** The version of `subject` whose schema is identical to `schema` (canonical text), or undefined. */
  lookup(subject: string, canonical: string): StoredSchema | undefined;
  /** Schema text of a global id, or undefined. */
  schemaById(id: number): string | undefined;
  /** Every (subject, version) registered with a global id, by subject then version. */
  usagesOf(id: number): { subject: string; version: number }[];
  /** Subjects in name order. */
  subjects(): string[];
  /** Versions of a subject, ascending; empty for an unknown subject. */
  versions(subject: string): number[];
  /** One version of a subject (`'latest'` for the highest), or undefined. */
  version(subject: string, version: number | 'latest'): StoredSchema | undefined;
  /** Resolves once every record appended to the topic before the call has been applied here. */
  sync(): Promise<void>;
  /** Stops tailing the topic. Leaves the log open: its owner closes it. */
  close(): Promise<void>;
}

export interface LogSchemaStoreOptions {
  logger?: Logger;
  /**
   * Consumer group used to tail the topic. Each replica needs its own (on Kafka, replicas sharing a
   * group would split the topic's one partition between them); the default is unique per instance.
   * The store always starts from the beginning of the topic, whatever the group has committed.
   */
  group?: string;
  /** How long sync() (and so register()) waits for the topic to be read to its end; default 10 s. */
  syncTimeoutMs?: number;
}

/**
 * Opens the schema store over `topic` (created with 1 partition and cleanup.policy=compact when
 * missing) and resolves once the topic has been replayed. Throws RacingError `config_invalid` when the
 * topic exists with more than one partition.
 */
export async function createLogSchemaStore(
  log: LogPort,
  topic = '_schemas',
  options: LogSchemaStoreOptions = {},
): Promise<SchemaStore> {
  await log.ensureTopics([{ name: topic, partitions: 1, compacted: true, config: { 'cleanup.policy': 'compact' } }]);
  const partitions = await log.partitions(topic);
  if (partitions !== 1) {
    throw new RacingError(
      'config_invalid',
      `schema topic ${topic} has ${partitions} partitions; it needs exactly 1 ` +
        'so that every registry replica applies registrations in the same order',
      { details: { topic, partitions } },
    );
  }
  const store = new LogSchemaStore(log, topic, options);
  await store.start();
  return store;
}

interface Waiter {
  offset: number;
  resolve: () => void;
  reject: (e: Error) => void;
}

class LogSchemaStore implements SchemaStore {
  private readonly subjectsByName = new Map<string, Map<number, StoredSchema>>();
  private readonly textById = new Map<number, string>();
  private readonly idByText = new Map<string, number>();
  private maxId = 0;
  /** Next offset of the topic to apply. */
  private applied = 0;
  private waiters: Waiter[] = [];
  private failure: Error | undefined;
  private readonly stop = new AbortController();
  private tail: Promise<void> = Promise.resolve();
  private writes: Promise<unknown> = Promise.resolve();
  private readonly group: string;
  private readonly logger: Logger | undefined;
  private readonly syncTimeoutMs: number;

  constructor(
    private readonly log: LogPort,
    private readonly topic: string,
    options: LogSchemaStoreOptions,
  ) {
    this.group = options.group ?? `${topic}-reader-${randomUUID()}`;
    this.logger = options.logger?.child({ component: 'schema-store', topic });
    this.syncTimeoutMs = options.syncTimeoutMs ?? 10_000;
  }

  async start(): Promise<void> {
    const [start = 0] = await this.log.startOffsets(this.topic);
    this.applied = start;
    this.tail = this.follow();
    try {
      await this.sync();
    } catch (e) {
      this.stop.abort();
      await this.tail;
      throw e;
    }
    this.logger?.info(
      { subjects: this.subjectsByName.size, schemas: this.textById.size, offset: this.applied },
      'schema store replayed',
    );
  }

  /**
   * Tails the topic from the first offset not applied yet. When the log stops delivering (a broker
   * outage that outlasted the client's own retries), reads fail with registry_unreachable meanwhile,
   * and the tail starts again after a backoff: the replica recovers by itself and keeps its view.
   */
  private async follow(): Promise<void> {
    const key = `${this.topic}:0`;
    for (let attempt = 0; !this.stop.signal.aborted; attempt++) {
      try {
        await this.log.consume(
          {
            group: this.group,
            topics: [this.topic],
            // The in-memory view is rebuilt from the topic (from its start on open, from where it got
            // to after an outage), never from a committed offset.
            startOffsets: async () => {
              if (this.failure !== undefined) this.logger?.info({ offset: this.applied }, 'schema topic tail resumed');
              this.failure = undefined;
              attempt = 0;
              return new Map([[key, this.applied]]);
            },
            signal: this.stop.signal,
          },
          async ({ records }) => {
            for (const r of records) if (r.offset >= this.applied) this.apply(r);
            const last = records.at(-1);
            if (last !== undefined) this.advance(last.offset + 1);
          },
        );
        if (this.stop.signal.aborted) return;
        this.fail(new Error('the log stopped delivering records'));
      } catch (e) {
        this.fail(e instanceof Error ? e : new Error(String(e)));
        if (!isRacingError(e) || !e.retriable) return;
      }
      const wait = Math.min(15_000, 500 * 2 ** Math.min(attempt, 5));
      this.logger?.warn({ err: this.failure?.message, retryInMs: wait }, 'schema topic tail stopped; retrying');
      await abortableDelay(wait, this.stop.signal);
    }
  }

  register(subject: string, schema: string): Promise<Registration> {
    const run = this.writes.then(() => this.registerNow(subject, schema));
    this.writes = run.catch(() => undefined);
    return run;
  }

  private async registerNow(subject: string, schema: string): Promise<Registration> {
    const canonical = parseAvroSchema(schema);
    await this.sync();
    const existing = this.lookup(subject, canonical);
    if (existing) return { id: existing.id, version: existing.version, created: false };
    const latest = this.version(subject, 'latest');
    if (latest) {
      const problem = backwardProblem(canonical, latest.schema);
      if (problem !== undefined) {
        throw new RacingError(
          'schema_incompatible',
          `Schema being registered is incompatible with an earlier schema for subject "${subject}": ` +
            'BACKWARD compatibility requires it to read data written with ' +
            `version ${latest.version} (id ${latest.id}), ` +
            `but ${problem}`,
          { details: { subject, version: latest.version, id: latest.id } },
        );
      }
    }
    const record: StoredSchema = {
      subject,
      version: (latest?.version ?? 0) + 1,
      id: this.idByText.get(canonical) ?? this.maxId + 1,
      schema: canonical,
      schemaType: 'AVRO',
    };
    await this.log.produce(this.topic, [
      {
        key: JSON.stringify({ subject: record.subject, version: record.version }),
        value: Buffer.from(JSON.stringify(record), 'utf8'),
      },
    ]);
    // Applied now for read-your-writes; the tail applies the same record again when it reaches it.
    this.put(record);
    this.logger?.info({ subject, version: record.version, id: record.id }, 'schema registered');
    return { id: record.id, version: record.version, created: true };
  }

  lookup(subject: string, canonical: string): StoredSchema | undefined {
    for (const s of this.subjectsByName.get(subject)?.values() ?? []) if (s.schema === canonical) return s;
    return undefined;
  }

  schemaById(id: number): string | undefined {
    return this.textById.get(id);
  }

  usagesOf(id: number): { subject: string; version: number }[] {
    const out: { subject: string; version: number }[] = [];
    for (const subject of this.subjects()) {
      for (const v of this.versions(subject)) {
        if (this.subjectsByName.get(subject)?.get(v)?.id === id) out.push({ subject, version: v });
      }
    }
    return out;
  }

  subjects(): string[] {
    return [...this.subjectsByName.keys()].sort();
  }

  versions(subject: string): number[] {
    return [...(this.subjectsByName.get(subject)?.keys() ?? [])].sort((a, b) => a - b);
  }

  version(subject: string, version: number | 'latest'): StoredSchema | undefined {
    const versions = this.subjectsByName.get(subject);
    if (versions === undefined) return undefined;
    const v = version === 'latest' ? Math.max(...versions.keys()) : version;
    return versions.get(v);
  }

  async sync(): Promise<void> {
    if (this.failure) throw this.unavailable(this.failure);
    const [end = 0] = await this.log.endOffsets(this.topic);
    if (this.applied >= end) return;
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        offset: end,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(
          new RacingError(
            'registry_unreachable',
            `schema topic ${this.topic} was not read to offset ${end} ` +
              `within ${this.syncTimeoutMs} ms (at ${this.applied})`,
            { retriable: true },
          ),
        );
      }, this.syncTimeoutMs);
      this.waiters.push(waiter);
    });
  }

  async close(): Promise<void> {
    this.stop.abort();
    await this.tail;
    this.fail(new Error('the schema store is closed'));
    // The group only ever served this instance; drop its committed offset so restarts leave nothing behind.
    await this.log.resetGroup(this.group, [this.topic]).catch(() => undefined);
  }

  private apply(r: LogRecord): void {
    const problem = this.applyRecord(r);
    if (problem !== undefined) {
      this.logger?.warn({ offset: r.offset, key: r.key }, `skipping a record of the schema topic: ${problem}`);
    }
  }

  /** Applies one record of the topic; returns why it was skipped when it is not a schema record. */
  private applyRecord(r: LogRecord): string | undefined {
    let key: unknown;
    let value: unknown;
    try {
      key = JSON.parse(r.key);
      value = r.value === null ? null : JSON.parse(r.value.toString('utf8'));
    } catch (cause) {
      return `not JSON: ${(cause as Error).message}`;
    }
    if (!isObject(key)) return 'key is not a JSON object';
    // Confluent's own _schemas also holds CONFIG, NOOP and DELETE_SUBJECT records; only schemas matter here.
    if (key['keytype'] !== undefined && key['keytype'] !== 'SCHEMA') return undefined;
    const keySubject = key['subject'];
    const keyVersion = key['version'];
    if (typeof keySubject !== 'string' || !isVersion(keyVersion)) return 'key lacks subject or version';
    if (value === null || (isObject(value) && value['deleted'] === true)) {
      this.remove(keySubject, keyVersion);
      return undefined;
    }
    if (!isObject(value)) return 'value is not a JSON object';
    const { id, schema, schemaType } = value;
    if (value['subject'] !== keySubject || value['version'] !== keyVersion) return 'value does not match its key';
    if (!isVersion(id) || typeof schema !== 'string') return 'value lacks id or schema';
    if (schemaType !== undefined && schemaType !== 'AVRO') return `schemaType ${String(schemaType)} is not supported`;
    let canonical: string;
    try {
      canonical = parseAvroSchema(schema);
    } catch (e) {
      return (e as Error).message;
    }
    this.put({ subject: keySubject, version: keyVersion, id, schema: canonical, schemaType: 'AVRO' });
    return undefined;
  }

  private put(s: StoredSchema): void {
    let versions = this.subjectsByName.get(s.subject);
    if (versions === undefined) {
      versions = new Map();
      this.subjectsByName.set(s.subject, versions);
    }
    const previous = versions.get(s.version);
    if (previous !== undefined && (previous.id !== s.id || previous.schema !== s.schema)) {
      // Two writers registered the same version concurrently; the later record wins, as compaction would.
      this.logger?.warn(
        { subject: s.subject, version: s.version, previousId: previous.id, id: s.id },
        'conflicting registrations of one subject version (more than one registry writer?)',
      );
    }
    versions.set(s.version, s);
    this.textById.set(s.id, s.schema);
    if (!this.idByText.has(s.schema)) this.idByText.set(s.schema, s.id);
    if (s.id > this.maxId) this.maxId = s.id;
  }

  private remove(subject: string, version: number): void {
    const versions = this.subjectsByName.get(subject);
    if (versions === undefined) return;
    versions.delete(version);
    // The id stays resolvable (records written with it must still decode), as in Confluent.
    if (versions.size === 0) this.subjectsByName.delete(subject);
  }

  private advance(next: number): void {
    this.applied = Math.max(this.applied, next);
    const ready = this.waiters.filter((w) => w.offset <= this.applied);
    if (ready.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.offset > this.applied);
    for (const w of ready) w.resolve();
  }

  private fail(e: Error): void {
    this.failure = e;
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.reject(this.unavailable(e));
  }

  private unavailable(e: Error): RacingError {
    return new RacingError('registry_unreachable', `schema topic ${this.topic} is not being read: ${e.message}`, {
      cause: e,
      retriable: true,
    });
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isVersion(v: unknown): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 1;
}
