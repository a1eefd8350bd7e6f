import { describe, expect, it } from 'vitest';
import type { InputEvent } from '../../domain/events.js';
import { generateFeed } from '../../domain/generator/index.js';
import type { BatchOp } from '../../state/store-port.js';
import { AnalyticsEngine } from '../../streams/processors/analytics-engine.js';
import { EngineState, type StateRecordKind } from '../../streams/processors/engine-state.js';
import { memoryStore } from '../support/memory-store.js';

/** The kind of each state record by its key's prefix (engine-state.ts's key layout). */
const PREFIX: Record<string, StateRecordKind> = {
  'r!': 'races',
  'h!': 'horses',
  'k!': 'monthChunks',
  'y!': 'yearBlocks',
  'i!': 'indexHeads',
  'co!': 'courses',
};

/** Records and value bytes of the operations, by kind of record. */
function tally(ops: readonly BatchOp[]): Record<StateRecordKind, { records: number; bytes: number }> {
  const out = Object.fromEntries(Object.values(PREFIX).map((k) => [k, { records: 0, bytes: 0 }])) as Record<
    StateRecordKind,
    { records: number; bytes: number }
  >;
  for (const op of ops) {
    if (op.type !== 'put') continue;
    const prefix = Object.keys(PREFIX).find((p) => op.key.startsWith(p));
    if (!prefix) continue; // the format marker and the course-race index entries are not state records
    out[PREFIX[prefix]!].records++;
    out[PREFIX[prefix]!].bytes += op.value.length;
  }
  return out;
}

const sum = (a: ReturnType<typeof tally>, b: ReturnType<typeof tally>) =>
  Object.fromEntries(
    Object.entries(a).map(([k, v]) => [
      k,
      { records: v.records + b[k as StateRecordKind].records, bytes: v.bytes + b[k as StateRecordKind].bytes },
    ]),
  );

/**
 * What a checkpoint writes, counted by kind of record (`EngineState.written`, printed by `racing rebuild`
 * as `checkpoints.written`): the counts are those of the records the checkpoint hands to the store, and
 * they add up over checkpoints.
 */
describe("the state's written counts", () => {
  it('count every record a checkpoint writes, with its bytes, by kind, across checkpoints', async () => {
    const feed = [...generateFeed({ from: '2024-03-01', to: '2024-04-20' })] as InputEvent[];
    const cut = Date.parse('2024-04-01T00:00:00Z');
    const engine = new AnalyticsEngine(new EngineState(memoryStore()));

    await engine.applyEvents(feed.filter((e) => e.value.publishedAt < cut));
    await engine.flush();
    const first = tally(engine.state.takeDirty());
    expect(engine.state.written).toEqual(first);
    for (const kind of ['races', 'horses', 'monthChunks', 'yearBlocks', 'indexHeads', 'courses'] as const) {
      expect(first[kind].records, kind).toBeGreaterThan(0);
      expect(first[kind].bytes, kind).toBeGreaterThan(first[kind].records);
    }

    await engine.applyEvents(feed.filter((e) => e.value.publishedAt >= cut));
    await engine.flush();
    const second = tally(engine.state.takeDirty());
    expect(second.races.records).toBeGreaterThan(0);
    expect(engine.state.written).toEqual(sum(first, second));
  });
});
