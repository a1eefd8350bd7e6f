import { describe, expect, it } from 'vitest';
import { EventIndex } from '../../state/aggregates/event-index.js';

describe('EventIndex', () => {
  it('answers window queries with the point-in-time correction', () => {
    const idx = new EventIndex(1);
    idx.upsert('a', 100, 110, [1]);
    idx.upsert('b', 200, 210, [0]);
    idx.upsert('c', 300, 900, [1]); // published late
    idx.upsert('d', 400, 410, [1]);
    expect(idx.window(0, 500)).toEqual({ n: 3, sums: [2], latestVisible: 410 });
    expect(idx.window(0, 1000)).toEqual({ n: 4, sums: [3], latestVisible: 900 });
    expect(idx.window(150, 1000)).toEqual({ n: 3, sums: [2], latestVisible: 900 });
    expect(idx.window(0, 200)).toEqual({ n: 1, sums: [1], latestVisible: 110 });
    expect(idx.window(0, 205)).toEqual({ n: 1, sums: [1], latestVisible: 110 });
  });

  it('keeps sums right through out-of-order inserts, replacements and removals', () => {
    const idx = new EventIndex(2);
    idx.upsert('x', 500, 500, [1, 0]);
    idx.window(0, 1000);
    idx.upsert('y', 100, 100, [0, 1]);
    expect(idx.window(0, 1000).sums).toEqual([1, 1]);
    idx.upsert('x', 50, 60, [0, 0]);
    expect(idx.window(0, 1000).sums).toEqual([0, 1]);
    expect(idx.remove('y')).toBe(true);
    expect(idx.window(0, 1000)).toEqual({ n: 1, sums: [0, 0], latestVisible: 60 });
    expect(idx.remove('nope')).toBe(false);
    expect(EventIndex.fromJSON(idx.toJSON()).window(0, 1000)).toEqual(idx.window(0, 1000));
  });

  it('lists keys off after an instant', () => {
    const idx = new EventIndex(1);
    idx.upsert('r1:h', 10, 11, [0]);
    idx.upsert('r2:h', 20, 21, [0]);
    expect(idx.keysOffAfter(10)).toEqual(['r2:h']);
  });
});
