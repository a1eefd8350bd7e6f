/**
 * Deterministic, seeded generator of British, Irish and some international racing, 1988 to today:
 * course, card and result events in feed order. See docs/generator.md.
 */
import { FeedGenerator, type PopulationStats, resolveOptions } from './feed.js';
import { type GenerationSummary, generationSummary } from './summary.js';
import type { FeedEvent, GenerateOptions } from './types.js';

export type { FeedEvent, GenerateOptions } from './types.js';
export { compareFeedEvents } from './types.js';
export { formatGenerationSummary, type GenerationSummary, generationSummary } from './summary.js';
export type { PopulationStats } from './feed.js';

/**
 * The events of every meeting from `from` to `to` (local meeting dates, inclusive), lazily, day by
 * day, in feed order. Each iteration starts afresh and yields the same events.
 */
export function generateFeed(options: GenerateOptions): Iterable<FeedEvent> {
  resolveOptions(options); // validate eagerly
  return { [Symbol.iterator]: () => new FeedGenerator(options).events() };
}

/** Generates the feed and summarises it, with the generator's own population counters. */
export function generationStats(options: GenerateOptions): GenerationSummary & { population: PopulationStats } {
  const g = new FeedGenerator(options);
  const summary = generationSummary(g.events());
  return { ...summary, population: g.stats() };
}
