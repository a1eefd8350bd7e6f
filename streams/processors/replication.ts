/**
 * Replication of small records through a compacted topic (Kafka mode): API keys today, and any other
 * per-replica store that every replica must agree on. A writer publishes each changed record under its
 * id as JSON; every replica applies the topic to its own store, until caught up or tailing. The records
 * are opaque here: the store that owns them decides how to apply one.
 */
import type { LogPort } from '../log-port.js';

/** A publisher of records to a compacted topic, keyed by the record's id. */
export function replicationPublisher<T extends { id: string }>(log: LogPort, topic: string) {
  return async (record: T): Promise<void> => {
    await log.produce(topic, [{ key: record.id, value: Buffer.from(JSON.stringify(record)) }]);
  };
}

/** Applies a replication topic to a local store, until caught up or, without that, until the signal aborts. */
export async function replicate<T>(
  log: LogPort,
  options: { group: string; topic: string; untilCaughtUp: boolean; signal?: AbortSignal },
  apply: (record: T) => Promise<void>,
): Promise<void> {
  await log.consume(
    {
      group: options.group,
      topics: [options.topic],
      untilCaughtUp: options.untilCaughtUp,
      ...(options.signal ? { signal: options.signal } : {}),
    },
    async (batch) => {
      for (const r of batch.records) if (r.value) await apply(JSON.parse(r.value.toString()) as T);
    },
  );
}
