/** The service's topic codecs: one AvroSerde, one registered schema per topic value. */
import type { AnalyticsRow, Course, CourseSnapshot, RaceCard, RaceResult } from '../domain/avro-types.generated.js';
import type { SchemaRegistryPort } from './registry-port.js';
import { AvroSerde, type TopicCodec, loadSchemaText } from './serde.js';
import { TOPICS, type TopicNames } from './topics.js';

export interface Codecs {
  topics: TopicNames;
  serde: AvroSerde;
  card: TopicCodec<RaceCard>;
  result: TopicCodec<RaceResult>;
  course: TopicCodec<Course>;
  row: TopicCodec<AnalyticsRow>;
  snapshot: TopicCodec<CourseSnapshot>;
}

/** Registers every topic value schema (TopicNameStrategy) and returns encoders plus the decoding serde. */
export async function createCodecs(registry: SchemaRegistryPort, topics: TopicNames = TOPICS): Promise<Codecs> {
  const serde = new AvroSerde(registry);
  return {
    topics,
    serde,
    card: await serde.codec<RaceCard>(topics.cards, loadSchemaText('RaceCard')),
    result: await serde.codec<RaceResult>(topics.results, loadSchemaText('RaceResult')),
    course: await serde.codec<Course>(topics.courses, loadSchemaText('Course')),
    row: await serde.codec<AnalyticsRow>(topics.analytics, loadSchemaText('AnalyticsRow')),
    snapshot: await serde.codec<CourseSnapshot>(topics.courseSnapshots, loadSchemaText('CourseSnapshot')),
  };
}
