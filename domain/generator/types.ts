import type { PublishableEvent } from '../events.js';

export interface GenerateOptions {
  /** First meeting date, YYYY-MM-DD, inclusive. */
  from: string;
  /** Last meeting date, YYYY-MM-DD, inclusive. */
  to: string;
  /** PRNG seed (default 1). */
  seed?: number;
  /** Fraction of full volume (default 1): thins the fixture list and the jockey and trainer ranks. */
  scale?: number;
}

/** One input event, as a live feed would deliver it (the union of domain/events.ts, stamped). */
export type FeedEvent = PublishableEvent;

const KIND_RANK = { course: 0, card: 1, result: 2 } as const;

function tieKey(e: FeedEvent): string {
  return e.kind === 'course' ? e.value.courseId : e.value.raceId;
}

/** Feed order: publishedAt, then kind (course < card < result), then race (or course) id, then version. */
export function compareFeedEvents(a: FeedEvent, b: FeedEvent): number {
  if (a.publishedAt !== b.publishedAt) return a.publishedAt - b.publishedAt;
  if (a.kind !== b.kind) return KIND_RANK[a.kind] - KIND_RANK[b.kind];
  const ka = tieKey(a);
  const kb = tieKey(b);
  if (ka !== kb) return ka < kb ? -1 : 1;
  const va = a.kind === 'card' ? a.value.version : 0;
  const vb = b.kind === 'card' ? b.value.version : 0;
  return va - vb;
}
