import { describe, expect, it } from 'vitest';
import { ENTITY_BY_KIND, ENTITY_KINDS, LAST_WIN_HORIZON } from '../../domain/features/entity-table.js';
import { EngineState, rollEndAt, rollYearsOf } from '../../streams/processors/engine-state.js';
import { decodeHead } from '../../streams/processors/engine-state-codec.js';
import type { StorePort } from '../../state/store-port.js';
import type { ChunkedIndex } from '../../state/aggregates/chunked-index.js';
import { memoryStore } from '../support/memory-store.js';

const DAY = 86_400_000;
const WIDTH = ENTITY_BY_KIND.get('sire')!.width;

/** One event a week for `years` years from 1990, each with a different vector. */
async function longHistory(state: EngineState, id: string, years: number): Promise<ChunkedIndex> {
  const idx = await state.index('sire', id, true);
  const start = Date.UTC(1990, 0, 1);
  for (let i = 0; i < years * 52; i++) {
    const off = start + i * 7 * DAY;
    const vec = Array.from({ length: WIDTH }, (_, d) => (i + d) % 3);
    idx.upsert(`R${i}`, off, off + 600_000, vec);
  }
  state.touchIndex(idx);
  return idx;
}

/**
 * Stream time moves to 2010: the old chunks of `idx` (S1's 1990..2009) leave memory, and one event on
 * 2010-01-05 changes it, in `idx` and in each of `also` (indexes without a store, never rolled up).
 * Returns the checkpoint's records.
 */
async function oneEventIn2010(state: EngineState, idx: ChunkedIndex, also: ChunkedIndex[] = []) {
  state.now = Date.UTC(2010, 0, 10);
  idx.touched = state.now;
  state.evict();
  const off = Date.UTC(2010, 0, 5);
  for (const i of [idx, ...also]) {
    await i.ensureFrom(off);
    i.upsert('NEW', off, off + 1, new Array<number>(WIDTH).fill(1));
  }
  state.touchIndex(idx);
  return state.takeDirty();
}

/** A view of `store` that records the keys of its multi-gets. */
function countingReads(store: StorePort): { spy: StorePort; reads: string[] } {
  const reads: string[] = [];
  return { spy: { ...store, getMany: (keys) => (reads.push(...keys), store.getMany(keys)) }, reads };
}

/** The keys of the sire S1's records in the next checkpoint. */
function checkpointKeysOfS1(state: EngineState): string[] {
  return state
    .takeDirty()
    .map((op) => op.key)
    .filter((k) => k.includes('!sire!S1'));
}

/**
 * An index is stored as a head (its years and pending races), one summary block per year and one record
 * per month: a checkpoint after one more event rewrites that event's month and year, not the history.
 */
describe('entity index storage by year', () => {
  it('writes one month, one year block and no head for an event in a year it already has', async () => {
    const store = memoryStore();
    const state = new EngineState(store);
    await longHistory(state, 'S1', 20);
    const first = state.takeDirty();
    expect(first.filter((op) => op.key.startsWith('y!sire!S1!'))).toHaveLength(20);
    expect(first.filter((op) => op.key === 'i!sire!S1')).toHaveLength(1);
    await store.batch(first);

    const idx = (await state.index('sire', 'S1'))!;
    const off = Date.UTC(2005, 5, 10);
    idx.upsert('LATE', off, off + 600_000, new Array<number>(WIDTH).fill(1));
    state.touchIndex(idx);
    const ops = state.takeDirty().filter((op) => op.key.includes('!sire!S1'));
    expect(ops.map((op) => op.key).sort()).toEqual([
      `k!sire!S1!${Date.UTC(2005, 5, 1)}`,
      `y!sire!S1!${Date.UTC(2005, 0, 1)}`,
    ]);
    // the year block holds 12 months whatever the length of the history
    const block = ops.find((op) => op.key.startsWith('y!'))!;
    expect(block.type === 'put' && block.value.byteLength).toBe(8 * (1 + 12 * 3 + 12 * WIDTH));
  });

  it('writes the head when a year is added or a pending race changes', async () => {
    const state = new EngineState(memoryStore());
    const idx = await longHistory(state, 'S1', 2);
    state.takeDirty();
    const off = Date.UTC(1995, 2, 3);
    idx.upsert('NEW', off, off + 1, new Array<number>(WIDTH).fill(0));
    state.touchIndex(idx);
    expect(checkpointKeysOfS1(state)).toContain('i!sire!S1');
    idx.setPending('P1', off + DAY);
    state.touchIndex(idx);
    expect(checkpointKeysOfS1(state)).toEqual(['i!sire!S1']);
  });

  it('reads back the same index: every window, the pending races, and further changes', async () => {
    const store = memoryStore();
    const state = new EngineState(store);
    const original = await longHistory(state, 'S1', 6);
    original.setPending('P1', Date.UTC(1996, 0, 5));
    await store.batch(state.takeDirty());

    const reread = (await new EngineState(store).index('sire', 'S1'))!;
    expect(reread).not.toBe(original);
    expect([...reread.pending]).toEqual([['P1', Date.UTC(1996, 0, 5)]]);
    const queries: [number, number][] = [
      [Number.NEGATIVE_INFINITY, Date.UTC(1996, 0, 1)],
      [Date.UTC(1991, 3, 9), Date.UTC(1993, 7, 21)],
      [Date.UTC(1995, 0, 1), Date.UTC(1995, 0, 20)],
    ];
    for (const [from, t] of queries) {
      await reread.ensure(from, t);
      expect(reread.window(from, t)).toEqual(original.window(from, t));
    }
    const off = Date.UTC(1992, 4, 4);
    for (const idx of [original, reread]) {
      await idx.ensureFrom(off);
      idx.upsert('X', off, off + 1, new Array<number>(WIDTH).fill(2));
    }
    expect(reread.window(Number.NEGATIVE_INFINITY, Date.UTC(1996, 0, 1))).toEqual(
      original.window(Number.NEGATIVE_INFINITY, Date.UTC(1996, 0, 1)),
    );
  });

  it('writes each year block as the raw doubles of yearBlock, none overwritten by a later one', async () => {
    const state = new EngineState(memoryStore());
    const idx = await longHistory(state, 'S1', 30);
    // every block is encoded before any is read: a block written over by a later one would show here
    const blocks = state.takeDirty().filter((op) => op.key.startsWith('y!sire!S1!'));
    expect(blocks).toHaveLength(30);
    for (const op of blocks) {
      const year = Number(op.key.slice('y!sire!S1!'.length));
      const expected = idx.yearBlock(year);
      expect(op.type === 'put' && [...new Float64Array(new Uint8Array(op.value).slice().buffer)]).toEqual([
        ...expected,
      ]);
    }
  });

  it('writes each head with its own years and pending races, none overwritten by a later one', async () => {
    const store = memoryStore();
    const state = new EngineState(store);
    // heads of different lengths, all encoded in one checkpoint before any is read back
    const years = [1, 7, 3, 12];
    for (const [n, y] of years.entries()) {
      const idx = await longHistory(state, `S${n}`, y);
      idx.setPending(`P${n}`, Date.UTC(2020, 0, 1 + n));
    }
    await store.batch(state.takeDirty());
    const reread = new EngineState(store);
    for (const [n, y] of years.entries()) {
      const idx = (await reread.index('sire', `S${n}`))!;
      expect(idx.toHead()).toEqual({
        years: Array.from({ length: y }, (_, i) => Date.UTC(1990 + i, 0, 1)),
        pendingRaces: [`P${n}`],
        pendingOffs: [Date.UTC(2020, 0, 1 + n)],
        roll: [],
      });
    }
  });

  it('rolls the old years up into the head: a reload reads the recent years only, and the old ones when a query or a change needs them', async () => {
    const store = memoryStore();
    // six years apart, as the five-year keys have (a sire's own distance is one year: the next test)
    const state = new EngineState(store, 6);
    const original = await longHistory(state, 'S1', 20); // 1990..2009
    await store.batch(state.takeDirty());
    // the reference: the same events in an index that is never rolled up (no store)
    const reference = await longHistory(new EngineState(), 'S1', 20);

    // stream time moves to 2010: the old chunks leave memory, and the next change rolls their years up
    const ops = await oneEventIn2010(state, original, [reference]);
    expect(original.rolled).toBe(true);
    const headOp = ops.find((op) => op.key === 'i!sire!S1')!;
    const head = decodeHead(headOp.type === 'put' ? headOp.value : Buffer.alloc(0));
    expect(rollEndAt(state.now, 6)).toBe(Date.UTC(2004, 0, 1));
    expect(head.roll[0]).toBe(Date.UTC(2004, 0, 1));
    expect(head.roll[1]).toBe(reference.window(Number.NEGATIVE_INFINITY, Date.UTC(2004, 0, 1)).n); // 1990..2003's events
    expect(head.roll[1]).toBe(731);
    expect(head.years).toHaveLength(21); // every year stays named (and its block stored)
    await store.batch(ops);

    const { spy, reads } = countingReads(store);
    const second = new EngineState(spy, 6);
    const reread = (await second.index('sire', 'S1'))!;
    const yearReads = () => reads.filter((k) => k.startsWith('y!sire!S1!')).length;
    expect(yearReads()).toBe(7); // 2004..2010
    const t = Date.UTC(2010, 0, 20);
    for (const from of [Number.NEGATIVE_INFINITY, t - 1826 * DAY, t - 365 * DAY]) {
      await reread.ensure(from, t);
      expect(reread.window(from, t)).toEqual(reference.window(from, t));
    }
    expect(yearReads()).toBe(7); // whole history and five years: answered without the old years
    expect(reread.rolled).toBe(true);

    // a window starting in 1995 needs those months apart: the rolled years are read back
    const from = Date.UTC(1995, 3, 1);
    await reread.ensure(from, t);
    expect(reread.rolled).toBe(false);
    expect(yearReads()).toBe(7 + 14);
    expect(reread.window(from, t)).toEqual(reference.window(from, t));

    // a late change to 1992: the stored total no longer holds, so the head is written again with it
    const late = Date.UTC(1992, 4, 4);
    const vec = new Array<number>(WIDTH).fill(1);
    for (const idx of [reread, reference]) {
      await idx.ensureFrom(late);
      idx.upsert('LATE', late, t - DAY, vec);
    }
    second.now = state.now;
    second.touchIndex(reread);
    const lateOps = second.takeDirty();
    expect(lateOps.map((op) => op.key)).toContain('i!sire!S1');
    await store.batch(lateOps);
    const third = (await new EngineState(store, 6).index('sire', 'S1'))!;
    for (const f of [Number.NEGATIVE_INFINITY, from]) {
      await third.ensure(f, t);
      expect(third.window(f, t)).toEqual(reference.window(f, t));
    }
  });

  it("rolls each kind up as far back as its longest detailed read reaches, a sire's to the year before", async () => {
    const distances = Object.fromEntries(ENTITY_KINDS.map((k) => [k.kind, rollYearsOf(k)]));
    // whole-history sums only: one year; 365 days: one; the jockey's and trainer's five-year tagged
    // windows (jockey+course, trainer+course): six, beyond their last-win walk's 800 days
    expect(distances).toEqual({ sire: 1, dsire: 1, dam: 1, course: 1, owner: 1, jockey: 6, trainer: 6 });
    for (const k of ENTITY_KINDS) {
      const reach = Math.max(
        k.lastDim !== undefined ? LAST_WIN_HORIZON : 0,
        ...k.windowsMs.filter((w) => Number.isFinite(w)),
        ...(k.tags ?? []).flatMap((c) => c.windowsMs),
      );
      // a read ending at any instant of a year starts at or after the first rolled-up instant
      for (const now of [Date.UTC(2012, 0, 1), Date.UTC(2012, 11, 31, 23), Date.UTC(2013, 0, 1)]) {
        expect(now - reach).toBeGreaterThanOrEqual(rollEndAt(now, rollYearsOf(k)));
      }
    }

    const store = memoryStore();
    const state = new EngineState(store);
    const original = await longHistory(state, 'S1', 20); // 1990..2009
    await store.batch(state.takeDirty());
    const ops = await oneEventIn2010(state, original);
    const headOp = ops.find((op) => op.key === 'i!sire!S1')!;
    const head = decodeHead(headOp.type === 'put' ? headOp.value : Buffer.alloc(0));
    expect(head.roll[0]).toBe(Date.UTC(2009, 0, 1));
    await store.batch(ops);
    const { spy, reads } = countingReads(store);
    const reread = (await new EngineState(spy).index('sire', 'S1'))!;
    expect(reads.filter((k) => k.startsWith('y!sire!S1!'))).toEqual([
      `y!sire!S1!${Date.UTC(2009, 0, 1)}`,
      `y!sire!S1!${Date.UTC(2010, 0, 1)}`,
    ]);
    const t = Date.UTC(2010, 0, 20);
    await reread.ensure(Number.NEGATIVE_INFINITY, t);
    expect(reread.window(Number.NEGATIVE_INFINITY, t).n).toBe(20 * 52 + 1);
  });

  it('fails loudly when a year block the head names is missing', async () => {
    const store = memoryStore();
    const state = new EngineState(store);
    await longHistory(state, 'S1', 3);
    await store.batch(state.takeDirty());
    await store.batch([{ type: 'del', key: `y!sire!S1!${Date.UTC(1991, 0, 1)}` }]);
    await expect(new EngineState(store).index('sire', 'S1')).rejects.toThrow(
      /missing the summaries of sire S1 for 1991/,
    );
  });
});
