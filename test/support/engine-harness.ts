import type { AnalyticsRow, Course, RaceCard, RaceResult } from '../../domain/avro-types.generated.js';
import type { CardEvent, CourseEvent, InputEvent, ResultEvent } from '../../domain/events.js';
import { AnalyticsEngine } from '../../streams/processors/analytics-engine.js';
import { EngineState } from '../../streams/processors/engine-state.js';

export type Ev = InputEvent;

export const ev = {
  card: (value: RaceCard): CardEvent => ({ kind: 'card', value }),
  result: (value: RaceResult): ResultEvent => ({ kind: 'result', value }),
  course: (value: Course): CourseEvent => ({ kind: 'course', value }),
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
      else if (e.kind === 'result') await engine.applyResult(e.value);
      else await engine.applyCourse(e.value);
    }
    if ((i + 1) % flushEvery === 0) await flush();
  }
  await flush();
  return { rows, engine };
}

const TIE_ORDER = { card: 0, result: 1, course: 2 } as const;

/** Events in feed order: by publishedAt; on ties cards, then results, then course versions. */
export function feedOrder<E extends Ev>(events: readonly E[]): E[] {
  return [...events].sort((a, b) => a.value.publishedAt - b.value.publishedAt || TIE_ORDER[a.kind] - TIE_ORDER[b.kind]);
}
