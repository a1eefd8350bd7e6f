/** Maps kafkajs errors onto the service's error family (RacingError codes in docs/errors.md). */
import { RacingError } from '../../domain/errors.js';

const UNREACHABLE = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSRequestTimeoutError',
  'KafkaJSBrokerNotFound',
  'KafkaJSNoBrokerAvailableError',
  'KafkaJSLockTimeout',
  'KafkaJSGroupCoordinatorNotFound',
]);

const INVALID_INPUT = new Set([
  'INVALID_TOPIC_EXCEPTION',
  'INVALID_PARTITIONS',
  'INVALID_REPLICATION_FACTOR',
  'INVALID_CONFIG',
  'MESSAGE_TOO_LARGE',
  'RECORD_LIST_TOO_LARGE',
  'INVALID_RECORD',
  'POLICY_VIOLATION',
]);

/** The innermost kafkajs cause: retries wrap the last attempt's error in KafkaJSNumberOfRetriesExceeded. */
function root(e: unknown): unknown {
  let current = e;
  for (let i = 0; i < 10; i++) {
    const next = (current as { cause?: unknown } | null)?.cause ?? undefined;
    if (next === undefined || next === current) break;
    current = next;
  }
  return current;
}

/**
 * A RacingError for a failed kafkajs call: `unknown_topic`, `broker_unreachable` (retriable),
 * `validation_failed` for input the broker rejected, else `internal`. RacingErrors pass through.
 */
export function toRacingError(e: unknown, what: string, details: Record<string, unknown> = {}): RacingError {
  if (e instanceof RacingError) return e;
  const cause = root(e) as { name?: string; type?: string; message?: string; retriable?: boolean };
  const message = cause?.message ?? String(e);
  if (cause?.type === 'UNKNOWN_TOPIC_OR_PARTITION') {
    return new RacingError('unknown_topic', `${what}: unknown topic or partition`, { cause: e, details });
  }
  if (UNREACHABLE.has(cause?.name ?? '') || UNREACHABLE.has((e as Error | null)?.name ?? '')) {
    return new RacingError('broker_unreachable', `${what}: Kafka broker unreachable (${message})`, {
      cause: e,
      retriable: true,
      details,
    });
  }
  if (INVALID_INPUT.has(cause?.type ?? '')) {
    return new RacingError('validation_failed', `${what}: ${message}`, { cause: e, details });
  }
  return new RacingError('internal', `${what}: ${message}`, {
    cause: e,
    retriable: cause?.retriable === true,
    details,
  });
}
