/**
 * The composition root: opens the data dir's store and wires the log, registry, codecs, processor
 * state, read model and key store. Embedded mode: everything on one classic-level database.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { KeyStore } from '../api/keys.js';
import type { Logger } from '../domain/logger.js';
import { LevelReadModel } from '../state/read-model/level-read-model.js';
import { openLevelStore } from '../state/adapters/level-store.js';
import type { StorePort } from '../state/store-port.js';
import { createEmbeddedLog } from '../streams/adapters/embedded-log.js';
import { createEmbeddedRegistry } from '../streams/adapters/embedded-registry.js';
import { type Codecs, createCodecs } from '../streams/codecs.js';
import type { LogPort } from '../streams/log-port.js';
import type { SchemaRegistryPort } from '../streams/registry-port.js';
import { DEFAULT_TOPIC_SETTINGS, TOPICS, topicSpecs } from '../streams/topics.js';
import type { AnalyticsRow } from '../domain/avro-types.generated.js';
import type { ServiceConfig } from './config.js';

export interface Runtime {
  config: ServiceConfig;
  logger: Logger;
  store: StorePort;
  log: LogPort;
  registry: SchemaRegistryPort;
  codecs: Codecs;
  /** the analytics processor's own state (checkpoint + input positions) */
  processorStore: StorePort;
  view: LevelReadModel;
  keys: KeyStore;
  close(): Promise<void>;
}

export const VIEW_GROUP = 'racing-api-view';

export async function openRuntime(config: ServiceConfig, logger: Logger): Promise<Runtime> {
  mkdirSync(config.dataDir, { recursive: true });
  const store = await openLevelStore(join(config.dataDir, 'db'));
  const log = createEmbeddedLog(store.sub('log/'));
  await log.ensureTopics(topicSpecs({ ...DEFAULT_TOPIC_SETTINGS, partitions: config.partitions }));
  const registry = createEmbeddedRegistry(store.sub('registry/'));
  const codecs = await createCodecs(registry);
  return {
    config,
    logger,
    store,
    log,
    registry,
    codecs,
    processorStore: store.sub('processor/'),
    view: new LevelReadModel(store.sub('view/'), (buf) => codecs.serde.decode<AnalyticsRow>(TOPICS.analytics, buf)),
    keys: new KeyStore(store.sub('keys/')),
    async close() {
      await log.close();
      await store.close();
    },
  };
}
