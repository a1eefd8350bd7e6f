/**
 * Publishes input events (from the generator or an importer) to the input topics in feed order, in
 * batches: cards and results keyed by raceId, courses by courseId, record timestamp = publishedAt.
 */
import type { PublishableEvent } from '../domain/events.js';
import type { Codecs } from './codecs.js';
import type { LogPort, OutRecord } from './log-port.js';

export type { PublishableEvent };

export interface PublishStats {
  cards: number;
  results: number;
  courses: number;
}

export async function publishEvents(
  log: LogPort,
  codecs: Codecs,
  events: Iterable<PublishableEvent> | AsyncIterable<PublishableEvent>,
  options: { batchSize?: number; onProgress?: (s: PublishStats, lastPublishedAt: number) => void } = {},
): Promise<PublishStats> {
  const batchSize = options.batchSize ?? 10_000;
  const stats: PublishStats = { cards: 0, results: 0, courses: 0 };
  let cards: OutRecord[] = [];
  let results: OutRecord[] = [];
  let courses: OutRecord[] = [];
  let last = 0;
  const flush = async () => {
    // Cards before results so a consumer reading one topic at a time still sees cards first.
    if (courses.length) await log.produce(codecs.topics.courses, courses);
    if (cards.length) await log.produce(codecs.topics.cards, cards);
    if (results.length) await log.produce(codecs.topics.results, results);
    cards = [];
    results = [];
    courses = [];
    options.onProgress?.(stats, last);
  };
  for await (const e of events) {
    last = e.publishedAt;
    if (e.kind === 'card') {
      cards.push({ key: e.value.raceId, value: codecs.card.encode(e.value), timestamp: e.publishedAt });
      stats.cards++;
    } else if (e.kind === 'result') {
      results.push({ key: e.value.raceId, value: codecs.result.encode(e.value), timestamp: e.publishedAt });
      stats.results++;
    } else {
      courses.push({ key: e.value.courseId, value: codecs.course.encode(e.value), timestamp: e.publishedAt });
      stats.courses++;
    }
    if (cards.length + results.length + courses.length >= batchSize) await flush();
  }
  await flush();
  return stats;
}
