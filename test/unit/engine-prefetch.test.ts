import { describe, expect, it } from 'vitest';
import type { InputEvent } from '../../domain/events.js';
import { generateFeed } from '../../domain/generator/index.js';
import { AnalyticsEngine } from '../../streams/processors/analytics-engine.js';
import { EngineState } from '../../streams/processors/engine-state.js';
import { countingStore } from '../support/counting-store.js';

/**
 * One more day on a state opened from its store (a `racing process` after the history): the day's
 * results are for races carded the days before, so nothing they link is in memory. The batch's
 * prefetch reads, in a few multi-gets, the races, the horses and entity heads their stored cards name
 * and the months their runs go into; linking them then reads nothing one key at a time (it read
 * thousands of keys one by one, each an await, before the prefetch covered results without a card).
 */
describe('the prefetch of a batch of results whose cards came earlier', () => {
  it('leaves nothing for linking them to read key by key', async () => {
    const feed = [...generateFeed({ from: '2024-03-25', to: '2024-04-12' })] as InputEvent[];
    const dayStart = Date.parse('2024-04-10T00:00:00Z');
    const dayEnd = Date.parse('2024-04-11T00:00:00Z');
    const history = feed.filter((e) => e.value.publishedAt < dayStart);
    const day = feed.filter((e) => e.value.publishedAt >= dayStart && e.value.publishedAt < dayEnd);
    const results = day.filter((e) => e.kind === 'result');
    expect(results.length).toBeGreaterThan(10);

    const counted = countingStore();
    const before = new AnalyticsEngine(new EngineState(counted.store));
    await before.applyEvents(history);
    await before.flush();
    await counted.store.batch(before.state.takeDirty());

    // a new process: the state opened from the store holds nothing but the courses
    const engine = new AnalyticsEngine(await EngineState.open(counted.store));
    counted.gets.length = 0;
    counted.multiGets = 0;
    await engine.prefetch(day);
    expect(counted.gets).toEqual([]);
    expect(counted.multiGets).toBeLessThanOrEqual(8);
    await engine.applyEvents(day);
    expect(counted.gets).toEqual([]);
    expect(engine.counters.results).toBe(results.length);
  });
});
