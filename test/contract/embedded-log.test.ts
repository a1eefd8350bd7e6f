import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLevelStore } from '../../state/adapters/level-store.js';
import { createEmbeddedLog } from '../../streams/adapters/embedded-log.js';
import type { LogRecord, OutRecord } from '../../streams/log-port.js';
import { memoryStore } from '../support/memory-store.js';
import { describeLog, waitUntil } from './log-contract.js';

const text = (s: string) => Buffer.from(s, 'utf8');
const valueOf = (r: LogRecord) => (r.value === null ? null : r.value.toString('utf8'));

async function levelLog() {
  const dir = await mkdtemp(join(tmpdir(), 'embedded-log-'));
  const store = await openLevelStore(dir);
  const log = createEmbeddedLog(store.sub('log!'));
  return {
    dir,
    store,
    log,
    cleanup: async () => {
      await log.close();
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

describeLog('embedded over classic-level', async () => {
  const { log, cleanup } = await levelLog();
  return { log, cleanup };
});

describeLog('embedded over memory store', async () => {
  const log = createEmbeddedLog(memoryStore());
  return { log, cleanup: () => log.close() };
});

describe('embedded log specifics', () => {
  it('interleaves partitions and topics by timestamp, ties by topic order then partition', async () => {
    const log = createEmbeddedLog(memoryStore());
    await log.ensureTopics([
      { name: 'first', partitions: 2, compacted: false },
      { name: 'second', partitions: 1, compacted: false },
    ]);
    await log.produce('first', [
      { key: 'f0-10', value: text('x'), timestamp: 10, partition: 0 },
      // Out of timestamp order inside a partition: log order must still win within it.
      { key: 'f0-5', value: text('x'), timestamp: 5, partition: 0 },
      { key: 'f0-30', value: text('x'), timestamp: 30, partition: 0 },
      { key: 'f1-20', value: text('x'), timestamp: 20, partition: 1 },
      { key: 'f1-30', value: text('x'), timestamp: 30, partition: 1 },
    ]);
    await log.produce('second', [
      { key: 's-1', value: text('x'), timestamp: 1 },
      { key: 's-30', value: text('x'), timestamp: 30 },
    ]);
    const seen: string[] = [];
    await log.consume(
      { group: 'g', topics: ['second', 'first'], untilCaughtUp: true, maxBatchRecords: 3 },
      async ({ records }) => {
        seen.push(...records.map((r) => r.key));
      },
    );
    expect(seen).toEqual(['s-1', 'f0-10', 'f0-5', 'f1-20', 's-30', 'f0-30', 'f1-30']);
    await log.close();
  });

  it('compacts to exactly the latest record per key, keeping offsets and tombstones', async () => {
    const log = createEmbeddedLog(memoryStore());
    await log.ensureTopics([{ name: 'rows', partitions: 1, compacted: true }]);
    await log.produce('rows', [
      { key: 'a', value: text('a1') },
      { key: 'b', value: text('b1') },
      { key: 'a', value: text('a2') },
      { key: 'b', value: null },
      { key: 'c', value: text('c1') },
    ]);
    await log.compact('rows');
    const records = await log.read('rows', 0, 0, 100);
    expect(records.map((r) => [r.offset, r.key, valueOf(r)])).toEqual([
      [2, 'a', 'a2'],
      [3, 'b', null],
      [4, 'c', 'c1'],
    ]);
    expect(await log.read('rows', 0, 1, 1)).toMatchObject([{ offset: 2 }]);
    expect(await log.endOffsets('rows')).toEqual([5]);
    expect(await log.startOffsets('rows')).toEqual([0]);
    const consumed: number[] = [];
    await log.consume({ group: 'g', topics: ['rows'], untilCaughtUp: true }, async ({ records: rs }) => {
      consumed.push(...rs.map((r) => r.offset));
    });
    expect(consumed).toEqual([2, 3, 4]);
    expect(await log.committed('g', 'rows')).toEqual([5]);
    await log.close();
  });

  it('serialises concurrent produce calls so each call keeps contiguous, ordered offsets', async () => {
    const log = createEmbeddedLog(memoryStore());
    await log.ensureTopics([{ name: 'busy', partitions: 2, compacted: false }]);
    const calls = Array.from({ length: 20 }, (_, c) =>
      Array.from({ length: 25 }, (_, i): OutRecord => ({ key: `c${c}`, value: text(`${c}:${i}`), partition: c % 2 })),
    );
    await Promise.all(calls.map((records) => log.produce('busy', records)));
    expect(await log.endOffsets('busy')).toEqual([250, 250]);
    for (const p of [0, 1]) {
      const records = await log.read('busy', p, 0, 1_000);
      expect(records.map((r) => r.offset)).toEqual(Array.from({ length: 250 }, (_, i) => i));
      // Each call's 25 records form one contiguous run in call order.
      for (let run = 0; run < 10; run++) {
        const slice = records.slice(run * 25, run * 25 + 25).map((r) => valueOf(r)!.split(':'));
        expect(new Set(slice.map(([c]) => c)).size).toBe(1);
        expect(slice.map(([, i]) => Number(i))).toEqual(Array.from({ length: 25 }, (_, i) => i));
      }
    }
    await log.close();
  });

  it('lets consumers of different groups tail the same topic while producers append', async () => {
    const { log, cleanup } = await levelLog();
    await log.ensureTopics([{ name: 'shared', partitions: 3, compacted: false }]);
    const controller = new AbortController();
    const seen = new Map<string, string[]>([
      ['g1', []],
      ['g2', []],
    ]);
    const consumers = [...seen.keys()].map((group) =>
      log.consume({ group, topics: ['shared'], signal: controller.signal, maxBatchRecords: 7 }, async ({ records }) => {
        seen.get(group)!.push(...records.map((r) => `${r.partition}:${r.offset}`));
      }),
    );
    const producers = Array.from({ length: 4 }, (_, w) =>
      (async () => {
        for (let b = 0; b < 10; b++) {
          await log.produce(
            'shared',
            Array.from({ length: 10 }, (_, i) => ({ key: `w${w}-${b}-${i}`, value: text('v') })),
          );
        }
      })(),
    );
    await Promise.all(producers);
    await waitUntil(() => [...seen.values()].every((s) => s.length >= 400), 'both groups to see 400 records');
    controller.abort();
    await Promise.all(consumers);
    for (const s of seen.values()) {
      expect(s).toHaveLength(400);
      expect(new Set(s).size).toBe(400);
    }
    await cleanup();
  });

  it('uses the injected clock for default timestamps', async () => {
    const log = createEmbeddedLog(memoryStore(), { clock: () => 42 });
    await log.ensureTopics([{ name: 'clocked', partitions: 1, compacted: false }]);
    await log.produce('clocked', [{ key: 'k', value: text('v') }]);
    expect((await log.read('clocked', 0, 0, 1))[0]?.timestamp).toBe(42);
    await log.close();
  });

  it('rejects invalid topic names, partition counts and explicit partitions', async () => {
    const log = createEmbeddedLog(memoryStore());
    await expect(log.ensureTopics([{ name: 'bad!name', partitions: 1, compacted: false }])).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(log.ensureTopics([{ name: 'zero', partitions: 0, compacted: false }])).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await log.ensureTopics([{ name: 'two', partitions: 2, compacted: false }]);
    await expect(log.produce('two', [{ key: 'k', value: null, partition: 2 }])).rejects.toMatchObject({
      code: 'validation_failed',
    });
    expect(await log.endOffsets('two')).toEqual([0, 0]);
    await log.close();
  });

  it('keeps records, end offsets, start offsets and committed offsets across a reopen', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'embedded-log-durable-'));
    try {
      const store = await openLevelStore(dir);
      const log = createEmbeddedLog(store.sub('log!'));
      await log.ensureTopics([
        { name: 'cards', partitions: 2, compacted: false },
        { name: 'dropped', partitions: 1, compacted: false },
      ]);
      await log.produce(
        'cards',
        Array.from({ length: 30 }, (_, i) => ({ key: `race-${i}`, value: text(`card-${i}`), timestamp: i })),
      );
      await log.produce('dropped', [{ key: 'x', value: text('gone') }]);
      await log.truncate('dropped');
      await log.consume({ group: 'proc', topics: ['cards'], untilCaughtUp: true, maxBatchRecords: 8 }, async () => {});
      const ends = await log.endOffsets('cards');
      await log.close();
      await store.close();

      const reopened = await openLevelStore(dir);
      const again = createEmbeddedLog(reopened.sub('log!'));
      expect(await again.partitions('cards')).toBe(2);
      expect(await again.endOffsets('cards')).toEqual(ends);
      expect(await again.committed('proc', 'cards')).toEqual(ends);
      expect(await again.startOffsets('dropped')).toEqual([1]);
      expect(await again.endOffsets('dropped')).toEqual([1]);
      const all = [...(await again.read('cards', 0, 0, 100)), ...(await again.read('cards', 1, 0, 100))];
      expect(all.map(valueOf).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `card-${i}`).sort());
      // New records continue the persisted offsets rather than overwriting old ones.
      await again.produce('cards', [{ key: 'late', value: text('late'), partition: 0 }]);
      expect((await again.read('cards', 0, ends[0]!, 1))[0]?.key).toBe('late');
      await again.close();
      await reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
