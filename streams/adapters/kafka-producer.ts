/** The Kafka log's producer settings, shared by the log (kafka-log.ts) and its produce thread. */
import { type Kafka, Partitioners, type Producer } from 'kafkajs';

export function newProducer(kafka: Kafka): Producer {
  // Idempotent with acks=all: a retried batch is never written twice. Retries are bounded so that a
  // produce fails (broker_unreachable) instead of hanging through an outage; after a failure the
  // producer is replaced, because kafkajs would otherwise reuse sequence numbers the broker may
  // already hold and the broker would drop the next batch as a duplicate.
  return kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: { initialRetryTime: 300, retries: 8, maxRetryTime: 5_000 },
  });
}
