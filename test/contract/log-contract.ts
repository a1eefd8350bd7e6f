/**
 * The LogPort contract: the embedded log and the Kafka adapter (against a real broker) both run it.
 * Hence every test uses its own topics and groups, waits on conditions with deadlines, and asserts
 * compaction only in the weak form a broker guarantees (the latest value per key survives and a key's
 * history is never reordered), never on when the broker's cleaner runs.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { defaultPartition } from '../../domain/murmur2.js';
import type {
  ConsumeOptions,
  LogBatch,
  LogPort,
  LogRecord,
  OutRecord,
  TopicPartition,
} from '../../streams/log-port.js';

/** Creates a log for one test; `cleanup` closes it and whatever backs it. */
export type LogFactory = () => Promise<{ log: LogPort; cleanup: () => Promise<void> }>;

let sequence = 0;
const runId = `${process.pid}-${Date.now().toString(36)}`;

/** A topic or group name no other test (or earlier run against the same broker) has used. */
export function uniqueName(label: string): string {
  sequence += 1;
  return `contract.${label}.${runId}.${sequence}`;
}

/** Polls `condition` until it holds; fails with `what` after `timeoutMs`. */
export async function waitUntil(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await delay(20);
  }
}

const text = (s: string) => Buffer.from(s, 'utf8');
const valueText = (r: LogRecord) => (r.value === null ? null : r.value.toString('utf8'));
const tp = (r: { partition: number; offset: number }) => `${r.partition}:${r.offset}`;

async function readAll(log: LogPort, topic: string): Promise<LogRecord[]> {
  const out: LogRecord[] = [];
  const starts = await log.startOffsets(topic);
  const ends = await log.endOffsets(topic);
  for (const [p, end] of ends.entries()) {
    let offset = starts[p] ?? 0;
    while (offset < end) {
      const got = await log.read(topic, p, offset, 500);
      if (got.length === 0) break;
      out.push(...got);
      offset = got[got.length - 1]!.offset + 1;
    }
  }
  return out;
}

async function consumeAll(
  log: LogPort,
  options: Omit<ConsumeOptions, 'untilCaughtUp'>,
): Promise<{ records: LogRecord[]; batches: LogBatch[] }> {
  const batches: LogBatch[] = [];
  await log.consume({ ...options, untilCaughtUp: true }, async (batch) => {
    batches.push(batch);
  });
  return { records: batches.flatMap((b) => [...b.records]), batches };
}

/** Registers the LogPort contract suite for one adapter. */
export function describeLog(name: string, factory: LogFactory): void {
  describe(`LogPort contract: ${name}`, () => {
    let log: LogPort;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ log, cleanup } = await factory());
    });
    afterEach(async () => {
      await cleanup();
    });

    async function topic(label: string, partitions: number, compacted = false): Promise<string> {
      const t = uniqueName(label);
      await log.ensureTopics([{ name: t, partitions, compacted }]);
      return t;
    }

    it('round-trips key, value, timestamp, headers and null-value tombstones', async () => {
      const t = await topic('roundtrip', 1);
      const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      await log.produce(t, [
        { key: 'race-1', value: text('card'), timestamp: 1_700_000_000_000, headers: { source: 'test', 'x-é': 'ß' } },
        { key: 'race-2', value: null, timestamp: 1_700_000_000_001 },
        { key: 'race-3', value: binary, timestamp: 1_600_000_000_000 },
      ]);
      const records = await log.read(t, 0, 0, 10);
      expect(records).toHaveLength(3);
      const [a, b, c] = records as [LogRecord, LogRecord, LogRecord];
      expect(a).toMatchObject({ topic: t, partition: 0, offset: 0, key: 'race-1', timestamp: 1_700_000_000_000 });
      expect(valueText(a)).toBe('card');
      expect(a.headers).toEqual({ source: 'test', 'x-é': 'ß' });
      expect(b).toMatchObject({ offset: 1, key: 'race-2', value: null, timestamp: 1_700_000_000_001, headers: {} });
      // Timestamps are event time as given, even when older than earlier records.
      expect(c).toMatchObject({ offset: 2, key: 'race-3', timestamp: 1_600_000_000_000 });
      expect(c.value?.equals(binary)).toBe(true);
    });

    it('stamps records without a timestamp with the wall clock', async () => {
      const t = await topic('walltime', 1);
      const before = Date.now();
      await log.produce(t, [{ key: 'k', value: text('v') }]);
      const after = Date.now();
      const [r] = await log.read(t, 0, 0, 1);
      expect(r?.timestamp).toBeGreaterThanOrEqual(before);
      expect(r?.timestamp).toBeLessThanOrEqual(after);
    });

    it('reads from an offset up to max records', async () => {
      const t = await topic('readrange', 1);
      await log.produce(
        t,
        Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: text(String(i)), partition: 0 })),
      );
      expect((await log.read(t, 0, 3, 4)).map((r) => r.offset)).toEqual([3, 4, 5, 6]);
      expect((await log.read(t, 0, 8, 100)).map(valueText)).toEqual(['8', '9']);
      expect(await log.read(t, 0, 10, 5)).toEqual([]);
    });

    it("partitions keys with murmur2 like Kafka's default partitioner and honours explicit partitions", async () => {
      const t = await topic('murmur', 6);
      expect(await log.partitions(t)).toBe(6);
      const keys = Array.from({ length: 60 }, (_, i) => `race-${i}:horse-${i * 13}`);
      await log.produce(
        t,
        keys.map((key) => ({ key, value: text(key) })),
      );
      await log.produce(t, [{ key: keys[0]!, value: text('again') }]);
      const records = await readAll(log, t);
      expect(records).toHaveLength(61);
      for (const r of records) expect(r.partition).toBe(defaultPartition(r.key, 6));
      expect(new Set(records.map((r) => r.partition)).size).toBeGreaterThan(1);

      const forced = (defaultPartition('pinned', 6) + 1) % 6;
      await log.produce(t, [{ key: 'pinned', value: text('x'), partition: forced }]);
      const pinned = (await readAll(log, t)).filter((r) => r.key === 'pinned');
      expect(pinned.map((r) => r.partition)).toEqual([forced]);
    });

    it('keeps produce order within each partition with dense offsets', async () => {
      const t = await topic('order', 3);
      for (let call = 0; call < 3; call++) {
        const batch: OutRecord[] = Array.from({ length: 100 }, (_, i) => ({
          key: `key-${i % 10}`,
          value: text(String(call * 100 + i)),
        }));
        await log.produce(t, batch);
      }
      const records = await readAll(log, t);
      expect(records).toHaveLength(300);
      for (const p of [0, 1, 2]) {
        const offsets = records.filter((r) => r.partition === p).map((r) => r.offset);
        expect(offsets).toEqual(offsets.map((_, i) => i));
      }
      for (let k = 0; k < 10; k++) {
        const seq = records.filter((r) => r.key === `key-${k}`).map((r) => Number(valueText(r)));
        expect(seq).toEqual(Array.from({ length: 30 }, (_, i) => k + i * 10));
      }
    });

    it('writes produces made before the earlier ones resolved in call order', async () => {
      const t = await topic('pipelined', 3);
      // About 800 KB a partition per call: the Kafka log cuts each into requests of 512 KiB a partition.
      const calls = 6;
      const perCall = 396;
      const pad = 'x'.repeat(6_000);
      const sends = Array.from({ length: calls }, (_, call) =>
        log.produce(
          t,
          Array.from({ length: perCall }, (_, i) => ({
            key: `key-${i % 12}`,
            value: text(`${call * perCall + i} ${pad}`),
          })),
        ),
      );
      await Promise.all(sends);
      const records = await readAll(log, t);
      expect(records).toHaveLength(calls * perCall);
      for (let k = 0; k < 12; k++) {
        const seq = records.filter((r) => r.key === `key-${k}`).map((r) => Number(valueText(r)!.split(' ')[0]));
        expect(seq).toEqual(Array.from({ length: (calls * perCall) / 12 }, (_, i) => k + i * 12));
      }
    });

    it('reports start and end offsets per partition', async () => {
      const t = await topic('offsets', 2);
      expect(await log.endOffsets(t)).toEqual([0, 0]);
      expect(await log.startOffsets(t)).toEqual([0, 0]);
      await log.produce(t, [
        { key: 'a', value: text('1'), partition: 0 },
        { key: 'b', value: text('2'), partition: 0 },
        { key: 'c', value: text('3'), partition: 0 },
        { key: 'd', value: text('4'), partition: 1 },
      ]);
      expect(await log.endOffsets(t)).toEqual([3, 1]);
      expect(await log.startOffsets(t)).toEqual([0, 0]);
    });

    it('ensureTopics is idempotent and leaves an existing topic as it is', async () => {
      const t = await topic('ensure', 2);
      await log.produce(t, [{ key: 'k', value: text('v'), partition: 1 }]);
      await log.ensureTopics([{ name: t, partitions: 5, compacted: true }]);
      expect(await log.partitions(t)).toBe(2);
      expect(await log.endOffsets(t)).toEqual([0, 1]);
    });

    it('consume untilCaughtUp delivers every record exactly once across partitions and topics, then commits', async () => {
      const t1 = await topic('consume-a', 4);
      const t2 = await topic('consume-b', 2);
      const group = uniqueName('group');
      await log.produce(
        t1,
        Array.from({ length: 250 }, (_, i) => ({ key: `a${i}`, value: text(`a${i}`), timestamp: 1_000 + i })),
      );
      await log.produce(
        t2,
        Array.from({ length: 50 }, (_, i) => ({ key: `b${i}`, value: text(`b${i}`), timestamp: 1_000 + i })),
      );
      const { records, batches } = await consumeAll(log, { group, topics: [t1, t2], maxBatchRecords: 40 });
      for (const b of batches) {
        expect(b.records.length).toBeGreaterThan(0);
        expect(b.records.length).toBeLessThanOrEqual(40);
      }
      for (const t of [t1, t2]) {
        const mine = records.filter((r) => r.topic === t);
        const ids = mine.map(tp);
        expect(new Set(ids).size).toBe(ids.length);
        expect(mine.length).toBe(t === t1 ? 250 : 50);
        const ends = await log.endOffsets(t);
        for (const [p, end] of ends.entries()) {
          const offsets = mine.filter((r) => r.partition === p).map((r) => r.offset);
          expect(offsets).toEqual(Array.from({ length: end }, (_, i) => i));
        }
        expect(await log.committed(group, t)).toEqual(ends);
      }
    });

    it('a second consume of the same group resumes after the committed offsets', async () => {
      const t = await topic('resume', 3);
      const group = uniqueName('group');
      await log.produce(
        t,
        Array.from({ length: 20 }, (_, i) => ({ key: `k${i}`, value: text(`old-${i}`) })),
      );
      expect((await consumeAll(log, { group, topics: [t] })).records).toHaveLength(20);
      await log.produce(
        t,
        Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: text(`new-${i}`) })),
      );
      const second = await consumeAll(log, { group, topics: [t] });
      expect(second.records.map(valueText).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `new-${i}`).sort());
      const third = await consumeAll(log, { group, topics: [t] });
      expect(third.batches).toEqual([]);
    });

    it('startOffsets callback overrides the committed offsets of the partitions it names', async () => {
      const t = await topic('startoffsets', 2);
      const group = uniqueName('group');
      await log.produce(t, [
        ...Array.from({ length: 10 }, (_, i) => ({ key: `x${i}`, value: text(`p0-${i}`), partition: 0 })),
        ...Array.from({ length: 10 }, (_, i) => ({ key: `y${i}`, value: text(`p1-${i}`), partition: 1 })),
      ]);
      await consumeAll(log, { group, topics: [t] });
      let assigned: readonly TopicPartition[] = [];
      const { records } = await consumeAll(log, {
        group,
        topics: [t],
        startOffsets: async (parts) => {
          assigned = parts;
          return new Map([[`${t}:0`, 4]]);
        },
      });
      expect([...assigned].sort((a, b) => a.partition - b.partition)).toEqual([
        { topic: t, partition: 0 },
        { topic: t, partition: 1 },
      ]);
      expect(records.map(tp)).toEqual(['0:4', '0:5', '0:6', '0:7', '0:8', '0:9']);
    });

    it('resetGroup forgets committed offsets so the next consume starts from the beginning', async () => {
      const t = await topic('reset', 2);
      const group = uniqueName('group');
      await log.produce(
        t,
        Array.from({ length: 12 }, (_, i) => ({ key: `k${i}`, value: text(String(i)) })),
      );
      await consumeAll(log, { group, topics: [t] });
      expect(await log.committed(group, t)).toEqual(await log.endOffsets(t));
      await log.resetGroup(group, [t]);
      expect(await log.committed(group, t)).toEqual([0, 0]);
      expect((await consumeAll(log, { group, topics: [t] })).records).toHaveLength(12);
    });

    it('truncate removes every record, moves start offsets to the end and keeps offsets growing', async () => {
      const t = await topic('truncate', 2);
      await log.produce(t, [
        ...Array.from({ length: 5 }, (_, i) => ({ key: `a${i}`, value: text('old'), partition: 0 })),
        ...Array.from({ length: 2 }, (_, i) => ({ key: `b${i}`, value: text('old'), partition: 1 })),
      ]);
      await log.truncate(t);
      expect(await log.endOffsets(t)).toEqual([5, 2]);
      expect(await log.startOffsets(t)).toEqual([5, 2]);
      expect(await log.read(t, 0, 0, 10)).toEqual([]);
      expect(await log.read(t, 1, 0, 10)).toEqual([]);
      await log.produce(t, [{ key: 'fresh', value: text('new'), partition: 0 }]);
      const { records } = await consumeAll(log, { group: uniqueName('group'), topics: [t] });
      expect(records.map((r) => [r.partition, r.offset, valueText(r)])).toEqual([[0, 5, 'new']]);
    });

    it('a tailing consume receives records produced after it started and stops on abort', async () => {
      const t = await topic('tail', 2);
      const group = uniqueName('group');
      await log.produce(t, [{ key: 'before', value: text('before') }]);
      const seen: string[] = [];
      const controller = new AbortController();
      const consuming = log.consume({ group, topics: [t], signal: controller.signal }, async ({ records }) => {
        for (const r of records) seen.push(r.key);
      });
      let failed: unknown;
      consuming.catch((e: unknown) => {
        failed = e;
      });
      await waitUntil(() => seen.includes('before') || failed !== undefined, 'the record produced before consume');
      await log.produce(t, [
        { key: 'after-1', value: text('1') },
        { key: 'after-2', value: text('2') },
      ]);
      await waitUntil(() => seen.length >= 3 || failed !== undefined, 'the records produced while tailing');
      controller.abort();
      await consuming;
      expect([...seen].sort()).toEqual(['after-1', 'after-2', 'before']);
      expect(await log.committed(group, t)).toEqual(await log.endOffsets(t));
    });

    it('a handler error rejects consume and does not commit that batch', async () => {
      const t = await topic('handler-error', 2);
      const group = uniqueName('group');
      await log.produce(
        t,
        Array.from({ length: 5 }, (_, i) => ({ key: `k${i}`, value: text(String(i)) })),
      );
      await expect(
        log.consume({ group, topics: [t], untilCaughtUp: true }, async () => {
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await log.committed(group, t)).toEqual([0, 0]);
      expect((await consumeAll(log, { group, topics: [t] })).records).toHaveLength(5);
    });

    it('rejects operations on unknown topics with code unknown_topic', async () => {
      const t = uniqueName('missing');
      const code = { code: 'unknown_topic' };
      await expect(log.partitions(t)).rejects.toMatchObject(code);
      await expect(log.produce(t, [{ key: 'k', value: text('v') }])).rejects.toMatchObject(code);
      await expect(log.read(t, 0, 0, 1)).rejects.toMatchObject(code);
      await expect(log.endOffsets(t)).rejects.toMatchObject(code);
      await expect(
        log.consume({ group: uniqueName('group'), topics: [t], untilCaughtUp: true }, async () => {}),
      ).rejects.toMatchObject(code);
    });

    it('compaction keeps the latest value of every key and never reorders a key history', async () => {
      const t = await topic('compact', 1, true);
      const produced: OutRecord[] = [];
      for (let version = 1; version <= 5; version++) {
        for (const key of ['a', 'b', 'c']) {
          const tombstone = key === 'b' && version === 5;
          produced.push({ key, value: tombstone ? null : text(`${key}-${version}`), partition: 0 });
        }
      }
      await log.produce(t, produced);
      await log.compact(t);
      const records = await readAll(log, t);
      for (const key of ['a', 'b', 'c']) {
        const history = records.filter((r) => r.key === key);
        const versions = history.map((r) => (r.value === null ? 5 : Number(valueText(r)?.split('-')[1])));
        expect(versions).toEqual([...versions].sort((x, y) => x - y));
        expect(history.at(-1)?.value === null ? null : valueText(history.at(-1)!)).toBe(
          key === 'b' ? null : `${key}-5`,
        );
      }
      const offsets = records.map((r) => r.offset);
      expect(offsets).toEqual([...offsets].sort((x, y) => x - y));
      expect(await log.endOffsets(t)).toEqual([15]);
    });

    it('compact on a non-compacted topic keeps every record', async () => {
      const t = await topic('no-compact', 1);
      await log.produce(t, [
        { key: 'a', value: text('1') },
        { key: 'a', value: text('2') },
      ]);
      await log.compact(t);
      expect((await readAll(log, t)).map(valueText)).toEqual(['1', '2']);
    });
  });
}
