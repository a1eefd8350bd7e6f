// The LogPort contract and the Kafka-only behaviour of the Kafka log, against the real broker that
// test/integration/kafka-global-setup.ts starts (or KAFKA_BROKERS names).
import { createServer } from 'node:net';
import type { Worker } from 'node:worker_threads';
import { logLevel } from 'kafkajs';
import { pino } from 'pino';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { silentLogger } from '../../domain/logger.js';
import { defaultPartition } from '../../domain/murmur2.js';
import { createEmbeddedLog } from '../../streams/adapters/embedded-log.js';
import { createKafkaLog, type KafkaLog } from '../../streams/adapters/kafka-log.js';
import { toRacingError } from '../../streams/adapters/kafka-errors.js';
import { pinoLogCreator } from '../../streams/adapters/kafka-logging.js';
import { ProduceThread } from '../../streams/adapters/kafka-produce-thread.js';
import type { LogPort, LogRecord, TopicPartition } from '../../streams/log-port.js';
import { memoryStore } from '../support/memory-store.js';
import { describeLog, uniqueName, waitUntil } from './log-contract.js';

const brokers = inject('kafkaBrokers');
if (!brokers) {
  console.warn('[kafka] kafka-log.test.ts SKIPPED: no Kafka broker (java/mvn missing; see docs/kafka-local.md)');
}

/** The log as the service opens it: its producer in a thread of its own (kafka-produce-thread.ts). */
const connect = () =>
  createKafkaLog({ brokers: brokers.split(','), clientId: 'kafka-log-test', logger: silentLogger() });
/** The same log with its producer on the caller's event loop (RACING_KAFKA_PRODUCE_THREAD=0). */
const connectInline = () =>
  createKafkaLog({
    brokers: brokers.split(','),
    clientId: 'kafka-log-test-inline',
    logger: silentLogger(),
    produceThread: false,
  });

const text = (s: string) => Buffer.from(s, 'utf8');
const valueText = (r: LogRecord) => (r.value === null ? null : r.value.toString('utf8'));
const tp = (r: { partition: number; offset: number }) => `${r.partition}:${r.offset}`;

async function readPartition(log: LogPort, topic: string, partition: number): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  let offset = 0;
  for (;;) {
    const got = await log.read(topic, partition, offset, 100);
    if (got.length === 0) return out;
    out.push(...got);
    offset = got.at(-1)!.offset + 1;
  }
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe.skipIf(!brokers)('Kafka log', () => {
  describeLog('kafka', async () => {
    const log = await connect();
    return { log, cleanup: () => log.close() };
  });
  describeLog('kafka, producer on the event loop', async () => {
    const log = await connectInline();
    return { log, cleanup: () => log.close() };
  });

  // Both placements of the producer: a send the broker refuses fails with the mapped error (through the
  // thread, the kafkajs error's type survives), and the next produce of the same log goes through on a
  // new producer, its records readable after the refused one left nothing behind.
  describe.each([
    ['in its thread', connect],
    ['on the event loop', connectInline],
  ])('a refused produce, producer %s', (_, open) => {
    it('rejects with validation_failed naming the reason, and the next produce succeeds', async () => {
      const log = await open();
      try {
        const t = uniqueName('refused');
        await log.ensureTopics([{ name: t, partitions: 1, compacted: false }]);
        // over the broker's max.message.bytes (1 MiB by default): MESSAGE_TOO_LARGE, not retried
        const huge = Buffer.alloc(2 * 1_048_576, 7);
        const refused = log.produce(t, [{ key: 'big', value: huge }]);
        await expect(refused).rejects.toMatchObject({ code: 'validation_failed' });
        await expect(refused).rejects.toThrow(/larger than the max message size|too large/i);
        await log.produce(t, [
          { key: 'a', value: text('after'), headers: { h: 'x' } },
          { key: 'b', value: null },
        ]);
        const got = await readPartition(log, t, 0);
        expect(got.map((r) => [r.key, valueText(r), r.offset])).toEqual([
          ['a', 'after', 0],
          ['b', null, 1],
        ]);
        expect(got[0]!.headers).toEqual({ h: 'x' });
      } finally {
        await log.close();
      }
    });
  });

  describe('Kafka specifics', () => {
    let opened: KafkaLog[] = [];
    const open = async () => {
      const log = await connect();
      opened.push(log);
      return log;
    };
    afterEach(async () => {
      await Promise.all(opened.map((l) => l.close()));
      opened = [];
    });

    it('a produce made while one before it is refused fails retriable, unsent; the next one goes through', async () => {
      const log = await open();
      const t = uniqueName('behind-refused');
      await log.ensureTopics([{ name: t, partitions: 1, compacted: false }]);
      const huge = Buffer.alloc(2 * 1_048_576, 7);
      // both handed to the produce thread before the broker refuses the first
      const refused = log.produce(t, [{ key: 'big', value: huge }]);
      const behind = log.produce(t, [{ key: 'behind', value: text('x') }]);
      await expect(refused).rejects.toMatchObject({ code: 'validation_failed' });
      await expect(behind).rejects.toMatchObject({ retriable: true });
      await log.produce(t, [{ key: 'after', value: text('y') }]);
      expect((await readPartition(log, t, 0)).map((r) => r.key)).toEqual(['after']);
    });

    it('consumers of one group share the partitions across rebalances, each record delivered once', async () => {
      const log = await open();
      const t = uniqueName('shared');
      const group = uniqueName('group');
      await log.ensureTopics([{ name: t, partitions: 4, compacted: false }]);
      const batch = (from: number) =>
        Array.from({ length: 100 }, (_, i) => ({ key: `k${from + i}`, value: text(String(from + i)) }));
      const member = () => ({
        assigned: [] as readonly TopicPartition[],
        seen: [] as LogRecord[],
        controller: new AbortController(),
        done: Promise.resolve(),
        failed: undefined as unknown,
      });
      type Member = ReturnType<typeof member>;
      const [a, b] = [member(), member()];
      const failed = () => a.failed !== undefined || b.failed !== undefined;
      const start = (m: Member) => {
        m.done = log.consume(
          {
            group,
            topics: [t],
            signal: m.controller.signal,
            maxBatchRecords: 30,
            startOffsets: async (assigned) => {
              m.assigned = assigned;
              return new Map();
            },
          },
          async ({ records }) => {
            m.seen.push(...records);
          },
        );
        m.done.catch((e: unknown) => {
          m.failed = e;
        });
      };
      const owned = (m: Member) => new Set(m.assigned.map((x) => x.partition));

      // A alone owns all four partitions and consumes (and commits) the backlog.
      await log.produce(t, batch(0));
      start(a);
      await waitUntil(() => a.seen.length >= 100 || failed(), 'the first member to consume the backlog');
      expect(a.assigned).toHaveLength(4);

      // B joins: the group rebalances to two partitions each; new records go to their owner only.
      start(b);
      await waitUntil(
        () => failed() || (a.assigned.length === 2 && b.assigned.length === 2),
        'the group to split the partitions two and two',
      );
      const split = { a: owned(a), b: owned(b) };
      expect(new Set([...split.a, ...split.b]).size).toBe(4);
      await log.produce(t, batch(100));
      await waitUntil(() => a.seen.length + b.seen.length >= 200 || failed(), 'the second hundred records');

      // B leaves: A takes its partitions back and continues from B's commits.
      b.controller.abort();
      await b.done;
      await waitUntil(() => a.assigned.length === 4 || failed(), 'the remaining member to own every partition');
      await log.produce(t, batch(200));
      await waitUntil(() => a.seen.length + b.seen.length >= 300 || failed(), 'the third hundred records');
      a.controller.abort();
      await a.done;

      const all = [...a.seen, ...b.seen];
      expect(all).toHaveLength(300);
      expect(new Set(all.map(tp)).size).toBe(300);
      const second = (m: Member) => m.seen.filter((r) => Number(valueText(r)) >= 100 && Number(valueText(r)) < 200);
      for (const r of second(a)) expect(split.a.has(r.partition)).toBe(true);
      for (const r of second(b)) expect(split.b.has(r.partition)).toBe(true);
      expect(second(b).length).toBeGreaterThan(0);
      // Within A's run, a partition it gave away and got back resumes after B's records, never before.
      for (let p = 0; p < 4; p++) {
        const offsets = a.seen.filter((r) => r.partition === p).map((r) => r.offset);
        expect(offsets).toEqual([...offsets].sort((x, y) => x - y));
      }
      expect(await log.committed(group, t)).toEqual(await log.endOffsets(t));
    });

    it('a failing handler leaves the group, so the group can be reset at once', async () => {
      const log = await open();
      const t = uniqueName('failing');
      const group = uniqueName('group');
      await log.ensureTopics([{ name: t, partitions: 2, compacted: false }]);
      await log.produce(t, [{ key: 'k', value: text('v') }]);
      const boom = new Error('handler failed');
      await expect(log.consume({ group, topics: [t] }, () => Promise.reject(boom))).rejects.toBe(boom);
      await log.resetGroup(group, [t]);
      expect(await log.committed(group, t)).toEqual([0, 0]);
    });

    it('fails with broker_unreachable naming the brokers when nothing listens, within the timeout', async () => {
      const address = `127.0.0.1:${await freePort()}`;
      const started = Date.now();
      const attempt = createKafkaLog({ brokers: [address], logger: silentLogger(), connectTimeoutMs: 2_000 });
      await expect(attempt).rejects.toMatchObject({ code: 'broker_unreachable', retriable: true });
      await expect(attempt).rejects.toThrow(address);
      expect(Date.now() - started).toBeLessThan(2_000 + 1_000);
    });

    it('creates topics with the spec config and leaves an existing topic config alone', async () => {
      const log = await open();
      const compacted = uniqueName('configured');
      const plain = uniqueName('plain');
      await log.ensureTopics([
        {
          name: compacted,
          partitions: 3,
          compacted: true,
          config: { 'min.compaction.lag.ms': '86400000', 'delete.retention.ms': '86400000' },
        },
        { name: plain, partitions: 1, compacted: false },
      ]);
      const config = await log.topicConfig(compacted);
      expect(config).toMatchObject({
        'cleanup.policy': 'compact',
        'min.compaction.lag.ms': '86400000',
        'delete.retention.ms': '86400000',
      });
      expect(await log.partitions(compacted)).toBe(3);
      // Non-compacted topics keep records until truncated, as the embedded log does.
      expect(await log.topicConfig(plain)).toMatchObject({ 'cleanup.policy': 'delete', 'retention.ms': '-1' });
      await log.ensureTopics([
        { name: compacted, partitions: 3, compacted: true, config: { 'delete.retention.ms': '1' } },
      ]);
      expect((await log.topicConfig(compacted))['delete.retention.ms']).toBe('86400000');
      await expect(
        log.ensureTopics([
          { name: uniqueName('contradiction'), partitions: 1, compacted: true, config: { 'cleanup.policy': 'delete' } },
        ]),
      ).rejects.toMatchObject({ code: 'validation_failed' });
    });

    it('places every key on the same partition as the embedded log (murmur2)', async () => {
      const log = await open();
      const embedded = createEmbeddedLog(memoryStore());
      const t = uniqueName('placement');
      const spec = { name: t, partitions: 7, compacted: false };
      await log.ensureTopics([spec]);
      await embedded.ensureTopics([spec]);
      const records = Array.from({ length: 200 }, (_, i) => ({ key: `race-${i * 37}:horse-${i}`, value: text('x') }));
      await log.produce(t, records);
      await embedded.produce(t, records);
      const placement = async (l: LogPort) => {
        const out = new Map<string, number>();
        for (let p = 0; p < 7; p++) for (const r of await readPartition(l, t, p)) out.set(r.key, r.partition);
        return out;
      };
      const kafka = await placement(log);
      expect(kafka.size).toBe(200);
      expect(kafka).toEqual(await placement(embedded));
      expect(new Set(kafka.values()).size).toBe(7);
      for (const [key, p] of kafka) expect(p).toBe(defaultPartition(key, 7));
      await embedded.close();
    });

    it('reads and consumes across records the broker compacted away', async () => {
      const log = await open();
      const t = uniqueName('compacted');
      // Tiny segments and an eager cleaner: every produce call below fills a segment of its own.
      await log.ensureTopics([
        {
          name: t,
          partitions: 1,
          compacted: true,
          config: { 'segment.bytes': '100', 'min.cleanable.dirty.ratio': '0.01', 'min.compaction.lag.ms': '0' },
        },
      ]);
      for (let version = 1; version <= 5; version++) {
        await log.produce(
          t,
          ['a', 'b', 'c'].map((key) => ({
            key,
            value: key === 'b' && version === 5 ? null : text(`${key}-${version}`),
          })),
        );
      }
      await log.produce(t, [{ key: 'z', value: text('z') }]);
      await waitUntil(
        async () => (await log.read(t, 0, 0, 100)).length === 4,
        'the log cleaner to compact the inactive segments',
        45_000,
      );
      const expected = [
        [12, 'a', 'a-5'],
        [13, 'b', null],
        [14, 'c', 'c-5'],
        [15, 'z', 'z'],
      ];
      expect((await log.read(t, 0, 0, 100)).map((r) => [r.offset, r.key, valueText(r)])).toEqual(expected);
      expect((await log.read(t, 0, 3, 2)).map((r) => r.offset)).toEqual([12, 13]);
      const consumed: LogRecord[] = [];
      const group = uniqueName('group');
      await log.consume({ group, topics: [t], untilCaughtUp: true, maxBatchRecords: 3 }, async ({ records }) => {
        consumed.push(...records);
      });
      expect(consumed.map((r) => [r.offset, r.key, valueText(r)])).toEqual(expected);
      expect(await log.committed(group, t)).toEqual([16]);
    }, 60_000);

    it('truncates a compacted topic and restores its configuration', async () => {
      const log = await open();
      const t = uniqueName('truncate-compacted');
      await log.ensureTopics([
        { name: t, partitions: 2, compacted: true, config: { 'min.compaction.lag.ms': '5000' } },
      ]);
      await log.produce(t, [
        { key: 'a', value: text('1'), partition: 0 },
        { key: 'b', value: text('2'), partition: 1 },
        { key: 'a', value: text('3'), partition: 0 },
      ]);
      const before = await log.topicConfig(t);
      await log.truncate(t);
      expect(await log.startOffsets(t)).toEqual([2, 1]);
      expect(await log.read(t, 0, 0, 10)).toEqual([]);
      const after = await log.topicConfig(t);
      expect(after['cleanup.policy']).toBe('compact');
      expect(after).toEqual(before);
    });

    it('resetGroup refuses while a member runs, forgets only the named topics once it stopped', async () => {
      const log = await open();
      const [t1, t2] = [uniqueName('reset-a'), uniqueName('reset-b')];
      const group = uniqueName('group');
      await log.ensureTopics([
        { name: t1, partitions: 1, compacted: false },
        { name: t2, partitions: 1, compacted: false },
      ]);
      await log.produce(t1, [{ key: 'k', value: text('1') }]);
      await log.produce(t2, [{ key: 'k', value: text('2') }]);
      const controller = new AbortController();
      let seen = 0;
      const running = log.consume({ group, topics: [t1, t2], signal: controller.signal }, async ({ records }) => {
        seen += records.length;
      });
      await waitUntil(() => seen === 2, 'both records');
      await expect(log.resetGroup(group, [t1])).rejects.toMatchObject({ code: 'validation_failed' });
      controller.abort();
      await running;
      await log.resetGroup(group, [t1]);
      expect(await log.committed(group, t1)).toEqual([0]);
      expect(await log.committed(group, t2)).toEqual([1]);
    });

    it('untilCaughtUp on empty partitions resolves without a batch, and close refuses later calls', async () => {
      const log = await open();
      const t = uniqueName('empty');
      await log.ensureTopics([{ name: t, partitions: 3, compacted: false }]);
      let batches = 0;
      await log.consume({ group: uniqueName('group'), topics: [t], untilCaughtUp: true }, async () => {
        batches += 1;
      });
      expect(batches).toBe(0);
      await log.close();
      await log.close();
      await expect(log.endOffsets(t)).rejects.toMatchObject({ code: 'internal' });
    });
  });
});

describe("the Kafka log's produce thread", () => {
  const data = (address: string) => ({
    clientId: 'produce-thread-test',
    brokers: [address],
    connectionTimeout: 500,
    logLevel: logLevel.NOTHING,
  });
  const message = (key: string) => ({ key, value: text(key), partition: 0, timestamp: '1700000000000' });

  it('a send with no broker listening rejects as broker_unreachable; close ends the thread', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    const thread = new ProduceThread(data(address), silentLogger(), silentLogger());
    const failed = await thread.send('nowhere', [message('k')]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(Error);
    expect(toRacingError(failed, 'produce to nowhere')).toMatchObject({ code: 'broker_unreachable', retriable: true });
    await thread.close();
  });

  it.skipIf(!brokers)('sends queued behind a failed one are not made; after a reset the next is', async () => {
    const admin = await connect();
    const t = uniqueName('poisoned');
    // the broker refuses a record over 1,000 bytes (MESSAGE_TOO_LARGE, not retried)
    await admin.ensureTopics([{ name: t, partitions: 1, compacted: false, config: { 'max.message.bytes': '1000' } }]);
    const thread = new ProduceThread(data(brokers.split(',')[0]!), silentLogger(), silentLogger());
    const outcome = (p: Promise<void>) =>
      p.then(
        () => 'sent',
        (e: unknown) => (e as Error).message,
      );
    try {
      await thread.send(t, [message('first')]);
      const big = { key: 'big', value: Buffer.alloc(5_000, 1), partition: 0, timestamp: '1700000000000' };
      // both handed over before the first is answered
      const refused = outcome(thread.send(t, [big]));
      const behind = outcome(thread.send(t, [message('behind')]));
      expect(await refused).not.toBe('sent');
      expect(await behind).toMatch(/not sent: a send before it failed/);
      thread.reset();
      await thread.send(t, [message('after')]);
      expect((await readPartition(admin, t, 0)).map((r) => r.key)).toEqual(['first', 'after']);
    } finally {
      await thread.close();
      await admin.close();
    }
  });

  it.skipIf(!brokers)('a thread that dies fails its pending send; the next send starts a new thread', async () => {
    const admin = await connect();
    const t = uniqueName('thread');
    await admin.ensureTopics([{ name: t, partitions: 1, compacted: false }]);
    const thread = new ProduceThread(data(brokers.split(',')[0]!), silentLogger(), silentLogger());
    try {
      await thread.send(t, [message('one')]);
      const worker = (thread as unknown as { worker: Worker }).worker;
      const pending = thread.send(t, [message('lost?')]).then(
        () => 'sent',
        (e: unknown) => (e as Error).message,
      );
      await worker.terminate();
      const outcome = await pending;
      // either it was acknowledged before the thread ended, or it failed naming the thread's end
      if (outcome !== 'sent') expect(outcome).toMatch(/produce thread exited/);
      await thread.send(t, [message('two')]);
      expect((thread as unknown as { worker: Worker }).worker).not.toBe(worker);
      const keys = (await readPartition(admin, t, 0)).map((r) => r.key);
      expect(keys[0]).toBe('one');
      expect(keys.at(-1)).toBe('two');
    } finally {
      await thread.close();
      await admin.close();
    }
  });
});

describe('kafkajs logs in the pino logger', () => {
  type Entry = Parameters<ReturnType<ReturnType<typeof pinoLogCreator>>>[0];
  // kafkajs levels: ERROR 1, WARN 2, INFO 4, DEBUG 5.
  const entry = (level: number, message: string, extra: Record<string, unknown> = {}) =>
    ({
      namespace: 'Connection',
      level,
      label: '',
      log: { timestamp: '', logger: 'kafkajs', message, ...extra },
    }) as Entry;

  it('keeps real errors at error and puts retried coordinator and routine messages lower', () => {
    const lines: { level: number; msg: string; kafkajs: string }[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    const write = pinoLogCreator(logger)(5 as Entry['level']);
    write(
      entry(1, 'Response GroupCoordinator(key: 10, version: 2)', { error: 'The group coordinator is not available' }),
    );
    write(
      entry(1, 'Response Produce(key: 0, version: 7)', {
        error: 'The request included a message larger than the max message size',
      }),
    );
    write(entry(1, 'Connection error: connect ECONNREFUSED 127.0.0.1:1'));
    write(
      entry(2, 'The group is rebalancing, re-joining', { error: 'The group is rebalancing, so a rejoin is needed' }),
    );
    write(entry(4, 'Pausing fetching from 1 topics'));
    write(entry(4, 'Consumer has joined the group'));
    write(entry(5, 'Request Fetch(key: 1, version: 11)'));
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [20, 'Response GroupCoordinator(key: 10, version: 2)'],
      [50, 'Response Produce(key: 0, version: 7)'],
      [40, 'Connection error: connect ECONNREFUSED 127.0.0.1:1'],
      [30, 'The group is rebalancing, re-joining'],
      [20, 'Pausing fetching from 1 topics'],
      [30, 'Consumer has joined the group'],
      [20, 'Request Fetch(key: 1, version: 11)'],
    ]);
    expect(lines.every((l) => l.kafkajs === 'Connection')).toBe(true);
  });
});
