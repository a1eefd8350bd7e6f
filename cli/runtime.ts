/**
 * The composition root: opens the data dir's store and wires the log, registry, codecs, processor
 * state, read model and key store. Embedded mode: everything on one classic-level database. Kafka mode:
 * the log and the registry are remote; the data dir keeps only this instance's processor state, read
 * model and keys (caches of the topics).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { KeyStore } from '../api/keys.js';
import type { AnalyticsRow } from '../domain/avro-types.generated.js';
import { RacingError } from '../domain/errors.js';
import type { Logger } from '../domain/logger.js';
import { openLevelStore } from '../state/adapters/level-store.js';
import { LevelReadModel } from '../state/read-model/level-read-model.js';
import type { StorePort } from '../state/store-port.js';
import { createEmbeddedLog } from '../streams/adapters/embedded-log.js';
import { createEmbeddedRegistry } from '../streams/adapters/embedded-registry.js';
import { type Codecs, createCodecs } from '../streams/codecs.js';
import type { LogPort } from '../streams/log-port.js';
import { ANALYTICS_GROUP } from '../streams/processors/analytics-processor.js';
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
  /** consumer groups of this instance */
  groups: { analytics: string; view: string };
  /** the analytics processor's own state (checkpoint + input positions) */
  processorStore: StorePort;
  view: LevelReadModel;
  keys: KeyStore;
  close(): Promise<void>;
}

export const VIEW_GROUP = 'racing-api-view';

export async function openRuntime(config: ServiceConfig, logger: Logger): Promise<Runtime> {
  if (config.mode === 'kafka') {
    throw new RacingError('config_invalid', 'RACING_MODE=kafka is not available in this version; use embedded');
  }
  mkdirSync(config.dataDir, { recursive: true });
  const store = await openLevelStore(join(config.dataDir, 'db'));
  const topics = topicNames(config.topicPrefix);
  const log = createEmbeddedLog(store.sub('log/'));
  await log.ensureTopics(topicSpecs(topics, { ...DEFAULT_TOPIC_SETTINGS, partitions: config.partitions }));
  const registry = createEmbeddedRegistry(store.sub('registry/'));
  const codecs = await createCodecs(registry, topics);
  return {
    config,
    logger,
    store,
    log,
    registry,
    codecs,
    topics,
    groups: { analytics: ANALYTICS_GROUP, view: VIEW_GROUP },
    processorStore: store.sub('processor/'),
    view: new LevelReadModel(store.sub('view/'), (buf) => codecs.serde.decode<AnalyticsRow>(topics.analytics, buf)),
    keys: new KeyStore(store.sub('keys/')),
    async close() {
      await log.close();
      await store.close();
    },
  };
}
