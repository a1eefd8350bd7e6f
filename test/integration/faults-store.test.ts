/**
 * Fault (d): the state store fails a write in the middle of processing. The processor stops with the
 * store's error (a running service stops with exit code 1: a failing disk needs an operator), the
 * store holds exactly the last checkpoint that succeeded (nothing of the failed batch), and a restart
 * on the same data dir resumes from that checkpoint and ends with the export of an uninterrupted run.
 */
import { createHash } from 'node:crypto';
import { text } from 'node:stream/consumers';
import { afterAll, describe, expect, it } from 'vitest';
import { analyticsNdjson } from '../../api/admin.js';
import { serviceConfigFromEnv } from '../../cli/config.js';
import { generate, processAll } from '../../cli/commands/pipeline.js';
import { openRuntime } from '../../cli/runtime.js';
import { silentLogger } from '../../domain/logger.js';
import type { BatchOp, StorePort } from '../../state/store-port.js';
import { hookWrite } from '../support/store-batch.js';
import { Fixture } from './fault-support.js';

const fx = new Fixture();
afterAll(() => fx.cleanup());
const RANGE = { from: '2024-04-01', to: '2024-04-12', seed: 21 };

/** A StorePort whose `failAt`-th batch (counted over the store and its subs) throws before writing. */
function failingStore(inner: StorePort, failAt: number, onBatch: () => Promise<void>): StorePort {
  let calls = 0;
  const wrap = (s: StorePort): StorePort => ({
    get: (k) => s.get(k),
    getMany: (k) => s.getMany(k),
    put: (k, v) => s.put(k, v),
    del: (k) => s.del(k),
    entries: (r) => s.entries(r),
    clear: (r) => s.clear(r),
    close: () => s.close(),
    sub: (p) => wrap(s.sub(p)),
    async batch(ops: readonly BatchOp[]) {
      calls++;
      if (calls === failAt) throw new Error('injected: write failed (ENOSPC: no space left on device)');
      await s.batch(ops);
      await onBatch();
    },
    writeBatch: () =>
      hookWrite(s.writeBatch(), async (write) => {
        calls++;
        if (calls === failAt) throw new Error('injected: write failed (ENOSPC: no space left on device)');
        await write();
        await onBatch();
      }),
  });
  return wrap(inner);
}

async function digest(store: StorePort): Promise<{ keys: number; sha: string; positions: Record<string, string> }> {
  const h = createHash('sha256');
  let keys = 0;
  const positions: Record<string, string> = {};
  for await (const [k, v] of store.entries()) {
    keys++;
    h.update(k).update('\0').update(v).update('\0');
    if (k.startsWith('o/')) positions[k] = v.toString();
  }
  return { keys, sha: h.digest('hex'), positions };
}

/** The export and input record count of an uninterrupted run over RANGE (computed once, shared). */
let expectedRun: Promise<{ text: string; records: number }> | undefined;
function uninterrupted(): Promise<{ text: string; records: number }> {
  expectedRun ??= (async () => {
    const rt = await openRuntime(
      serviceConfigFromEnv({
        LOG_LEVEL: 'silent',
        RACING_CHECKPOINT_MS: '10',
        RACING_DATA_DIR: fx.dir('store-expected'),
      }),
      silentLogger(),
    );
    try {
      await generate(rt, { ...RANGE });
      const figures = await processAll(rt);
      return { text: await text(analyticsNdjson(rt.view)), records: figures.records };
    } finally {
      await rt.close();
    }
  })();
  return expectedRun;
}

describe('a write error from the state store', () => {
  it('fails clearly, leaves the last checkpoint intact, and a restart recovers to the same export', async () => {
    const logger = silentLogger();
    const env = { LOG_LEVEL: 'silent', RACING_CHECKPOINT_MS: '10' };
    const expected = (await uninterrupted()).text;
    expect(expected.split('\n').length).toBeGreaterThan(500);

    const dir = fx.dir('store');
    const config = serviceConfigFromEnv({ ...env, RACING_DATA_DIR: dir });
    const rt = await openRuntime(config, logger);
    const real = rt.processorStore;
    let lastGood: Awaited<ReturnType<typeof digest>>;
    let failure: unknown;
    try {
      // The first half is processed and checkpointed; the checkpoint of the second half fails.
      const half = Date.parse('2024-04-06T00:00:00Z');
      await generate(rt, { ...RANGE, until: half });
      await processAll(rt);
      await generate(rt, { ...RANGE, since: half });
      lastGood = await digest(real);
      rt.processorStore = failingStore(real, 1, async () => {
        lastGood = await digest(real);
      });
      await processAll(rt).catch((e: unknown) => (failure = e));
      expect(failure).toBeInstanceOf(Error);
      expect((failure as Error).message).toMatch(/write failed.*ENOSPC/);
      // Nothing of the failed checkpoint reached the store: exactly the last good one is there.
      expect(lastGood.keys).toBeGreaterThan(0);
      expect(Object.keys(lastGood.positions).length).toBeGreaterThan(0);
      expect(await digest(real)).toEqual(lastGood);
    } finally {
      await rt.close();
    }

    // A restart on the same data dir resumes from that checkpoint.
    const again = await openRuntime(config, logger);
    try {
      const figures = await processAll(again);
      expect(figures.records).toBeGreaterThan(0);
      expect(await text(analyticsNdjson(again.view))).toBe(expected);
    } finally {
      await again.close();
    }
  }, 240_000);

  it('writes a large checkpoint in slices; one cut short between slices, or a reset cut short, is dropped and replayed', async () => {
    const logger = silentLogger();
    // slices of 4 KB: every checkpoint of this history is written in many
    const env = { LOG_LEVEL: 'silent', RACING_CHECKPOINT_MS: '10', RACING_CHECKPOINT_SLICE_BYTES: '4096' };
    const expected = await uninterrupted();
    const dir = fx.dir('slices');
    const config = serviceConfigFromEnv({ ...env, RACING_DATA_DIR: dir });
    const marker = 'state-incomplete';
    const third = Date.parse('2024-04-05T00:00:00Z');
    const twoThirds = Date.parse('2024-04-09T00:00:00Z');
    let records = 0;

    // 1. The first third, checkpointed in slices: every slice carries the marker, the last batch removes it.
    let rt = await openRuntime(config, logger);
    try {
      await generate(rt, { ...RANGE, until: third });
      const real = rt.processorStore;
      let markerPuts = 0;
      rt.processorStore = markerCounting(real, () => markerPuts++);
      const first = await processAll(rt);
      records += first.records;
      expect(first.records).toBeGreaterThan(0);
      expect(markerPuts).toBeGreaterThan(5);
      expect(await real.get(marker)).toBeUndefined();
    } finally {
      await rt.close();
    }

    // 2. A restart resumes from that checkpoint: only the second third is processed.
    rt = await openRuntime(config, logger);
    let failure: unknown;
    try {
      await generate(rt, { ...RANGE, since: third, until: twoThirds });
      const second = await processAll(rt);
      expect(second.records).toBeGreaterThan(0);
      records += second.records;

      // 3. The last third: the second slice of its first checkpoint fails. Its first slice (and the
      // ones after) are in the store with the marker; the input positions are still the last checkpoint's.
      await generate(rt, { ...RANGE, since: twoThirds });
      const real = rt.processorStore;
      rt.processorStore = failingStore(real, 2, async () => undefined);
      await processAll(rt).catch((e: unknown) => (failure = e));
      expect((failure as Error).message).toMatch(/write failed.*ENOSPC/);
      expect(await real.get(marker)).toBeDefined();
    } finally {
      await rt.close();
    }
    expect(records).toBeLessThan(expected.records);

    // 4. A restart sees the marker and drops the state, but the drop is cut short (the engine's range
    // delete fails after its first keys, the state's format key still there): the marker stays.
    rt = await openRuntime(config, logger);
    try {
      const real = rt.processorStore;
      rt.processorStore = clearCutShort(real);
      await expect(processAll(rt)).rejects.toThrow(/clear cut short/);
      expect(await real.get(marker)).toBeDefined();
      expect(await real.get('e/format')).toBeDefined();
    } finally {
      await rt.close();
    }

    // 5. The next restart drops the state and replays every input record, to the export of an
    // uninterrupted run with checkpoints of one batch.
    rt = await openRuntime(config, logger);
    try {
      const figures = await processAll(rt);
      expect(figures.records).toBe(expected.records);
      expect(await rt.processorStore.get(marker)).toBeUndefined();
      expect(await text(analyticsNdjson(rt.view))).toBe(expected.text);
    } finally {
      await rt.close();
    }
  }, 240_000);
});

/** A StorePort whose chained batches count the puts of the incomplete-state marker. */
function markerCounting(inner: StorePort, onMarker: () => void): StorePort {
  return {
    ...inner,
    sub: (p) => inner.sub(p),
    writeBatch: () => {
      const b = inner.writeBatch();
      return {
        put: (key, value) => {
          if (key === 'state-incomplete') onMarker();
          b.put(key, value);
        },
        del: (key) => b.del(key),
        get length() {
          return b.length;
        },
        write: () => b.write(),
        discard: () => b.discard(),
      };
    },
  };
}

/** A StorePort whose engine state (`e/`) range delete removes the keys before `f` and then fails. */
function clearCutShort(inner: StorePort): StorePort {
  return {
    ...inner,
    sub: (p) => {
      const s = inner.sub(p);
      if (p !== 'e/') return s;
      return {
        ...s,
        async clear() {
          for await (const [k] of s.entries({ lt: 'f' })) await s.del(k);
          throw new Error('injected: clear cut short');
        },
      };
    },
  };
}
