/** The service's topic codecs: one AvroSerde, one registered schema per topic value. */
import type { AnalyticsRow, Course, CourseSnapshot, RaceCard, RaceResult } from '../domain/avro-types.generated.js';
import type { SchemaRegistryPort } from './registry-port.js';
import { AvroSerde, type TopicCodec, loadSchemaText } from './serde.js';
import { TOPICS } from './topics.js';

export interface Codecs {
  serde: AvroSerde;
  card: TopicCodec<RaceCard>;
  result: TopicCodec<RaceResult>;
  course: TopicCodec<Course>;
  row: TopicCodec<AnalyticsRow>;
  snapshot: TopicCodec<CourseSnapshot>;
}

/** Registers every topic value schema (TopicNameStrategy) and returns encoders plus the decoding serde. */
export async function createCodecs(registry: SchemaRegistryPort): Promise<Codecs> {
  const serde = new AvroSerde(registry);
  return {
    serde,
    card: await serde.codec<RaceCard>(TOPICS.cards, loadSchemaText('RaceCard')),
    result: await serde.codec<RaceResult>(TOPICS.results, loadSchemaText('RaceResult')),
    course: await serde.codec<Course>(TOPICS.courses, loadSchemaText('Course')),
    row: await serde.codec<AnalyticsRow>(TOPICS.analytics, loadSchemaText('AnalyticsRow')),
    snapshot: await serde.codec<CourseSnapshot>(TOPICS.courseSnapshots, loadSchemaText('CourseSnapshot')),
  };
}
