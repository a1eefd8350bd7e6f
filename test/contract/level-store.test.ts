import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClassicLevel } from 'classic-level';
import { describe, expect, it } from 'vitest';
import { isRacingError } from '../../domain/errors.js';
import { openLevelStore } from '../../state/adapters/level-store.js';
import { memoryStore } from '../support/memory-store.js';
import { describeStore } from './store-contract.js';

async function tempDir(): Promise<string> {
  return mkdtemp(join(tmpdir(), 'level-store-'));
}

describeStore('classic-level', async () => {
  const dir = await tempDir();
  const store = await openLevelStore(dir);
  return {
    store,
    cleanup: async () => {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

// The same suite through a prefixed view with neighbours on both sides, so every range translation
// of sub() (bounds, reverse, limit, clear) is exercised against real LevelDB ordering.
describeStore('classic-level sub view', async () => {
  const dir = await tempDir();
  const root = await openLevelStore(dir);
  await root.put('view ', Buffer.from('just before'));
  await root.put('view"', Buffer.from('just after'));
  return {
    store: root.sub('view!'),
    cleanup: async () => {
      expect((await root.get('view '))?.toString()).toBe('just before');
      expect((await root.get('view"'))?.toString()).toBe('just after');
      await root.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
});

describeStore('memory', async () => ({ store: memoryStore(), cleanup: async () => {} }));

describe('openLevelStore', () => {
  it('refuses a data dir that is already open, with code store_locked', async () => {
    const dir = await tempDir();
    const first = await openLevelStore(dir);
    try {
      const second = openLevelStore(dir);
      await expect(second).rejects.toSatisfy(
        (e: unknown) => isRacingError(e) && e.code === 'store_locked' && e.message.includes(dir),
      );
    } finally {
      await first.close();
    }
    // The lock is released with the handle, so the next opener succeeds.
    const again = await openLevelStore(dir);
    await again.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('refuses a data dir held by another process', async () => {
    const dir = await tempDir();
    // A plain classic-level handle in a child process: the lock must be seen across processes.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const { ClassicLevel } = require('classic-level');
         new ClassicLevel(process.argv[1]).open().then(() => console.log('ready'));
         setInterval(() => {}, 1000);`,
        dir,
      ],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      let out = '';
      const deadline = AbortSignal.timeout(15_000);
      while (!out.includes('ready')) {
        const [chunk] = (await once(holder.stdout, 'data', { signal: deadline })) as [Buffer];
        out += chunk.toString();
      }
      await expect(openLevelStore(dir)).rejects.toMatchObject({ code: 'store_locked' });
    } finally {
      holder.kill();
      await once(holder, 'exit');
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps data across close and reopen', async () => {
    const dir = await tempDir();
    const store = await openLevelStore(dir);
    await store.sub('a!').batch([{ type: 'put', key: 'k', value: Buffer.from([0, 1, 2]) }]);
    await store.close();
    const reopened = await openLevelStore(dir);
    expect([...((await reopened.get('a!k')) ?? [])]).toEqual([0, 1, 2]);
    await reopened.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('applies a 20k-operation batch in one call', async () => {
    const dir = await tempDir();
    const store = await openLevelStore(dir);
    const ops = Array.from({ length: 20_000 }, (_, i) => ({
      type: 'put' as const,
      key: String(i).padStart(6, '0'),
      value: Buffer.alloc(64, i % 256),
    }));
    await store.batch(ops);
    const got = await store.getMany(['000000', '019999', '020000']);
    expect(got.map((v) => v?.[0])).toEqual([0, 19_999 % 256, undefined]);
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a clear of a whole sub-store leaves no tombstones on disk; a bounded clear leaves them to LevelDB', async () => {
    const dir = await tempDir();
    const store = await openLevelStore(dir);
    const fill = async (prefix: string, n: number) => {
      const batch = store.sub(prefix).writeBatch();
      for (let i = 0; i < n; i++) batch.put(String(i).padStart(6, '0'), randomBytes(1_024));
      await batch.write();
    };
    await fill('p/', 20_000);
    await fill('q/', 20_000);
    await fill('r/', 2_000);
    // everything into table files, so that the sizes below are what is on disk
    const db = store.db as ClassicLevel<string, Buffer>;
    await db.compactRange('', '\u00ff');
    const onDisk = (prefix: string) => db.approximateSize(prefix, `${prefix.slice(0, -1)}0`);
    expect(await onDisk('p/')).toBeGreaterThan(10_000_000);
    expect(await onDisk('q/')).toBeGreaterThan(10_000_000);

    await store.sub('p/').clear();
    await store.sub('q/').clear({ gte: '000000', lt: '999999' });

    expect(await onDisk('p/')).toBeLessThan(100_000);
    // the bounded clear deleted the keys but their table files stay until LevelDB compacts them
    expect(await onDisk('q/')).toBeGreaterThan(10_000_000);
    const left = async (prefix: string) => {
      let n = 0;
      for await (const _ of store.sub(prefix).entries()) n++;
      return n;
    };
    expect([await left('p/'), await left('q/'), await left('r/')]).toEqual([0, 0, 2_000]);
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });
});
