/** Topic names (the contract with downstream consumers) and their specs. */
import type { TopicSpec } from './log-port.js';

export const TOPICS = {
  cards: 'racing.cards.v1',
  results: 'racing.results.v1',
  courses: 'racing.courses.v1',
  analytics: 'racing.analytics.v1',
  courseSnapshots: 'racing.course-snapshots.v1',
  deadLetter: 'racing.dead-letter.v1',
} as const;

export interface TopicSettings {
  /** Partitions of every topic created by the service. */
  partitions: number;
  /** Longer than a full rebuild, so a consumer replaying from the start sees every update before compaction. */
  compactionLagMs: number;
}

export const DEFAULT_TOPIC_SETTINGS: TopicSettings = { partitions: 4, compactionLagMs: 24 * 3600_000 };

export function topicSpecs(s: TopicSettings = DEFAULT_TOPIC_SETTINGS): TopicSpec[] {
  const longRetention = { 'cleanup.policy': 'delete', 'retention.ms': '-1' };
  const compact = {
    'cleanup.policy': 'compact',
    'min.compaction.lag.ms': String(s.compactionLagMs),
    'delete.retention.ms': String(s.compactionLagMs),
  };
  return [
    { name: TOPICS.cards, partitions: s.partitions, compacted: false, config: longRetention },
    { name: TOPICS.results, partitions: s.partitions, compacted: false, config: longRetention },
    { name: TOPICS.courses, partitions: s.partitions, compacted: true, config: compact },
    { name: TOPICS.analytics, partitions: s.partitions, compacted: true, config: compact },
    { name: TOPICS.courseSnapshots, partitions: s.partitions, compacted: true, config: compact },
    { name: TOPICS.deadLetter, partitions: 1, compacted: false, config: longRetention },
  ];
}
