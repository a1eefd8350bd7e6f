/**
 * Materialises the topics the API serves into its read model: cards and results (races), course
 * versions, and the compacted analytics (rows) and course-snapshot topics. Each API replica runs its
 * own, so a replica started later catches up from the topics alone.
 */
import type { Course, CourseSnapshot, RaceCard, RaceResult } from '../../domain/avro-types.generated.js';
import { isRacingError } from '../../domain/errors.js';
import type { ViewEvent } from '../../domain/events.js';
import type { Logger } from '../../domain/logger.js';
import { validateCard, validateCourse, validateResult } from '../../domain/validate.js';
import type { ChangeSource } from '../../state/read-model/change-log.js';
import type { LevelReadModel } from '../../state/read-model/level-read-model.js';
import type { LogPort } from '../log-port.js';
import type { Codecs } from '../codecs.js';
import type { TopicNames } from '../topics.js';

/** The topics the view consumes (its consumer group's topics: rebuild resets them, readiness watches them). */
export function viewTopics(topics: TopicNames): string[] {
  return [topics.cards, topics.results, topics.analytics, topics.courses, topics.courseSnapshots];
}

export async function runViewMaterializer(deps: {
  log: LogPort;
  codecs: Codecs;
  view: LevelReadModel;
  logger: Logger;
  group: string;
  untilCaughtUp: boolean;
  signal?: AbortSignal;
  /**
   * Called before each batch with the number of input records (cards, results, courses) the view has
   * consumed with it; the batch waits for a promise it returns. A rebuild holds the view near the
   * processor with it (see processAll).
   */
  gate?: (inputRecords: number) => Promise<void> | undefined;
}): Promise<{ skipped: number }> {
  const logger = deps.logger.child({ component: 'view-materializer' });
  const { serde, topics } = deps.codecs;
  let skipped = 0;
  let input = 0;
  await deps.log.consume(
    {
      group: deps.group,
      topics: viewTopics(topics),
      untilCaughtUp: deps.untilCaughtUp,
      maxBatchRecords: 20_000,
      ...(deps.signal ? { signal: deps.signal } : {}),
    },
    async (batch) => {
      if (deps.gate) {
        for (const r of batch.records) if (r.topic !== topics.analytics && r.topic !== topics.courseSnapshots) input++;
        const wait = deps.gate(input);
        if (wait) await wait;
      }
      const events: (ViewEvent & { source?: ChangeSource })[] = [];
      for (const r of batch.records) {
        try {
          if (r.topic === topics.analytics) {
            // Where the record sits: the read model's change log numbers each record once (resumable streams).
            events.push({ kind: 'row', key: r.key, value: r.value, source: r });
          } else if (r.topic === topics.courseSnapshots) {
            const value = r.value ? await serde.decode<CourseSnapshot>(r.topic, r.value) : null;
            events.push({ kind: 'snapshot', key: r.key, value });
          } else if (r.topic === topics.courses) {
            if (!r.value) continue;
            const value = await serde.decode<Course>(r.topic, r.value);
            if (validateCourse(value).length === 0) events.push({ kind: 'course', value });
            else skipped++;
          } else if (r.value) {
            if (r.topic === topics.cards) {
              const value = await serde.decode<RaceCard>(r.topic, r.value);
              if (validateCard(value).length === 0) events.push({ kind: 'card', value });
              else skipped++;
            } else {
              const value = await serde.decode<RaceResult>(r.topic, r.value);
              if (validateResult(value).length === 0) events.push({ kind: 'result', value });
              else skipped++;
            }
          }
        } catch (e) {
          // The analytics processor dead-letters bad input; the view just does not show it.
          if (!isRacingError(e)) throw e;
          skipped++;
        }
      }
      await deps.view.apply(events);
    },
  );
  if (skipped > 0) logger.warn({ skipped }, 'undecodable records skipped by the view (see the dead-letter topic)');
  return { skipped };
}
