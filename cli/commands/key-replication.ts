/**
 * Kafka mode: API keys are replicated through the compacted `racing.api-keys.v1` topic (key id ->
 * the stored record: name, dates and the key's SHA-256 hash, never the key), so a key created or
 * revoked on one API replica is honoured by every replica, including one started later.
 */
import type { StoredKey } from '../../api/keys.js';
import type { Runtime } from '../runtime.js';

export function publishKey(rt: Pick<Runtime, 'log' | 'topics'>) {
  return (stored: StoredKey) =>
    rt.log.produce(rt.topics.apiKeys, [{ key: stored.id, value: Buffer.from(JSON.stringify(stored)) }]);
}

/** Applies the keys topic to this replica's key store (until caught up, or tailing until the signal aborts). */
export async function replicateKeys(
  rt: Runtime,
  options: { untilCaughtUp: boolean; signal?: AbortSignal },
): Promise<void> {
  if (!rt.groups.keys) return;
  await rt.log.consume(
    {
      group: rt.groups.keys,
      topics: [rt.topics.apiKeys],
      untilCaughtUp: options.untilCaughtUp,
      ...(options.signal ? { signal: options.signal } : {}),
    },
    async (batch) => {
      for (const r of batch.records) {
        if (r.value) await rt.keys.applyReplicated(JSON.parse(r.value.toString()) as StoredKey);
      }
    },
  );
}
