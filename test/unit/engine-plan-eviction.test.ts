import { describe, expect, it } from 'vitest';
import { AnalyticsEngine } from '../../streams/processors/analytics-engine.js';
import { EngineState, RESIDENCY } from '../../streams/processors/engine-state.js';
import { card, jockey, race, result } from '../support/builders.js';
import { memoryStore } from '../support/memory-store.js';

/**
 * A race caches the entity indexes its links touch (engine-links.ts LinkPlan). When the state evicts an
 * index while the race stays resident, the race must look the index up again: a change applied to the
 * evicted object would be lost (here: the race's pending interest would stay in the reloaded index).
 */
describe('link plans across an eviction', () => {
  it('a resident race whose entity indexes were evicted unlinks from the reloaded ones', async () => {
    const store = memoryStore();
    const engine = new AnalyticsEngine(new EngineState(store));
    const checkpoint = async () => {
      await engine.flush();
      await store.batch(engine.state.takeDirty());
    };
    // declared more than a year ahead: pending interest in jockey J1's index
    const farPub = '2023-11-01T10:00:00Z';
    const nearPub = '2024-11-20T10:00:00Z';
    // J1's index must be idle for longer than an index stays resident
    expect(Date.parse(nearPub) - Date.parse(farPub)).toBeGreaterThan(RESIDENCY.indexIdle);
    await engine.applyCard(
      card({
        r: 'FAR',
        off: '2024-12-01T14:00:00Z',
        pub: farPub,
        runners: [{ h: 'A', j: 'J1' }, { h: 'B' }],
      }),
    );
    await checkpoint();
    // another race much later moves stream time on: J1's index is idle and goes, the far race stays
    await engine.applyCard(
      card({
        r: 'NEAR',
        c: 'Other',
        off: '2024-11-21T14:00:00Z',
        pub: nearPub,
        runners: [{ h: 'C', j: 'J2' }],
      }),
    );
    await checkpoint();
    const before = engine.state.indexEpoch;
    const evicted = engine.state.evict();
    expect(evicted.indexes).toBeGreaterThan(0);
    expect(engine.state.indexEpoch).toBeGreaterThan(before);
    expect(engine.state.peekRace(race('FAR'))).toBeDefined();
    expect(engine.state.peekIndex('jockey', jockey('J1'))).toBeUndefined();

    await engine.applyResult(
      result({
        r: 'FAR',
        pub: '2024-12-01T14:10:00Z',
        runners: [
          { h: 'A', pos: 1 },
          { h: 'B', pos: 2 },
        ],
      }),
    );
    await checkpoint();

    const reopened = await EngineState.open(store);
    const j1 = await reopened.index('jockey', jockey('J1'));
    expect(j1).toBeDefined();
    expect([...j1!.pending.keys()]).toEqual([]);
    expect(j1!.size).toBe(1);
  });
});
