/**
 * The composition root: opens the data dir's store and wires the log, registry, codecs, processor
 * state, read model and key store. Embedded mode: everything on one classic-level database. Kafka mode:
 * the log and the registry are remote; the data dir keeps only this instance's processor state, read
 * model and keys (caches of the topics).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { AccountStore, type StoredAccount } from '../state/credentials/account-store.js';
import { KeyStore, type KeyUsage, type StoredKey } from '../state/credentials/key-store.js';
import { SessionStore, type StoredSession } from '../state/credentials/session-store.js';
import type { AnalyticsRow } from '../domain/avro-types.generated.js';
import type { Logger } from '../domain/logger.js';
import { openLevelStore } from '../state/adapters/level-store.js';
import { LevelReadModel } from '../state/read-model/level-read-model.js';
import type { StorePort } from '../state/store-port.js';
import { createEmbeddedLog } from '../streams/adapters/embedded-log.js';
import { createEmbeddedRegistry } from '../streams/adapters/embedded-registry.js';
import { type Codecs, createCodecs } from '../streams/codecs.js';
import type { LogPort } from '../streams/log-port.js';
import { ANALYTICS_GROUP } from '../streams/processors/analytics-processor.js';
import type { PartitionOwnership } from '../streams/processors/ownership.js';
import { replicate, replicationPublisher } from '../streams/processors/replication.js';
import type { SchemaRegistryPort } from '../streams/registry-port.js';
import { DEFAULT_TOPIC_SETTINGS, type TopicNames, topicNames, topicSpecs } from '../streams/topics.js';
import type { ServiceConfig } from './config.js';

export interface Runtime {
  config: ServiceConfig;
  logger: Logger;
  store: StorePort;
  log: LogPort;
  registry: SchemaRegistryPort;
  codecs: Codecs;
  topics: TopicNames;
  /** consumer groups: this instance's own, and (Kafka mode) the shared group that assigns race partitions */
  groups: {
    analytics: string;
    view: string;
    owners?: string;
    keys?: string;
    accounts?: string;
    sessions?: string;
    keyUsage?: string;
  };
  /** aborted on close (background members such as the ownership group) */
  lifetime: AbortController;
  /** Kafka mode: this instance's membership of the group that assigns race partitions (joined once) */
  ownership?: PartitionOwnership;
  /** the analytics processor's own state (checkpoint + input positions) */
  processorStore: StorePort;
  view: LevelReadModel;
  keys: KeyStore;
  accounts: AccountStore;
  sessions: SessionStore;
  close(): Promise<void>;
}

export const VIEW_GROUP = 'racing-api-view';

/** Kafka mode: applies the keys topic to this replica's key store (until caught up, or tailing until the signal aborts). */
export async function replicateKeys(
  rt: Pick<Runtime, 'log' | 'topics' | 'groups' | 'keys'>,
  options: { untilCaughtUp: boolean; signal?: AbortSignal },
): Promise<void> {
  if (!rt.groups.keys) return;
  await replicate<StoredKey>(rt.log, { group: rt.groups.keys, topic: rt.topics.apiKeys, ...options }, (k) =>
    rt.keys.applyReplicated(k),
  );
}

/**
 * Kafka mode: applies every credentials topic (keys, accounts, sessions, key usage) to this replica's
 * stores, so a key, account, sign-in, sign-out or access change made on any replica holds on all.
 */
export async function replicateCredentials(
  rt: Pick<Runtime, 'log' | 'topics' | 'groups' | 'keys' | 'accounts' | 'sessions'>,
  options: { untilCaughtUp: boolean; signal?: AbortSignal },
): Promise<void> {
  const { groups, topics, log } = rt;
  const tasks: Promise<void>[] = [replicateKeys(rt, options)];
  if (groups.accounts)
    tasks.push(
      replicate<StoredAccount>(log, { group: groups.accounts, topic: topics.accounts, ...options }, (a) =>
        rt.accounts.applyReplicated(a),
      ),
    );
  if (groups.sessions)
    tasks.push(
      replicate<StoredSession>(log, { group: groups.sessions, topic: topics.sessions, ...options }, (s) =>
        rt.sessions.applyReplicated(s),
      ),
    );
  if (groups.keyUsage)
    tasks.push(
      replicate<KeyUsage>(log, { group: groups.keyUsage, topic: topics.keyUsage, ...options }, (u) =>
        rt.keys.applyReplicatedUsage(u),
      ),
    );
  await Promise.all(tasks);
}

/** The Kafka log of a Kafka-mode configuration (kafkajs is loaded only in Kafka mode). */
export async function openKafkaLog(config: ServiceConfig, logger: Logger): Promise<LogPort> {
  const { createKafkaLog } = await import('../streams/adapters/kafka-log.js');
  return createKafkaLog({
    brokers: config.kafkaBrokers,
    clientId: `racing-${config.instanceId}`,
    logger,
    replicationFactor: config.replicationFactor,
  });
}

export async function openRuntime(config: ServiceConfig, logger: Logger): Promise<Runtime> {
  mkdirSync(config.dataDir, { recursive: true });
  const store = await openLevelStore(join(config.dataDir, 'db'));
  const topics = topicNames(config.topicPrefix);
  const settings = { ...DEFAULT_TOPIC_SETTINGS, partitions: config.partitions };
  let log: LogPort | undefined;
  let registry: SchemaRegistryPort;
  let groups: Runtime['groups'];
  try {
    if (config.mode === 'kafka') {
      log = await openKafkaLog(config, logger);
      await log.ensureTopics(topicSpecs(topics, settings));
      const { createConfluentRegistry } = await import('../streams/adapters/confluent-registry.js');
      registry = await createConfluentRegistry({ url: config.schemaRegistryUrl!, logger });
      // Each instance reads every input partition (its own group) for its aggregates; the shared
      // group racing-analytics decides which race partitions each instance emits (see ownership.ts).
      const p = config.topicPrefix;
      groups = {
        analytics: `${p}${ANALYTICS_GROUP}.${config.instanceId}`,
        view: `${p}${VIEW_GROUP}.${config.instanceId}`,
        owners: `${p}${ANALYTICS_GROUP}`,
        keys: `${p}racing-api-keys.${config.instanceId}`,
        accounts: `${p}racing-api-accounts.${config.instanceId}`,
        sessions: `${p}racing-api-sessions.${config.instanceId}`,
        keyUsage: `${p}racing-api-key-usage.${config.instanceId}`,
      };
    } else {
      log = createEmbeddedLog(store.sub('log/'));
      await log.ensureTopics(topicSpecs(topics, settings));
      registry = createEmbeddedRegistry(store.sub('registry/'));
      groups = { analytics: ANALYTICS_GROUP, view: VIEW_GROUP };
    }
  } catch (e) {
    await log?.close();
    await store.close();
    throw e;
  }
  const openLog: LogPort = log;
  const codecs = await createCodecs(registry, topics);
  const lifetime = new AbortController();
  return {
    lifetime,
    config,
    logger,
    store,
    log: openLog,
    registry,
    codecs,
    topics,
    groups,
    processorStore: store.sub('processor/'),
    view: new LevelReadModel(store.sub('view/'), (buf) => codecs.serde.decode<AnalyticsRow>(topics.analytics, buf), {
      retention: config.stream.retention,
    }),
    keys: new KeyStore(
      store.sub('keys/'),
      config.mode === 'kafka'
        ? {
            publish: replicationPublisher<StoredKey>(openLog, topics.apiKeys),
            publishUsage: replicationPublisher<KeyUsage>(openLog, topics.keyUsage),
          }
        : {},
    ),
    accounts: new AccountStore(
      store.sub('accounts/'),
      config.mode === 'kafka' ? { publish: replicationPublisher<StoredAccount>(openLog, topics.accounts) } : {},
    ),
    sessions: new SessionStore(
      store.sub('sessions/'),
      config.mode === 'kafka' ? { publish: replicationPublisher<StoredSession>(openLog, topics.sessions) } : {},
    ),
    async close() {
      lifetime.abort();
      await openLog.close();
      await store.close();
    },
  };
}
