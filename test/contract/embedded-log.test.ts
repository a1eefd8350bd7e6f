import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openLevelStore } from '../../state/adapters/level-store.js';
import { createEmbeddedLog } from '../../streams/adapters/embedded-log.js';
import type { LogRecord, OutRecord } from '../../streams/log-port.js';
import { memoryStore } from '../support/memory-store.js';
import { describeLog, waitUntil } from './log-contract.js';

const text = (s: string) => Buffer.from(s, 'utf8');
const valueText = (r: LogRecord) => (r.value === null ? null : r.value.toString('utf8'));

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
    expect(records.map((r) => [r.offset, r.key, valueText(r)])).toEqual([
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
        const slice = records.slice(run * 25, run * 25 + 25).map((r) => valueText(r)!.split(':'));
        expect(new Set(slice.map(([c]) => c)).size).toBe(1);
        expect(slice.map(([, i]) => Number(i))).toEqual(Array.from({ length: 25 }, (_, i) => i));
      }
    }
    await log.close();
  });

  it('keeps concurrent produce calls on different topics apart', async () => {
    const { log, cleanup } = await levelLog();
    const names = ['left', 'right', 'middle'];
    await log.ensureTopics(names.map((name) => ({ name, partitions: 2, compacted: false })));
    await Promise.all(
      names.flatMap((name) =>
        Array.from({ length: 10 }, (_, c) =>
          log.produce(
            name,
            Array.from({ length: 20 }, (_, i) => ({ key: `${c}-${i}`, value: text(`${name}:${c}-${i}`) })),
          ),
        ),
      ),
    );
    for (const name of names) {
      const records = [...(await log.read(name, 0, 0, 1_000)), ...(await log.read(name, 1, 0, 1_000))];
      expect(records).toHaveLength(200);
      for (const r of records) expect(valueText(r)).toBe(`${name}:${r.key}`);
    }
    await cleanup();
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

  it('serves the same reads as a simple model through produce, compact and truncate', async () => {
    type Cmd =
      | { kind: 'produce'; records: { key: string; value: string | null; partition: number }[] }
      | { kind: 'read'; partition: number; offset: number; max: number }
      | { kind: 'compact' }
      | { kind: 'truncate' };
    const cmd: fc.Arbitrary<Cmd> = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant('produce' as const),
          records: fc.array(
            fc.record({
              key: fc.constantFrom('a', 'b', 'c', 'd', 'é'),
              value: fc.option(fc.string({ maxLength: 6 }), { nil: null }),
              partition: fc.integer({ min: 0, max: 2 }),
            }),
            { minLength: 1, maxLength: 12 },
          ),
        }),
      },
      {
        weight: 5,
        arbitrary: fc.record({
          kind: fc.constant('read' as const),
          partition: fc.integer({ min: 0, max: 2 }),
          offset: fc.integer({ min: 0, max: 40 }),
          max: fc.integer({ min: 1, max: 15 }),
        }),
      },
      { weight: 2, arbitrary: fc.constant({ kind: 'compact' as const }) },
      { weight: 1, arbitrary: fc.constant({ kind: 'truncate' as const }) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(cmd, { maxLength: 25 }), async (cmds) => {
        const log = createEmbeddedLog(memoryStore());
        await log.ensureTopics([{ name: 'model', partitions: 3, compacted: true }]);
        const model: { offset: number; key: string; value: string | null }[][] = [[], [], []];
        const ends = [0, 0, 0];
        const starts = [0, 0, 0];
        for (const c of cmds) {
          if (c.kind === 'produce') {
            await log.produce(
              'model',
              c.records.map((r) => ({ ...r, value: r.value === null ? null : text(r.value) })),
            );
            for (const r of c.records) model[r.partition]!.push({ offset: ends[r.partition]!++, ...r });
          } else if (c.kind === 'compact') {
            await log.compact('model');
            for (const [p, records] of model.entries()) {
              const latest = new Map(records.map((r) => [r.key, r.offset]));
              model[p] = records.filter((r) => latest.get(r.key) === r.offset);
            }
          } else if (c.kind === 'truncate') {
            await log.truncate('model');
            for (const p of [0, 1, 2]) {
              model[p] = [];
              starts[p] = ends[p]!;
            }
          } else {
            const got = await log.read('model', c.partition, c.offset, c.max);
            const want = model[c.partition]!.filter((r) => r.offset >= c.offset).slice(0, c.max);
            expect(got.map((r) => ({ offset: r.offset, key: r.key, value: valueText(r) }))).toEqual(
              want.map(({ offset, key, value }) => ({ offset, key, value })),
            );
          }
        }
        expect(await log.endOffsets('model')).toEqual(ends);
        expect(await log.startOffsets('model')).toEqual(starts);
        await log.close();
      }),
      { numRuns: 150 },
    );
  });

  it('close stops a tailing consumer after its batch and refuses later calls', async () => {
    const { log, cleanup } = await levelLog();
    await log.ensureTopics([{ name: 'idle', partitions: 1, compacted: false }]);
    await log.produce('idle', [{ key: 'k', value: text('v') }]);
    let seen = 0;
    const consuming = log.consume({ group: 'g', topics: ['idle'] }, async ({ records }) => {
      seen += records.length;
    });
    await waitUntil(() => seen === 1, 'the first record');
    await log.close();
    await expect(consuming).resolves.toBeUndefined();
    await expect(log.endOffsets('idle')).rejects.toMatchObject({ code: 'internal' });
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
      expect(all.map(valueText).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `card-${i}`).sort());
      // New records continue the persisted offsets rather than overwriting old ones.
      await again.produce('cards', [{ key: 'late', value: text('late'), partition: 0 }]);
      expect((await again.read('cards', 0, ends[0]!, 1))[0]?.key).toBe('late');
      const after = [...(await again.read('cards', 0, 0, 100)), ...(await again.read('cards', 1, 0, 100))];
      expect(after).toHaveLength(31);
      await again.close();
      await reopened.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
