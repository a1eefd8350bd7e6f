/**
 * Service configuration, read once from the environment, validated (TypeBox), defaulted explicitly and
 * frozen. Commands receive it; nothing else reads process.env.
 */
import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { type ApiConfig, apiConfigFromEnv } from '../api/config.js';
import { type StreamConfig, streamConfigFromEnv } from '../api/stream-routes.js';
import { RacingError } from '../domain/errors.js';
import { CHECKPOINT_SLICE_BYTES } from '../streams/processors/analytics-processor.js';

const ServiceSchema = Type.Object({
  dataDir: Type.String({ minLength: 1 }),
  mode: Type.Union([Type.Literal('embedded'), Type.Literal('kafka')]),
  partitions: Type.Integer({ minimum: 1, maximum: 256 }),
  /** readiness: most records the processor or the view may be behind (RACING_READY_MAX_LAG) */
  readyMaxLag: Type.Integer({ minimum: 0, maximum: 1_000_000_000 }),
  /** readiness: longest time without a processed batch while there is lag (RACING_READY_MAX_STALL_MS) */
  readyMaxStallMs: Type.Integer({ minimum: 1_000, maximum: 86_400_000 }),
  /** when set, GET /metrics needs Authorization: Bearer <token> (METRICS_TOKEN) */
  metricsToken: Type.Union([Type.Null(), Type.String({ minLength: 16 })]),
  replicationFactor: Type.Integer({ minimum: 1, maximum: 16 }),
  demoYears: Type.Integer({ minimum: 1, maximum: 40 }),
  demoScale: Type.Number({ exclusiveMinimum: 0, maximum: 1 }),
  logLevel: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l))),
  topicPrefix: Type.String({ pattern: '^[a-zA-Z0-9._-]{0,100}$' }),
  instanceId: Type.String({ pattern: '^[a-zA-Z0-9._-]{1,100}$' }),
  kafkaBrokers: Type.Array(Type.String({ pattern: '^[^\\s,:]+:\\d{1,5}$' })),
  schemaRegistryUrl: Type.Union([Type.Null(), Type.String({ pattern: '^https?://[^\\s]+$' })]),
  registryHost: Type.String({ minLength: 1 }),
  registryPort: Type.Integer({ minimum: 0, maximum: 65535 }),
  checkpointIntervalMs: Type.Integer({ minimum: 10, maximum: 3_600_000 }),
  /** the checkpoint interval while catching up (process, rebuild, the start's catch-up): fewer rewrites of busy state */
  catchUpCheckpointMs: Type.Integer({ minimum: 10, maximum: 3_600_000 }),
  /** a checkpoint larger than this many bytes is written in slices of about this size (AnalyticsProcessor.checkpoint) */
  checkpointSliceBytes: Type.Integer({ minimum: 1_024, maximum: 1_073_741_824 }),
  /** course snapshots are daily from this date (the first day of a month); null: monthly only */
  dailySnapshotsFrom: Type.Union([Type.Null(), Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])-01$' })]),
  /** the demo's live feed runs while serving (RACING_LIVE; default on in embedded mode, off in Kafka mode) */
  live: Type.Boolean(),
  /** `process` and `rebuild` on Linux: the nice value of the threads other than the event loop's (RACING_HELPER_NICE; 0: unchanged) */
  helperNice: Type.Integer({ minimum: 0, maximum: 19 }),
});

export type ServiceConfig = Readonly<Static<typeof ServiceSchema>> & {
  readonly api: ApiConfig;
  /** the change stream and its change log (RACING_STREAM_*, RACING_CHANGE_LOG_*; api/stream-routes.ts) */
  readonly stream: StreamConfig;
};

type Env = Readonly<Record<string, string | undefined>>;

function int(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new RacingError('config_invalid', `${name} must be a positive integer (got '${raw}')`);
  return Number(raw);
}

function num(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d*\.?\d+$/.test(raw)) throw new RacingError('config_invalid', `${name} must be a number (got '${raw}')`);
  return Number(raw);
}

const NAMES: Record<string, string> = {
  '/dataDir': 'RACING_DATA_DIR',
  '/mode': 'RACING_MODE (embedded or kafka)',
  '/partitions': 'RACING_PARTITIONS (1..256)',
  '/readyMaxLag': 'RACING_READY_MAX_LAG (records, 0..1000000000)',
  '/readyMaxStallMs': 'RACING_READY_MAX_STALL_MS (1000..86400000)',
  '/metricsToken': 'METRICS_TOKEN (at least 16 characters)',
  '/replicationFactor': 'RACING_REPLICATION_FACTOR (1..16)',
  '/demoYears': 'RACING_DEMO_YEARS (1..40)',
  '/demoScale': 'RACING_DEMO_SCALE (a fraction in (0, 1])',
  '/logLevel': 'LOG_LEVEL (fatal, error, warn, info, debug, trace or silent)',
  '/topicPrefix': 'RACING_TOPIC_PREFIX (letters, digits, . _ -)',
  '/instanceId': 'RACING_INSTANCE_ID (letters, digits, . _ -)',
  '/schemaRegistryUrl': 'SCHEMA_REGISTRY_URL (http(s)://host:port)',
  '/registryHost': 'REGISTRY_HOST',
  '/registryPort': 'REGISTRY_PORT (0..65535)',
  '/checkpointIntervalMs': 'RACING_CHECKPOINT_MS (10..3600000)',
  '/catchUpCheckpointMs': 'RACING_CATCHUP_CHECKPOINT_MS (10..3600000)',
  '/checkpointSliceBytes': 'RACING_CHECKPOINT_SLICE_BYTES (1024..1073741824)',
  '/dailySnapshotsFrom': 'RACING_DAILY_SNAPSHOTS_FROM (YYYY-MM-01, the first day of a month)',
  '/live': 'RACING_LIVE (1 or 0)',
  '/helperNice': 'RACING_HELPER_NICE (0..19)',
};

/** RACING_LIVE: 1/true/on or 0/false/off; unset: on in embedded mode, off in Kafka mode. */
function live(env: Env, mode: string): boolean | string {
  const raw = env['RACING_LIVE']?.trim().toLowerCase();
  if (raw === undefined || raw === '') return mode === 'embedded';
  if (['1', 'true', 'on', 'yes'].includes(raw)) return true;
  if (['0', 'false', 'off', 'no'].includes(raw)) return false;
  return raw; // rejected by the schema check with the setting's name
}

/**
 * RACING_DATA_DIR (./data), RACING_MODE (embedded), RACING_PARTITIONS (4), RACING_REPLICATION_FACTOR (1),
 * RACING_DEMO_YEARS (3), RACING_DEMO_SCALE (0.6), LOG_LEVEL (info), RACING_TOPIC_PREFIX (''), RACING_INSTANCE_ID (host name plus
 * a hash of the data dir: stable across restarts), KAFKA_BROKERS (host:port,...; required in Kafka
 * mode), SCHEMA_REGISTRY_URL (required in Kafka mode), REGISTRY_HOST (127.0.0.1), REGISTRY_PORT (8081),
 * plus the API's HOST, PORT and RATE_LIMIT_PER_MINUTE.
 */
export function serviceConfigFromEnv(env: Env): ServiceConfig {
  const dataDir = resolve(env['RACING_DATA_DIR']?.trim() || './data');
  const checkpointIntervalMs = int(env, 'RACING_CHECKPOINT_MS', 5000);
  const brokers = (env['KAFKA_BROKERS'] ?? '')
    .split(',')
    .map((b) => b.trim())
    .filter((b) => b !== '');
  const candidate = {
    dataDir,
    mode: env['RACING_MODE']?.trim() || 'embedded',
    partitions: int(env, 'RACING_PARTITIONS', 4),
    readyMaxLag: int(env, 'RACING_READY_MAX_LAG', 1_000),
    readyMaxStallMs: int(env, 'RACING_READY_MAX_STALL_MS', 30_000),
    metricsToken: env['METRICS_TOKEN']?.trim() || null,
    replicationFactor: int(env, 'RACING_REPLICATION_FACTOR', 1),
    demoYears: int(env, 'RACING_DEMO_YEARS', 3),
    demoScale: num(env, 'RACING_DEMO_SCALE', 0.6),
    logLevel: env['LOG_LEVEL']?.trim() || 'info',
    topicPrefix: env['RACING_TOPIC_PREFIX']?.trim() ?? '',
    instanceId:
      env['RACING_INSTANCE_ID']?.trim() ||
      `${hostname().replace(/[^a-zA-Z0-9._-]/g, '-')}-${createHash('sha256').update(dataDir).digest('hex').slice(0, 8)}`,
    kafkaBrokers: brokers,
    schemaRegistryUrl: env['SCHEMA_REGISTRY_URL']?.trim() || null,
    registryHost: env['REGISTRY_HOST']?.trim() || '127.0.0.1',
    registryPort: int(env, 'REGISTRY_PORT', 8081),
    checkpointIntervalMs,
    // the live interval unless set: a catch-up batch takes longer than 5 s, so it checkpoints (and evicts
    // what went cold) after every batch; longer intervals held more state for no time saved
    // (docs/performance-history.md, "A checkpoint after every catch-up batch")
    catchUpCheckpointMs: int(env, 'RACING_CATCHUP_CHECKPOINT_MS', checkpointIntervalMs),
    checkpointSliceBytes: int(env, 'RACING_CHECKPOINT_SLICE_BYTES', CHECKPOINT_SLICE_BYTES),
    dailySnapshotsFrom: env['RACING_DAILY_SNAPSHOTS_FROM']?.trim() || null,
    live: live(env, env['RACING_MODE']?.trim() || 'embedded'),
    // the event loop's thread first (cli/thread-priority.ts)
    helperNice: int(env, 'RACING_HELPER_NICE', 19),
  };
  if (!Value.Check(ServiceSchema, candidate)) {
    const problems = [...Value.Errors(ServiceSchema, candidate)].map((e) => {
      const top = `/${e.path.split('/')[1] ?? ''}`;
      if (top === '/kafkaBrokers')
        return `KAFKA_BROKERS must be host:port[,host:port...] (got '${env['KAFKA_BROKERS']}')`;
      return `${NAMES[top] ?? e.path}: ${e.message}`;
    });
    throw new RacingError('config_invalid', `invalid configuration: ${[...new Set(problems)].join('; ')}`);
  }
  if (candidate.mode === 'kafka') {
    if (brokers.length === 0) {
      throw new RacingError(
        'config_invalid',
        'RACING_MODE=kafka needs KAFKA_BROKERS=host:port[,host:port...] (try `npm run kafka:up`)',
      );
    }
    if (candidate.schemaRegistryUrl === null) {
      throw new RacingError(
        'config_invalid',
        "RACING_MODE=kafka needs SCHEMA_REGISTRY_URL (a Confluent-compatible registry; `racing registry` serves the project's own)",
      );
    }
  }
  return Object.freeze({
    ...(candidate as Static<typeof ServiceSchema>),
    api: apiConfigFromEnv(env),
    stream: streamConfigFromEnv(env),
  });
}
