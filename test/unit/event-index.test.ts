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

  it('reads back its records, and takes records out of order or with a wrong length', () => {
    const idx = new EventIndex(2);
    idx.upsert('b', 200, 210, [1, 0]);
    idx.upsert('a', 100, 300, [0, 1]);
    const { keys, rec } = idx.records();
    expect(keys).toEqual(['a', 'b']);
    expect([...rec]).toEqual([100, 300, 0, 1, 200, 210, 1, 0]);
    const bytes = (a: number[]) => new Uint8Array(Float64Array.from(a).buffer);
    const back = EventIndex.fromRecords(2, keys, bytes([...rec]));
    expect(back.toJSON()).toEqual(idx.toJSON());
    expect(back.window(0, 1000)).toEqual(idx.window(0, 1000));
    expect(back.window(0, 250)).toEqual({ n: 1, sums: [1, 0], latestVisible: 210 });
    // out of order: sorted on the way in, as upserts would
    const swapped = EventIndex.fromRecords(2, ['b', 'a'], bytes([200, 210, 1, 0, 100, 300, 0, 1]));
    expect(swapped.toJSON()).toEqual(idx.toJSON());
    expect(() => EventIndex.fromRecords(2, ['a'], bytes([1, 2, 3]))).toThrow(/24 bytes for 1 events of width 2/);
  });

  it('lists keys off after an instant', () => {
    const idx = new EventIndex(1);
    idx.upsert('r1:h', 10, 11, [0]);
    idx.upsert('r2:h', 20, 21, [0]);
    expect(idx.keysOffAfter(10)).toEqual(['r2:h']);
  });

  it('finds latestVisible among events off after T that were visible before their off (raw callers)', () => {
    const idx = new EventIndex(1);
    idx.upsert('a', 100, 110, [1]);
    idx.upsert('b', 500, 150, [1]); // visibleAt < off: not counted before its off, but its visibleAt is
    expect(idx.window(0, 200)).toEqual({ n: 1, sums: [1], latestVisible: 150 });
    expect(idx.window(0, 120)).toEqual({ n: 1, sums: [1], latestVisible: 110 });
    expect(idx.window(0, 100)).toEqual({ n: 0, sums: [0], latestVisible: 0 });
  });

  it('keeps has/remove/replace right through growth, shifts and compact()', () => {
    const idx = new EventIndex(1);
    for (let i = 0; i < 100; i++) idx.upsert(`r${i}`, 1000 - i * 10, 1000 - i * 10 + 5, [i % 2]); // all out of order
    expect(idx.size).toBe(100);
    expect(idx.keysOffAfter(970)).toEqual(['r2', 'r1', 'r0']);
    for (let i = 0; i < 100; i += 3) expect(idx.remove(`r${i}`)).toBe(true);
    idx.compact();
    for (let i = 0; i < 100; i++) expect(idx.has(`r${i}`)).toBe(i % 3 !== 0);
    idx.upsert('r1', 2000, 2001, [1]); // replace: moves to the end
    expect(idx.keysOffAfter(980)).toEqual(['r1']);
    expect(idx.window(Number.NEGATIVE_INFINITY, 3000)).toEqual({ n: 66, sums: [33], latestVisible: 2001 });
    expect(idx.toJSON().k).toHaveLength(66);
  });

  it('keeps the old answer for an inverted window (fromOff > T): a negative count', () => {
    const idx = new EventIndex(1);
    idx.upsert('a', 100, 110, [1]);
    idx.upsert('b', 200, 210, [1]);
    expect(idx.window(300, 150)).toEqual({ n: -1, sums: [-1], latestVisible: 110 });
  });
});
