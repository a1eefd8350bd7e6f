import { describe, expect, it } from 'vitest';
import { EngineState } from '../../streams/processors/engine-state.js';
import { countingStore } from '../support/counting-store.js';

/**
 * Entities without a history yet (a dam's first runner, a trainer's first runner with a jockey) are
 * looked up by every row computation of their races: the state remembers that the store has no index
 * for them, until the next eviction, instead of asking the store again each time.
 */
describe('indexes the store does not have', () => {
  it('are read from the store once until the next eviction, and created without a read', async () => {
    const { store, reads } = countingStore();
    const state = new EngineState(store);
    const dam = (id: string) => reads.filter((k) => k === `i!dam!${id}`).length;

    expect(await state.index('dam', 'D1')).toBeUndefined();
    expect(await state.index('dam', 'D1')).toBeUndefined();
    await state.prefetch({
      races: [],
      horses: [],
      indexes: [
        ['dam', 'D1'],
        ['dam', 'D2'],
      ],
    });
    expect(await state.index('dam', 'D2')).toBeUndefined();
    expect(dam('D1')).toBe(1);
    expect(dam('D2')).toBe(1);

    // created: resident from then on, and written at the checkpoint
    const created = await state.index('dam', 'D1', true);
    expect(dam('D1')).toBe(1);
    expect(await state.index('dam', 'D1')).toBe(created);
    state.touchIndex(created);
    await store.batch(state.takeDirty());

    // the eviction forgets what was absent (memory holds only what the stream asked since the checkpoint)
    state.evict();
    expect(await state.index('dam', 'D2')).toBeUndefined();
    expect(dam('D2')).toBe(2);
  });

  it('an index created after a miss is found by a state reopened on the store', async () => {
    const { store } = countingStore();
    const state = new EngineState(store);
    expect(await state.index('owner', 'O1')).toBeUndefined();
    const idx = await state.index('owner', 'O1', true);
    idx.setPending('R1', 1_000);
    state.touchIndex(idx);
    await store.batch(state.takeDirty());
    const reopened = await EngineState.open(store);
    expect((await reopened.index('owner', 'O1'))?.pending.get('R1')).toBe(1_000);
  });
});
