/**
 * The Kafka log's producer settings, shared by the log's two senders: the producer on the caller's event
 * loop (InlineSender, here) and the one in a thread of its own (ProduceThread, kafka-produce-thread.ts).
 */
import { type Kafka, type Message, Partitioners, type Producer } from 'kafkajs';
import { toRacingError } from './kafka-errors.js';

/** What the Kafka log sends one produce request's records through. */
export interface RecordSender {
  /**
   * True when sends may be made before the earlier ones are answered: they are then sent in the order
   * they were made, and none made before a reset is sent after a send before it failed (it fails
   * instead). False: the caller awaits each send before the next.
   */
  readonly queues: boolean;
  /** Produces `messages` (each with its partition) to `topic`; resolves when the broker acknowledged them. */
  send(topic: string, messages: (Message & { partition: number })[]): Promise<void>;
  /** After a failed or unanswered send: the next send goes through a new producer. */
  reset(): void;
  close(): Promise<void>;
}

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

/** The producer on the caller's event loop (RACING_KAFKA_PRODUCE_THREAD=0). */
export class InlineSender implements RecordSender {
  /** kafkajs's producer does not keep concurrent sends in order */
  readonly queues = false;
  private producer: Producer | undefined;

  constructor(private readonly kafka: Kafka) {}

  /** Connects a producer now (the log's start-up checks that the brokers answer). */
  async connect(): Promise<void> {
    await this.current();
  }

  async send(topic: string, messages: (Message & { partition: number })[]): Promise<void> {
    await (await this.current()).send({ topic, messages, acks: -1 });
  }

  reset(): void {
    const producer = this.producer;
    this.producer = undefined;
    producer?.disconnect().catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.producer?.disconnect();
  }

  private async current(): Promise<Producer> {
    if (this.producer !== undefined) return this.producer;
    const producer = newProducer(this.kafka);
    try {
      await producer.connect();
    } catch (e) {
      throw toRacingError(e, 'connecting the Kafka producer');
    }
    this.producer = producer;
    return producer;
  }
}

/**
 * A send a sender that queues gave up (reset after another send failed) or did not make (queued behind
 * one that failed): retriable, and the reset that follows the failure that caused it is that failure's.
 */
export function givenUp(message: string, name: 'SendGivenUp' | 'NotSent'): Error {
  const e = new Error(message) as Error & { retriable: boolean };
  e.name = name;
  e.retriable = true;
  return e;
}

/** Whether `e` (or what it wraps) is a send given up or not made (see givenUp). */
export function isGivenUp(e: unknown): boolean {
  let current = e as { name?: unknown; cause?: unknown } | null | undefined;
  for (let i = 0; i < 10 && current; i++) {
    if (current.name === 'SendGivenUp' || current.name === 'NotSent') return true;
    current = current.cause as typeof current;
  }
  return false;
}
