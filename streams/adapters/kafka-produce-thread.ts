/**
 * The parent's side of the Kafka log's produce thread (kafka-produce-worker.ts). `send` hands one
 * produce request's records over (their values copied end to end into one transferred buffer) and
 * resolves when the broker has acknowledged them, or rejects with an Error carrying the kafkajs error's
 * name, type, retriable flag and causes, so that kafka-errors.ts maps it as it maps the error itself.
 * A thread that dies fails what it had pending; the next send starts a new one.
 */
import { Worker } from 'node:worker_threads';
import type { Message } from 'kafkajs';
import { logLevel } from 'kafkajs';
import type { Logger } from '../../domain/logger.js';
import { pinoLogCreator } from './kafka-logging.js';
import type { ProduceWorkerData, SendMeta, SerializedError } from './kafka-produce-worker.js';
import { givenUp, type RecordSender } from './kafka-producer.js';

/** The produce thread's young generation, MB (see startWorker). */
const WORKER_YOUNG_GENERATION_MB = 48;
/** Send buffers are whole multiples of this (1 MiB); the thread hands them back for the next sends. */
const BUFFER_STEP = 1_048_576;
const SPARE_BUFFERS = 8;

type Outcome = { resolve: () => void; reject: (e: Error) => void };

/**
 * The worker next to this module: compiled (.js) from dist/; from the TypeScript sources (the tests),
 * a small bootstrap registers tsx in the thread first.
 */
function startWorker(data: ProduceWorkerData): Worker {
  // The thread encodes one produce request at a time (the others wait as transferred buffers): a
  // small young generation, not the one the process's flags give the main thread
  // (`--max-semi-space-size=64`, sized for the engine's churn).
  const resourceLimits = { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB };
  if (!import.meta.url.endsWith('.ts')) {
    return new Worker(new URL('./kafka-produce-worker.js', import.meta.url), { workerData: data, resourceLimits });
  }
  const source = new URL('./kafka-produce-worker.ts', import.meta.url).href;
  const bootstrap = `import('tsx/esm/api').then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); });`;
  return new Worker(bootstrap, { eval: true, workerData: data, resourceLimits });
}

function revive(s: SerializedError): Error {
  const e = new Error(s.message) as Error & { type?: string; code?: number; retriable?: boolean };
  e.name = s.name;
  if (s.type !== undefined) e.type = s.type;
  if (s.code !== undefined) e.code = s.code;
  if (s.retriable !== undefined) e.retriable = s.retriable;
  if (s.cause !== undefined) e.cause = revive(s.cause);
  return e;
}

export class ProduceThread implements RecordSender {
  /** the thread sends in arrival order and sends nothing asked for before a reset after a failure */
  readonly queues = true;
  private worker: Worker | undefined;
  /** resets so far: each send carries it, and the thread gives up sends from before the last reset */
  private epoch = 0;
  private readonly pending = new Map<number, Outcome>();
  private nextId = 1;
  /** buffers the thread handed back (see takeBuffer), at most SPARE_BUFFERS */
  private readonly spare: ArrayBuffer[] = [];
  private closing: Promise<void> | undefined;
  private readonly log: ReturnType<ReturnType<typeof pinoLogCreator>>;

  constructor(
    private readonly data: ProduceWorkerData,
    private readonly logger: Logger,
    kafkaLogger: Logger,
  ) {
    this.log = pinoLogCreator(kafkaLogger)(logLevel.NOTHING);
  }

  /** Produces `messages` (each with its partition) to `topic`: one kafkajs `send` in the thread. */
  send(topic: string, messages: readonly (Message & { partition: number })[]): Promise<void> {
    const worker = this.current();
    let total = 0;
    for (const m of messages) if (m.value != null) total += (m.value as Buffer).length;
    const buffer = this.takeBuffer(total);
    const values = new Uint8Array(buffer, 0, total);
    const ends = new Int32Array(messages.length);
    const meta: SendMeta[] = new Array(messages.length);
    let at = 0;
    for (let i = 0; i < messages.length; i++) {
      const m = messages[i]!;
      const v = m.value as Buffer | null | undefined;
      if (v == null) ends[i] = -1;
      else {
        values.set(v, at);
        at += v.length;
        ends[i] = at;
      }
      const item: SendMeta = { key: String(m.key), partition: m.partition, timestamp: String(m.timestamp) };
      if (m.headers !== undefined) item.headers = m.headers as Record<string, string>;
      meta[i] = item;
    }
    const id = this.nextId++;
    return new Promise<void>((resolve, reject) => {
      // The thread holds the process open only while it has sends pending.
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ op: 'send', id, epoch: this.epoch, topic, values: buffer, length: total, ends, meta }, [
        buffer,
      ]);
    });
  }

  /**
   * A buffer of at least `bytes` for a send's values: one the thread handed back after an earlier send,
   * else a new one. The same few buffers go back and forth, so a replay does not allocate and free a
   * request's worth of memory on each send (with glibc's moving mmap threshold, such churn between two
   * threads kept hundreds of MB of freed memory in the process).
   */
  private takeBuffer(bytes: number): ArrayBuffer {
    for (let i = 0; i < this.spare.length; i++) {
      if (this.spare[i]!.byteLength >= bytes) return this.spare.splice(i, 1)[0]!;
    }
    return new ArrayBuffer(Math.ceil(Math.max(bytes, 1) / BUFFER_STEP) * BUFFER_STEP);
  }

  /**
   * After a failed or abandoned send: the thread drops its producer at once (the next send connects a
   * new one), and the sends still waiting for an answer here are failed, so that one that never gets
   * an answer holds neither the caller nor the process.
   */
  reset(): void {
    this.epoch++;
    const w = this.worker;
    if (!w) return;
    w.postMessage({ op: 'reset', epoch: this.epoch });
    const abandoned = givenUp('the Kafka produce thread was reset: the send was given up', 'SendGivenUp');
    for (const p of this.pending.values()) p.reject(abandoned);
    this.pending.clear();
    w.unref();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      const w = this.worker;
      if (!w) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => void w.terminate().then(() => resolve()), 10_000);
        w.ref();
        w.once('exit', () => {
          clearTimeout(timer);
          resolve();
        });
        w.postMessage({ op: 'close' });
      });
    })();
    return this.closing;
  }

  private current(): Worker {
    if (this.worker) return this.worker;
    const w = startWorker(this.data);
    w.on(
      'message',
      (m: {
        id?: number;
        ok?: boolean;
        error?: SerializedError;
        log?: unknown;
        closed?: boolean;
        buffer?: ArrayBuffer;
      }) => {
        if (m.log !== undefined) {
          this.log(m.log as Parameters<typeof this.log>[0]);
          return;
        }
        if (m.buffer !== undefined && this.spare.length < SPARE_BUFFERS) this.spare.push(m.buffer);
        if (m.id === undefined) return;
        const p = this.pending.get(m.id);
        if (!p) return;
        this.pending.delete(m.id);
        if (this.pending.size === 0) w.unref();
        if (m.ok) p.resolve();
        else p.reject(revive(m.error!));
      },
    );
    const fail = (why: string) => {
      if (this.worker === w) this.worker = undefined;
      const error = new Error(`the Kafka produce thread ${why}`);
      for (const p of this.pending.values()) p.reject(error);
      this.pending.clear();
    };
    w.on('error', (e) => {
      this.logger.error({ err: e }, 'Kafka produce thread failed');
      fail(`failed: ${e.message}`);
    });
    w.on('exit', (code) => fail(`exited (code ${code})`));
    w.unref();
    this.worker = w;
    return w;
  }
}
