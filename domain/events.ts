/**
 * The event unions, defined once: what the input topics carry (cards, results, courses), what a
 * producer publishes (the same with its publish time), and what a read model applies (cards, results
 * and the analytics topic's rows as bytes).
 */
import type { Course, CourseSnapshot, RaceCard, RaceResult } from './avro-types.generated.js';

export type CardEvent = { kind: 'card'; value: RaceCard };
export type ResultEvent = { kind: 'result'; value: RaceResult };
export type CourseEvent = { kind: 'course'; value: Course };

/** A decoded, valid value of an input topic. */
export type InputEvent = CardEvent | ResultEvent | CourseEvent;

/** An input event as a producer (generator, importer, operator) publishes it: record timestamp = publishedAt. */
export type PublishableEvent = InputEvent & { publishedAt: number };

/** A row of racing.analytics.v1 as its topic carries it: key raceId:horseId, Avro bytes or null (tombstone). */
export type RowEvent = { kind: 'row'; key: string; value: Buffer | null };

/**
 * A row of racing.course-snapshots.v1: key courseId:period:discipline:distanceBucket:surface, the decoded
 * value or null (tombstone).
 */
export type SnapshotEvent = { kind: 'snapshot'; key: string; value: CourseSnapshot | null };

/**
 * What the read model applies: races and course versions from the input topics, rows from the analytics
 * topic, course snapshots from theirs.
 */
export type ViewEvent = CardEvent | ResultEvent | CourseEvent | RowEvent | SnapshotEvent;
