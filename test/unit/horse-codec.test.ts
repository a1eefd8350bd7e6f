/**
 * A horse's state record as the engine writes it (encodeHorse: the bytes of runs unchanged since the
 * last write or read are kept, not encoded again) is HORSE_TYPE's encoding exactly, whatever was done
 * to the runs in between (a run added last, one put in earlier, one replaced by a new object, one
 * removed, the pending races changed), and reads back (decodeHorse) to the same values, including a
 * record whose runs were written in more than one block.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HorseRun } from '../../domain/features/horse.js';
import { decodeHorse, encodeHorse, type EncodedRuns, HORSE_TYPE } from '../../streams/processors/engine-state-codec.js';

interface HorseState {
  runs: HorseRun[];
  pendingRaces: string[];
  pendingOffs: number[];
}

const pool = Array.from({ length: 40 }, () => (HORSE_TYPE.random() as unknown as HorseState).runs).flat();

const op = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), pick: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), pick: fc.nat(), at: fc.nat() }),
  fc.record({ kind: fc.constant('replace' as const), pick: fc.nat(), at: fc.nat() }),
  fc.record({ kind: fc.constant('remove' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('pending' as const), n: fc.nat({ max: 3 }) }),
  fc.record({ kind: fc.constant('reload' as const) }),
);

describe('horse state codec', () => {
  it('writes what HORSE_TYPE writes after any changes to the runs, and reads it back', () => {
    expect(pool.length).toBeGreaterThan(20);
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 40 }), (ops) => {
        const h: HorseState = { runs: [], pendingRaces: [], pendingOffs: [] };
        let kept: EncodedRuns | undefined;
        for (const o of ops) {
          // every run is a new object, as the engine makes them (a run is never changed in place)
          const fresh = (pick: number): HorseRun => ({ ...pool[pick % pool.length]! });
          if (o.kind === 'append') h.runs.push(fresh(o.pick));
          else if (o.kind === 'insert') h.runs.splice(o.at % (h.runs.length + 1), 0, fresh(o.pick));
          else if (o.kind === 'replace' && h.runs.length > 0) h.runs[o.at % h.runs.length] = fresh(o.pick);
          else if (o.kind === 'remove' && h.runs.length > 0) {
            const gone = h.runs[o.at % h.runs.length];
            h.runs = h.runs.filter((r) => r !== gone);
          } else if (o.kind === 'pending') {
            h.pendingRaces = Array.from({ length: o.n }, (_, i) => `rac_${i}`);
            h.pendingOffs = Array.from({ length: o.n }, (_, i) => 1_000 * i + 0.5);
          }
          const { value, kept: next } = encodeHorse(h.runs, h.pendingRaces, h.pendingOffs, kept);
          expect(Buffer.from(value).equals(HORSE_TYPE.toBuffer(h))).toBe(true);
          kept = next;
          if (o.kind === 'reload') {
            const back = decodeHorse(Buffer.from(value));
            expect(back.runs).toEqual(h.runs);
            expect([back.pendingRaces, back.pendingOffs]).toEqual([h.pendingRaces, h.pendingOffs]);
            h.runs = back.runs;
            kept = back.kept;
          }
        }
      }),
    );
  });

  it('keeps the bytes of the runs before the first one changed, and encodes only from there', () => {
    const runs = pool.slice(0, 5).map((r) => ({ ...r }));
    const first = encodeHorse(runs, [], [], undefined);
    const more = [...runs, { ...pool[6]! }];
    const second = encodeHorse(more, [], [], first.kept);
    // the first five runs' bytes are the same bytes, the sixth follows them
    expect(
      Buffer.from(second.kept.bytes.slice(0, first.kept.bytes.length), 'latin1').equals(
        Buffer.from(first.kept.bytes, 'latin1'),
      ),
    ).toBe(true);
    expect(second.kept.ends.slice(0, 5)).toEqual(first.kept.ends);
    // nothing changed: the kept encoding is handed back as it is
    expect(encodeHorse(more, ['rac_1'], [2.5], second.kept).kept).toBe(second.kept);
    // the same values in new objects are encoded again (a run is known by its object), to the same bytes
    const copies = more.map((r) => ({ ...r }));
    const third = encodeHorse(copies, [], [], second.kept);
    expect(third.kept).not.toBe(second.kept);
    expect(Buffer.from(third.kept.bytes, 'latin1').equals(Buffer.from(second.kept.bytes, 'latin1'))).toBe(true);
  });

  it('reads runs written in more than one block, without keeping their bytes; refuses a record with bytes left over', () => {
    const state = HORSE_TYPE.random() as unknown as HorseState;
    const runs = pool.slice(0, 3);
    const one = HORSE_TYPE.toBuffer({ ...state, runs });
    const runBytes = runs.map((r) => HORSE_TYPE.toBuffer({ ...state, runs: [r] }));
    // a record of one run: its count 1 (0x02), the run, a count of 0, then the pending part
    const pendingPart = HORSE_TYPE.toBuffer({ ...state, runs: [] }).subarray(1);
    const items = runBytes.map((b) => b.subarray(1, b.length - 1 - pendingPart.length));
    // blocks of one run and of two
    const blocks = Buffer.concat([
      Buffer.from([0x02]),
      items[0]!,
      Buffer.from([0x04]),
      items[1]!,
      items[2]!,
      Buffer.from([0x00]),
      pendingPart,
    ]);
    const back = decodeHorse(blocks);
    expect(back.runs).toEqual(runs);
    expect(back.kept).toBeUndefined();
    const again = encodeHorse(back.runs, back.pendingRaces, back.pendingOffs, back.kept);
    expect(Buffer.from(again.value).equals(one)).toBe(true);
    expect(() => decodeHorse(Buffer.concat([one, Buffer.from([0])]))).toThrow(/bytes/);
  });
});
