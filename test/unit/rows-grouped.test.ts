import { describe, expect, it } from 'vitest';
import type { InputEvent } from '../../domain/events.js';
import { generateFeed } from '../../domain/generator/index.js';
import { AnalyticsEngine, type FlushOptions, type RowOutput } from '../../streams/processors/analytics-engine.js';
import { EngineState } from '../../streams/processors/engine-state.js';

/**
 * A catch-up computes its races' rows in groups (FlushOptions.group: computeRowsMany, each entity kind's
 * features for all the group's rows, grouped by key). A race's rows must be the same bytes whichever races
 * are computed beside it: the engines below take the same feed in the same batches and flush as the
 * processor does (the direct races first, then the dependents), one race at a time, in groups of 7
 * (groups ending mid-slice) and in groups of 256, in new row objects and in reused ones (RowPool: the
 * processor's emit encodes each row at once).
 */

type Out = [key: string, value: string | null, timestamp: number];

const out = (o: RowOutput): Out => [o.key, o.value ? Buffer.from(o.value).toString('base64') : null, o.timestamp];

async function replay(
  feed: readonly InputEvent[],
  group: number,
  reuseRows = false,
): Promise<{ outs: Out[][]; races: number; rowObjects: number }> {
  const engine = new AnalyticsEngine(new EngineState());
  const outs: Out[][] = [];
  const objects = new Set<object>();
  // as the processor takes them: each output encoded (here: copied) during its emit call
  const flush = async (options: FlushOptions): Promise<Out[]> => {
    const got: Out[] = [];
    const emit = (o: RowOutput): void => {
      if (o.row) objects.add(o.row);
      got.push(out(o));
    };
    const returned = await engine.flush(undefined, Number.POSITIVE_INFINITY, { ...options, group, reuseRows, emit });
    expect(returned).toEqual([]);
    return got;
  };
  for (let i = 0; i < feed.length; i += 1_500) {
    await engine.applyEvents(feed.slice(i, i + 1_500));
    outs.push(await flush({ directOnly: true }));
    outs.push(await flush({}));
  }
  return { outs, races: engine.counters.racesRecomputed, rowObjects: objects.size };
}

describe('rows computed in groups', () => {
  it('are the bytes of rows computed race by race, for any group size, in new or reused row objects', async () => {
    const feed = [...generateFeed({ from: '2024-03-01', to: '2024-04-10' })] as InputEvent[];
    const one = await replay(feed, 1);
    // batches of 1,500 events flush hundreds of races each: groups of 256 hold many races sharing keys
    expect(one.races).toBeGreaterThan(1_000);
    const rows = one.outs.flat().filter(([, v]) => v !== null).length;
    expect(rows).toBeGreaterThan(10_000);
    expect(one.rowObjects).toBe(rows);
    for (const [group, reuse] of [
      [7, false],
      [256, false],
      [1, true],
      [7, true],
      [256, true],
    ] as const) {
      const grouped = await replay(feed, group, reuse);
      expect(grouped.races).toBe(one.races);
      // reused: about as many row objects as one group's rows, so a group of 256 races holds many at once
      if (reuse) expect(grouped.rowObjects).toBeLessThan(rows / 5);
      if (reuse && group === 1) expect(grouped.rowObjects).toBeLessThan(200);
      if (reuse && group === 256) expect(grouped.rowObjects).toBeGreaterThan(1_000);
      for (let b = 0; b < one.outs.length; b++)
        expect(grouped.outs[b], `group ${group}, reuse ${reuse}, flush ${b}`).toEqual(one.outs[b]);
    }
  });
});
