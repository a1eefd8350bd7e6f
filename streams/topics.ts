/** Topic names (the contract with downstream consumers) and their specs. */
import type { TopicSpec } from './log-port.js';

export interface TopicNames {
  cards: string;
  results: string;
  courses: string;
  analytics: string;
  courseSnapshots: string;
  deadLetter: string;
  /** API keys (hash and metadata only, never a key), replicated to every API replica; Kafka mode */
  apiKeys: string;
  /** Accounts (email, scrypt hash, access), replicated to every API replica; Kafka mode */
  accounts: string;
  /** Signed-in sessions (SHA-256 of the token, never the token) and sign-outs; Kafka mode */
  sessions: string;
  /** When each API key was last used, flushed in batches by each replica; Kafka mode */
  keyUsage: string;
}

/**
 * The topic names, optionally prefixed (RACING_TOPIC_PREFIX, e.g. for several environments or test
 * runs on one cluster). Without a prefix they are exactly the contract names.
 */
export function topicNames(prefix = ''): TopicNames {
  return {
    cards: `${prefix}racing.cards.v1`,
    results: `${prefix}racing.results.v1`,
    courses: `${prefix}racing.courses.v1`,
    analytics: `${prefix}racing.analytics.v1`,
    courseSnapshots: `${prefix}racing.course-snapshots.v1`,
    deadLetter: `${prefix}racing.dead-letter.v1`,
    apiKeys: `${prefix}racing.api-keys.v1`,
    accounts: `${prefix}racing.accounts.v1`,
    sessions: `${prefix}racing.sessions.v1`,
    keyUsage: `${prefix}racing.key-usage.v1`,
  };
}

/** The contract names (no prefix). */
export const TOPICS: TopicNames = topicNames();

export interface TopicSettings {
  /** Partitions of every topic created by the service. */
  partitions: number;
  /** Longer than a full rebuild, so a consumer replaying from the start sees every update before compaction. */
  compactionLagMs: number;
}

export const DEFAULT_TOPIC_SETTINGS: TopicSettings = { partitions: 4, compactionLagMs: 24 * 3600_000 };

export function topicSpecs(names: TopicNames = TOPICS, s: TopicSettings = DEFAULT_TOPIC_SETTINGS): TopicSpec[] {
  const longRetention = { 'cleanup.policy': 'delete', 'retention.ms': '-1' };
  const compact = {
    'cleanup.policy': 'compact',
    'min.compaction.lag.ms': String(s.compactionLagMs),
    'delete.retention.ms': String(s.compactionLagMs),
  };
  return [
    { name: names.cards, partitions: s.partitions, compacted: false, config: longRetention },
    { name: names.results, partitions: s.partitions, compacted: false, config: longRetention },
    { name: names.courses, partitions: s.partitions, compacted: true, config: compact },
    { name: names.analytics, partitions: s.partitions, compacted: true, config: compact },
    { name: names.courseSnapshots, partitions: s.partitions, compacted: true, config: compact },
    { name: names.deadLetter, partitions: 1, compacted: false, config: longRetention },
    { name: names.apiKeys, partitions: 1, compacted: true, config: compact },
    { name: names.accounts, partitions: 1, compacted: true, config: compact },
    { name: names.sessions, partitions: 1, compacted: true, config: compact },
    { name: names.keyUsage, partitions: 1, compacted: true, config: compact },
  ];
}
