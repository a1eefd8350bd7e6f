/** Topic configuration and record deletion for the Kafka log (admin-side helpers of kafka-log.ts). */
import kafkajs, { type Admin } from 'kafkajs';
import { RacingError } from '../../domain/errors.js';
import type { TopicSpec } from '../log-port.js';
import { deleteRecords, type KafkaJsCluster, partitionErrorTypes } from './kafka-internals.js';

// Not among the names Node's CommonJS analysis finds in kafkajs, so read from the module object.
const { ConfigResourceTypes, ConfigSource } = kafkajs;

/** How long the broker may take to apply a widened cleanup.policy before DeleteRecords is accepted. */
const POLICY_CHANGE_TIMEOUT_MS = 15_000;

export interface TopicConfigEntry {
  value: string;
  /** kafkajs ConfigSource: TOPIC_CONFIG (1) for settings of the topic itself, others for defaults. */
  source: number;
}

/**
 * Broker-side settings of a new topic: the spec's config, the cleanup policy from `compacted`, and
 * `retention.ms=-1` on deleting topics unless the spec sets it. The embedded log keeps records until
 * truncate, and event times go back to 1988, so the broker's 7-day default would delete them at once.
 */
export function topicConfigEntries(spec: TopicSpec): { name: string; value: string }[] {
  const entries: Record<string, string> = { ...spec.config };
  const policy = entries['cleanup.policy'] ?? (spec.compacted ? 'compact' : 'delete');
  const policies = policy.split(',').map((p) => p.trim());
  if (policies.includes('compact') !== spec.compacted) {
    throw new RacingError(
      'validation_failed',
      `topic ${spec.name}: cleanup.policy=${policy} contradicts compacted=${spec.compacted}`,
    );
  }
  entries['cleanup.policy'] = policy;
  if (policies.includes('delete')) entries['retention.ms'] ??= '-1';
  return Object.entries(entries).map(([name, value]) => ({ name, value: String(value) }));
}

/** Every configuration entry of a topic as the broker reports it (describeConfigs). */
export async function describeTopicConfig(admin: Admin, topic: string): Promise<Map<string, TopicConfigEntry>> {
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic }],
  });
  const out = new Map<string, TopicConfigEntry>();
  for (const e of resources[0]?.configEntries ?? []) {
    out.set(e.configName, { value: e.configValue, source: e.configSource });
  }
  return out;
}

/**
 * Deletes the records below the given offsets (DeleteRecords). Kafka refuses that on a topic whose
 * cleanup.policy lacks `delete`, so for a compacted topic the policy is widened for the call, with
 * retention switched off so that the wider policy cannot delete anything by age, and restored after.
 * A crash in between leaves `compact,delete` with unlimited retention, which deletes nothing.
 */
export async function deleteAllRecords(
  admin: Admin,
  cluster: KafkaJsCluster,
  topic: string,
  partitions: readonly { partition: number; offset: number }[],
): Promise<void> {
  const config = await describeTopicConfig(admin, topic);
  const policy = config.get('cleanup.policy')?.value ?? 'delete';
  if (policy.split(',').includes('delete')) {
    await deleteRecords(cluster, topic, partitions);
    return;
  }
  const own = [...config]
    .filter(([, e]) => e.source === ConfigSource.TOPIC_CONFIG)
    .map(([name, e]) => ({ name, value: e.value }));
  const widened = [
    ...own.filter((e) => !['cleanup.policy', 'retention.ms', 'retention.bytes'].includes(e.name)),
    { name: 'cleanup.policy', value: `${policy},delete` },
    { name: 'retention.ms', value: '-1' },
    { name: 'retention.bytes', value: '-1' },
  ];
  await alterTopicConfig(admin, topic, widened);
  try {
    // The broker applies a config change asynchronously and refuses DeleteRecords until it has.
    const deadline = Date.now() + POLICY_CHANGE_TIMEOUT_MS;
    for (;;) {
      try {
        await deleteRecords(cluster, topic, partitions);
        return;
      } catch (e) {
        if (!partitionErrorTypes(e).includes('POLICY_VIOLATION') || Date.now() > deadline) throw e;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    await alterTopicConfig(admin, topic, own);
  }
}

/** AlterConfigs, which is what kafkajs implements, replaces the topic's whole set of own settings. */
async function alterTopicConfig(admin: Admin, topic: string, entries: { name: string; value: string }[]) {
  await admin.alterConfigs({
    validateOnly: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configEntries: entries }],
  });
}
