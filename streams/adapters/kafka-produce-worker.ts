/**
 * The Kafka log's producer in its own thread (kafka-produce-thread.ts starts it): kafkajs encodes every
 * record, batch and request on the thread that sends them, which in a replay is most of what Kafka mode
 * adds to the processor's produce step. Here that work runs beside the processor's event loop.
 *
 * Messages from the parent:
 * - `{ op: 'send', id, epoch, topic, values, length, ends, meta }`: the first `length` bytes of `values` hold the
 *   records' values end to end (`ends[i]` where value i ends; -1 for a tombstone), `meta[i]` the record's
 *   key, partition, timestamp and headers. Answered with `{ id, ok: true, buffer }` or `{ id, ok: false,
 *   error, buffer }` (the kafkajs error's name, type, message, retriable flag and causes, as
 *   kafka-errors.ts reads them; `buffer` is `values` handed back for the next sends). Sends are made one
 *   after the other in arrival order. `epoch` counts the parent's resets: a send of an epoch before the
 *   last reset, or of the epoch of a send that failed, is answered with a failure and not sent, so that
 *   nothing queued behind a failed send reaches the topic after it (the parent resets after a failure).
 * - `{ op: 'reset', epoch }`: the producer is dropped at once (after a failed or timed-out send, so that
 *   no sequence number of the old one is reused, and a send that hangs holds up nothing after it) and a
 *   new one connected by the next send; sends of earlier epochs still queued are given up.
 * - `{ op: 'close' }`: disconnects; answered with `{ closed: true }`.
 * kafkajs's log entries go to the parent as `{ log }` for its logger.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { Kafka, type Message, type Producer, type logLevel as kafkaLogLevel } from 'kafkajs';
import { givenUp, newProducer } from './kafka-producer.js';

export interface ProduceWorkerData {
  clientId: string;
  brokers: string[];
  connectionTimeout: number;
  logLevel: kafkaLogLevel;
}

export interface SendMeta {
  key: string;
  partition: number;
  timestamp: string;
  headers?: Record<string, string>;
}

export interface SerializedError {
  name: string;
  message: string;
  type?: string;
  code?: number;
  retriable?: boolean;
  cause?: SerializedError;
}

type Request =
  | {
      op: 'send';
      id: number;
      epoch: number;
      topic: string;
      values: ArrayBuffer;
      length: number;
      ends: Int32Array;
      meta: SendMeta[];
    }
  | { op: 'reset'; epoch: number }
  | { op: 'close' };

const port = parentPort!;
const data = workerData as ProduceWorkerData;
const kafka = new Kafka({
  clientId: data.clientId,
  brokers: data.brokers,
  connectionTimeout: data.connectionTimeout,
  requestTimeout: 30_000,
  retry: { initialRetryTime: 200, retries: 5, maxRetryTime: 5_000 },
  logLevel: data.logLevel,
  logCreator: () => (entry) => {
    try {
      port.postMessage({ log: { namespace: entry.namespace, level: entry.level, log: entry.log } });
    } catch {
      // an entry that cannot be cloned (a function in its fields) goes as its message alone
      port.postMessage({
        log: { namespace: entry.namespace, level: entry.level, log: { message: entry.log.message } },
      });
    }
  },
});

/** The producer and its connection; a new one after a reset (the old one's sequence numbers are never reused). */
let current: { producer: Producer; connected: Promise<void> } | undefined;
/** Sends one after the other, in arrival order. */
let queue: Promise<unknown> = Promise.resolve();
/** The epoch of the last reset: sends of earlier epochs are given up. */
let epoch = 0;
/** The latest epoch in which a send failed: its later sends are not made. */
let failedEpoch = -1;

function serialize(e: unknown, depth = 0): SerializedError {
  const x = (e ?? {}) as {
    name?: unknown;
    message?: unknown;
    type?: unknown;
    code?: unknown;
    retriable?: unknown;
    cause?: unknown;
  };
  const out: SerializedError = {
    name: typeof x.name === 'string' ? x.name : 'Error',
    message: typeof x.message === 'string' ? x.message : String(e),
  };
  if (typeof x.type === 'string') out.type = x.type;
  if (typeof x.code === 'number') out.code = x.code;
  if (typeof x.retriable === 'boolean') out.retriable = x.retriable;
  if (x.cause !== undefined && x.cause !== e && depth < 10) out.cause = serialize(x.cause, depth + 1);
  return out;
}

async function send(req: Extract<Request, { op: 'send' }>): Promise<void> {
  if (req.epoch < epoch) throw givenUp('not sent: the producer was reset after it was asked for', 'NotSent');
  if (req.epoch <= failedEpoch) throw givenUp('not sent: a send before it failed', 'NotSent');
  try {
    await produce(req);
  } catch (e) {
    failedEpoch = Math.max(failedEpoch, req.epoch);
    throw e;
  }
}

async function produce(req: Extract<Request, { op: 'send' }>): Promise<void> {
  const values = Buffer.from(req.values, 0, req.length);
  const messages: Message[] = new Array(req.meta.length);
  let start = 0;
  for (let i = 0; i < req.meta.length; i++) {
    const m = req.meta[i]!;
    const end = req.ends[i]!;
    const message: Message & { partition: number } = {
      key: m.key,
      value: end < 0 ? null : values.subarray(start, end),
      partition: m.partition,
      timestamp: m.timestamp,
    };
    if (end >= 0) start = end;
    if (m.headers !== undefined) message.headers = m.headers;
    messages[i] = message;
  }
  if (current === undefined) {
    const producer = newProducer(kafka);
    const connected = producer.connect();
    connected.catch(() => undefined);
    current = { producer, connected };
  }
  const { producer, connected } = current;
  await connected;
  await producer.send({ topic: req.topic, messages, acks: -1 });
}

/**
 * Drops the producer at once, without waiting for the send in progress: after a send that got no
 * answer in time, that send may never end, and the sends after it must not wait behind it. The old
 * producer is disconnected in the background; a late answer of its send goes to a request the parent
 * has already given up.
 */
function reset(): Promise<void> {
  const old = current;
  current = undefined;
  queue = Promise.resolve();
  return old ? old.producer.disconnect().catch(() => undefined) : Promise.resolve();
}

port.on('message', (req: Request) => {
  if (req.op === 'send') {
    queue = queue.then(() =>
      // the values' buffer goes back with the answer, for the parent's next sends (kafkajs has copied
      // the values into its own request by the time the send has ended)
      send(req).then(
        () => port.postMessage({ id: req.id, ok: true, buffer: req.values }, [req.values]),
        (e: unknown) =>
          port.postMessage({ id: req.id, ok: false, error: serialize(e), buffer: req.values }, [req.values]),
      ),
    );
  } else if (req.op === 'reset') {
    epoch = Math.max(epoch, req.epoch);
    void reset();
  } else {
    void reset().then(() => {
      port.postMessage({ closed: true });
      port.close();
    });
  }
});
