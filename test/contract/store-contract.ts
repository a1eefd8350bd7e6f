/**
 * The StorePort contract: every store adapter (classic-level, the in-memory test store, any future one)
 * runs this suite, so processors can rely on the behaviour below whatever backs them.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StorePort } from '../../state/store-port.js';

/** Creates a fresh, empty store for one test; `cleanup` closes it and removes any files. */
export type StoreFactory = () => Promise<{ store: StorePort; cleanup: () => Promise<void> }>;

const b = (s: string) => Buffer.from(s, 'utf8');

async function collect(it: AsyncIterable<[string, Buffer]>): Promise<[string, string][]> {
  const out: [string, string][] = [];
  for await (const [k, v] of it) out.push([k, v.toString('utf8')]);
  return out;
}

async function keys(store: StorePort, range?: Parameters<StorePort['entries']>[0]): Promise<string[]> {
  return (await collect(store.entries(range))).map(([k]) => k);
}

/**
 * Scans the keys under `prefix` over and over while `pending` (a write of 2,000 of them) runs: every
 * scan must see none or all of them, and the last all.
 */
async function expectAllOrNothing(store: StorePort, prefix: string, pending: Promise<void>): Promise<void> {
  const range = { gte: prefix, lt: `${prefix.slice(0, -1)}"` };
  const seen: number[] = [];
  let done = false;
  void pending.then(() => {
    done = true;
  });
  do {
    seen.push((await keys(store, range)).length);
  } while (!done);
  await pending;
  seen.push((await keys(store, range)).length);
  for (const n of seen) expect([0, 2_000]).toContain(n);
  expect(seen.at(-1)).toBe(2_000);
}

/** Registers the StorePort contract suite for one adapter. */
export function describeStore(name: string, factory: StoreFactory): void {
  describe(`StorePort contract: ${name}`, () => {
    let store: StorePort;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, cleanup } = await factory());
    });
    afterEach(async () => {
      await cleanup();
    });

    it('gets what was put, undefined for absent keys, and forgets deleted keys', async () => {
      expect(await store.get('missing')).toBeUndefined();
      await store.put('k', b('v1'));
      expect((await store.get('k'))?.toString()).toBe('v1');
      await store.put('k', b('v2'));
      expect((await store.get('k'))?.toString()).toBe('v2');
      await store.del('k');
      expect(await store.get('k')).toBeUndefined();
      await expect(store.del('never-existed')).resolves.toBeUndefined();
    });

    it('round-trips binary values byte for byte, including empty ones', async () => {
      const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      await store.put('bin', all);
      await store.put('empty', Buffer.alloc(0));
      const got = await store.get('bin');
      expect(Buffer.isBuffer(got)).toBe(true);
      expect(got?.equals(all)).toBe(true);
      expect((await store.get('empty'))?.length).toBe(0);
      const scanned: Buffer[] = [];
      for await (const [, v] of store.entries({ gte: 'bin', lt: 'bin\u0000' })) scanned.push(v);
      expect(scanned).toHaveLength(1);
      expect(scanned[0]?.equals(all)).toBe(true);
    });

    it('getMany returns values in request order with undefined gaps', async () => {
      await store.batch([
        { type: 'put', key: 'a', value: b('1') },
        { type: 'put', key: 'c', value: b('3') },
      ]);
      const got = await store.getMany(['c', 'b', 'a', 'c']);
      expect(got.map((v) => v?.toString())).toEqual(['3', undefined, '1', '3']);
      expect(await store.getMany([])).toEqual([]);
    });

    it('applies a batch in order, later operations on a key winning', async () => {
      await store.put('gone', b('x'));
      await store.batch([
        { type: 'put', key: 'p', value: b('1') },
        { type: 'del', key: 'p' },
        { type: 'del', key: 'q' },
        { type: 'put', key: 'q', value: b('2') },
        { type: 'del', key: 'gone' },
        { type: 'put', key: 'r', value: b('3') },
        { type: 'put', key: 'r', value: b('4') },
      ]);
      expect((await store.getMany(['p', 'q', 'gone', 'r'])).map((v) => v?.toString())).toEqual([
        undefined,
        '2',
        undefined,
        '4',
      ]);
      await expect(store.batch([])).resolves.toBeUndefined();
    });

    it('never exposes half a batch to a concurrent scan', async () => {
      const ops = Array.from({ length: 2_000 }, (_, i) => ({
        type: 'put' as const,
        key: `batch!${String(i).padStart(5, '0')}`,
        value: Buffer.alloc(256, i % 251),
      }));
      await expectAllOrNothing(store, 'batch!', store.batch(ops));
    });

    it('rejects a batch with an operation it cannot store and applies none of it', async () => {
      await store.put('kept', b('before'));
      const bad = [
        { type: 'put', key: 'first', value: b('1') },
        { type: 'del', key: 'kept' },
        { type: 'put', key: 'broken', value: undefined as unknown as Buffer },
      ] as const;
      await expect(store.batch(bad)).rejects.toThrow();
      expect((await store.getMany(['first', 'kept'])).map((v) => v?.toString())).toEqual([undefined, 'before']);
      // the store goes on taking batches after the rejected one
      await store.batch([{ type: 'put', key: 'after', value: b('2') }]);
      expect((await store.get('after'))?.toString()).toBe('2');
    });

    it('writes a batch filled in one operation at a time as one, copying each value as it is added', async () => {
      await store.put('gone', b('x'));
      const batch = store.writeBatch();
      const reused = Buffer.from('first');
      batch.put('w!1', reused);
      reused.write('SECND'); // the caller reuses its bytes at once
      batch.put('w!2', reused);
      batch.del('gone');
      batch.put('w!0', b('once'));
      batch.put('w!0', b('again')); // a later operation on a key wins
      expect(batch.length).toBe(5);
      // nothing is visible before the write
      expect(await store.get('w!2')).toBeUndefined();
      expect((await store.get('gone'))?.toString()).toBe('x');
      await batch.write();
      expect(await collect(store.entries({ gte: 'w!', lt: 'w"' }))).toEqual([
        ['w!0', 'again'],
        ['w!1', 'first'],
        ['w!2', 'SECND'],
      ]);
      expect(await store.get('gone')).toBeUndefined();
      // an empty batch writes nothing; a discarded one is never applied
      await expect(store.writeBatch().write()).resolves.toBeUndefined();
      const dropped = store.writeBatch();
      dropped.put('w!3', b('no'));
      await dropped.discard();
      expect(await store.get('w!3')).toBeUndefined();
    });

    it('never exposes half of a batch filled in one operation at a time', async () => {
      const batch = store.writeBatch();
      for (let i = 0; i < 2_000; i++) batch.put(`wb!${String(i).padStart(5, '0')}`, Buffer.alloc(256, i % 251));
      await expectAllOrNothing(store, 'wb!', batch.write());
    });

    it('lists entries in key order with gte (inclusive), lt (exclusive), reverse and limit', async () => {
      for (const k of ['d', 'b', 'e', 'a', 'c']) await store.put(k, b(k.toUpperCase()));
      expect(await collect(store.entries())).toEqual([
        ['a', 'A'],
        ['b', 'B'],
        ['c', 'C'],
        ['d', 'D'],
        ['e', 'E'],
      ]);
      expect(await keys(store, { gte: 'b', lt: 'd' })).toEqual(['b', 'c']);
      expect(await keys(store, { gte: 'bb' })).toEqual(['c', 'd', 'e']);
      expect(await keys(store, { lt: 'c' })).toEqual(['a', 'b']);
      expect(await keys(store, { reverse: true })).toEqual(['e', 'd', 'c', 'b', 'a']);
      expect(await keys(store, { gte: 'b', lt: 'e', reverse: true, limit: 2 })).toEqual(['d', 'c']);
      expect(await keys(store, { limit: 2 })).toEqual(['a', 'b']);
      expect(await keys(store, { gte: 'd', lt: 'b' })).toEqual([]);
    });

    it('orders keys by UTF-8 bytes, not UTF-16 code units', async () => {
      // UTF-16 order would be: A, z, é, 😀 (surrogate 0xd83d), U+FFFD; UTF-8 puts 😀 (0xf0..) last.
      const ks = ['\uFFFD', 'z', '😀', 'A', 'é'];
      for (const k of ks) await store.put(k, b(k));
      expect(await keys(store)).toEqual(['A', 'z', 'é', '\uFFFD', '😀']);
      expect(await keys(store, { gte: '\uFFFD' })).toEqual(['\uFFFD', '😀']);
    });

    it('stops cleanly when a scan is abandoned early', async () => {
      for (let i = 0; i < 50; i++) await store.put(`k${String(i).padStart(2, '0')}`, b(String(i)));
      for await (const [k] of store.entries()) {
        expect(k).toBe('k00');
        break;
      }
      await store.put('after', b('ok'));
      expect((await store.get('after'))?.toString()).toBe('ok');
    });

    it('clears a range, leaving keys outside it', async () => {
      for (const k of ['a', 'b', 'c', 'd']) await store.put(k, b(k));
      await store.clear({ gte: 'b', lt: 'd' });
      expect(await keys(store)).toEqual(['a', 'd']);
      await store.clear();
      expect(await keys(store)).toEqual([]);
    });

    it('isolates sub stores under their prefix', async () => {
      const horses = store.sub('horse!');
      const jockeys = store.sub('jockey!');
      await horses.put('1', b('h1'));
      await horses.put('2', b('h2'));
      await jockeys.put('1', b('j1'));
      await store.put('horse"', b('just past the prefix'));
      await store.put('horse', b('the prefix minus its separator'));

      expect((await horses.get('1'))?.toString()).toBe('h1');
      expect((await jockeys.get('1'))?.toString()).toBe('j1');
      expect((await store.get('horse!1'))?.toString()).toBe('h1');
      expect(await collect(horses.entries())).toEqual([
        ['1', 'h1'],
        ['2', 'h2'],
      ]);
      expect(await keys(horses, { reverse: true, limit: 1 })).toEqual(['2']);
      expect(await keys(horses, { gte: '2' })).toEqual(['2']);
      expect(await keys(horses, { lt: '2' })).toEqual(['1']);
      expect((await horses.getMany(['2', '1', '3'])).map((v) => v?.toString())).toEqual(['h2', 'h1', undefined]);

      await horses.clear();
      expect(await keys(horses)).toEqual([]);
      expect(await keys(store)).toEqual(['horse', 'horse"', 'jockey!1']);
    });

    it('bounds a sub store by bytes, including keys with 4-byte characters', async () => {
      const sub = store.sub('p!');
      await sub.put('😀', b('emoji'));
      await sub.put('\u{10FFFF}tail', b('max code point'));
      await store.put('p"', b('outside'));
      expect(await keys(sub)).toEqual(['😀', '\u{10FFFF}tail']);
      expect(await keys(sub, { reverse: true })).toEqual(['\u{10FFFF}tail', '😀']);
      await sub.clear();
      expect(await keys(store)).toEqual(['p"']);
    });

    it('nests sub stores by concatenating prefixes', async () => {
      const nested = store.sub('a!').sub('b!');
      await nested.batch([
        { type: 'put', key: 'x', value: b('1') },
        { type: 'put', key: 'y', value: b('2') },
        { type: 'del', key: 'y' },
      ]);
      expect((await store.get('a!b!x'))?.toString()).toBe('1');
      expect((await store.sub('a!b!').get('x'))?.toString()).toBe('1');
      expect(await keys(store.sub('a!'))).toEqual(['b!x']);
      await nested.del('x');
      expect(await keys(store)).toEqual([]);
    });

    it('treats closing a sub store as a no-op for the shared database', async () => {
      const sub = store.sub('s!');
      await sub.put('k', b('v'));
      await sub.close();
      expect((await store.get('s!k'))?.toString()).toBe('v');
      await store.put('k2', b('v2'));
      expect((await store.sub('s!').get('k'))?.toString()).toBe('v');
    });
  });
}
