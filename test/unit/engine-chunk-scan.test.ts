/**
 * An index wanting many months at once (a tagged kind's five years, after a restart) reads them from
 * LevelDB in one range scan rather than one key each: the months installed are exactly the stored ones
 * (the window over them is right), and only what the scan cannot reach goes to the multi-get (keys of
 * months before and after 2001-09-09, whose instants have 12 and 13 digits and so do not sort together).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tagOf } from '../../domain/features/tags.js';
import { openLevelStore } from '../../state/adapters/level-store.js';
import type { StorePort } from '../../state/store-port.js';
import { EngineState } from '../../streams/processors/engine-state.js';

const DAY = 86_400_000;
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The store with the chunk keys each multi-get asked for counted. */
function counting(inner: StorePort): { store: StorePort; chunkReads: () => number } {
  let chunkReads = 0;
  const store: StorePort = {
    ...inner,
    sub: (p) => {
      const s = inner.sub(p);
      return {
        ...s,
        getMany: (keys) => {
          chunkReads += keys.filter((k) => k.startsWith('k!')).length;
          return s.getMany(keys);
        },
        entries: (r) => s.entries(r),
      };
    },
  };
  return { store, chunkReads: () => chunkReads };
}

/** One jockey+course index with one run a month for `months` months from `first`, two of them at another course. */
async function scenario(first: string, months: number) {
  const dir = mkdtempSync(join(tmpdir(), 'chunk-scan-'));
  dirs.push(dir);
  const level = await openLevelStore(dir);
  const { store, chunkReads } = counting(level);
  const e = store.sub('e/');
  const [a, b] = tagOf('crs_0123456789abcdef');
  const [c, d] = tagOf('crs_0123456789abcdeg');
  const state = new EngineState(e);
  const idx = await state.index('jc', 'jky_0000000000000001', true);
  const start = Date.parse(first);
  const offs: number[] = [];
  for (let m = 0; m < months; m++) {
    const off = Date.UTC(new Date(start).getUTCFullYear(), new Date(start).getUTCMonth() + m, 10, 14);
    offs.push(off);
    idx.upsert(`rac_${m}:hrs_1`, off, off + 600_000, m % 10 === 3 ? [c, d, 1] : [a, b, m % 2]);
  }
  state.touchIndex(idx);
  await e.batch(state.takeDirty());
  // reopened: the head and year blocks only; every month is read when a tagged window asks for it
  const reopened = new EngineState(e);
  const again = (await reopened.index('jc', 'jky_0000000000000001'))!;
  const t = offs[offs.length - 1]! + DAY;
  const from = t - 1826 * DAY;
  const want = again.missingAll(from, t).map((p) => [again, again.startAt(p)] as const);
  await reopened.loadChunks(want);
  const inWindow = offs.map((o, m) => ({ o, m })).filter(({ o }) => o >= from);
  const expected = {
    n: inWindow.filter(({ m }) => m % 10 !== 3).length,
    wins: inWindow.filter(({ m }) => m % 10 !== 3 && m % 2 === 1).length,
  };
  const w = again.windowTagged(from, t, a, b);
  await level.close();
  return { wanted: want.length, w, expected, chunkReads: chunkReads() };
}

describe('loading many months of one index', () => {
  it('reads them in one range scan, not key by key', async () => {
    const r = await scenario('2019-01-01', 40);
    expect(r.wanted).toBe(40);
    expect([r.w.n, r.w.sums[0]]).toEqual([r.expected.n, r.expected.wins]);
    expect(r.expected.n).toBeGreaterThan(30);
    expect(r.chunkReads).toBe(0);
  });

  it('takes what the scan cannot reach from the multi-get, with the same answer', async () => {
    // months from 1999-06 to 2003-05: instants of 12 digits until 2001-09, 13 from then on, so the first
    // month's key sorts after the last's and the scan finds nothing: all 48 come from the multi-get
    const r = await scenario('1999-06-01', 48);
    expect(r.wanted).toBe(48);
    expect([r.w.n, r.w.sums[0]]).toEqual([r.expected.n, r.expected.wins]);
    expect(r.chunkReads).toBe(48);
  });

  it('reads a few months key by key', async () => {
    const r = await scenario('2019-01-01', 3);
    expect([r.w.n, r.w.sums[0]]).toEqual([r.expected.n, r.expected.wins]);
    expect(r.chunkReads).toBe(3);
  });
});
