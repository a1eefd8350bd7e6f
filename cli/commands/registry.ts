/**
 * `racing registry`: the project's Confluent-compatible schema registry (REST subset), storing schemas
 * in the compacted `_schemas` topic of the Kafka cluster. See docs/registry.md.
 */
import { RacingError } from '../../domain/errors.js';
import type { Logger } from '../../domain/logger.js';
import { buildRegistryServer, createLogSchemaStore, startRegistryServer } from '../../streams/registry-server/index.js';
import type { ServiceConfig } from '../config.js';
import { openKafkaLog } from '../runtime.js';

export async function serveRegistry(config: ServiceConfig, logger: Logger): Promise<string> {
  if (config.kafkaBrokers.length === 0) {
    throw new RacingError(
      'config_invalid',
      'racing registry stores schemas in Kafka: set KAFKA_BROKERS=host:port (the embedded default keeps its registry in the data dir)',
    );
  }
  const log = await openKafkaLog(config, logger);
  const store = await createLogSchemaStore(log, `${config.topicPrefix}_schemas`, { logger });
  const app = buildRegistryServer({ store, logger });
  const url = await startRegistryServer(app, { host: config.registryHost, port: config.registryPort });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await app.close();
    await store.close();
    await log.close();
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  return url;
}
