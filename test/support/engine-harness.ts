import type { AnalyticsRow, RaceCard, RaceResult } from '../../domain/avro-types.generated.js';
import { AnalyticsEngine } from '../../streams/processors/analytics-engine.js';
import { EngineState } from '../../streams/processors/engine-state.js';

export type Ev = { kind: 'card'; value: RaceCard } | { kind: 'result'; value: RaceResult };

export const ev = {
  card: (value: RaceCard): Ev => ({ kind: 'card', value }),
  result: (value: RaceResult): Ev => ({ kind: 'result', value }),
};

/**
 * Feeds events to a fresh engine (flushing every `flushEvery` events) and returns the current rows,
 * i.e. what a compacted topic would hold, keyed raceId:horseId.
 */
export async function runEngine(
  events: readonly Ev[],
  flushEvery = 1,
  state: EngineState = new EngineState(),
  /** after each flush, write the state to its store and evict everything clean (needs a store-backed state) */
  evictAll = false,
  /** apply the events between two flushes as one batch (`applyEvents`, as the processor does) */
  batched = false,
): Promise<{ rows: Map<string, AnalyticsRow>; engine: AnalyticsEngine }> {
  const engine = new AnalyticsEngine(state);
  const rows = new Map<string, AnalyticsRow>();
  const flush = async () => {
    for (const o of await engine.flush()) {
      if (o.row) rows.set(o.key, o.row);
      else rows.delete(o.key);
    }
    if (evictAll) {
      await state.store!.batch(state.takeDirty());
      const now = state.now;
      state.now = Number.POSITIVE_INFINITY;
      state.evict();
      state.now = now;
    }
  };
  for (let i = 0; i < events.length; i++) {
    if (batched) {
      if (i % flushEvery === 0) await engine.applyEvents(events.slice(i, i + flushEvery));
    } else {
      const e = events[i]!;
      if (e.kind === 'card') await engine.applyCard(e.value);
      else await engine.applyResult(e.value);
    }
    if ((i + 1) % flushEvery === 0) await flush();
  }
  await flush();
  return { rows, engine };
}

/** Events in feed order: by publishedAt, cards before results on ties. */
export function feedOrder(events: readonly Ev[]): Ev[] {
  return [...events].sort(
    (a, b) => a.value.publishedAt - b.value.publishedAt || (a.kind === b.kind ? 0 : a.kind === 'card' ? -1 : 1),
  );
}
