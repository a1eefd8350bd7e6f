/**
 * Decodes and validates input records. Anything that cannot be applied (not Avro, unknown schema id,
 * failing validation) becomes a dead letter with the reason in its headers; nothing is dropped.
 */
import type { Course, RaceCard, RaceResult } from '../../domain/avro-types.generated.js';
import type { InputEvent } from '../../domain/events.js';
import { isRacingError } from '../../domain/errors.js';
import { validateCard, validateCourse, validateResult } from '../../domain/validate.js';
import type { LogRecord, OutRecord } from '../log-port.js';
import type { Codecs } from '../codecs.js';

export type { InputEvent };

export interface Decoded {
  events: InputEvent[];
  deadLetters: OutRecord[];
}

export async function decodeInputs(codecs: Codecs, records: readonly LogRecord[]): Promise<Decoded> {
  const { serde, topics } = codecs;
  const events: InputEvent[] = [];
  const deadLetters: OutRecord[] = [];
  for (const rec of records) {
    if (rec.value === null) continue; // tombstones on the compacted course topic carry no event
    try {
      if (rec.topic === topics.cards) {
        const value = await serde.decode<RaceCard>(rec.topic, rec.value);
        const errors = validateCard(value);
        if (errors.length > 0) deadLetters.push(deadLetter(rec, 'validation_failed', errors.join('; ')));
        else events.push({ kind: 'card', value });
      } else if (rec.topic === topics.results) {
        const value = await serde.decode<RaceResult>(rec.topic, rec.value);
        const errors = validateResult(value);
        if (errors.length > 0) deadLetters.push(deadLetter(rec, 'validation_failed', errors.join('; ')));
        else events.push({ kind: 'result', value });
      } else if (rec.topic === topics.courses) {
        const value = await serde.decode<Course>(rec.topic, rec.value);
        const errors = validateCourse(value);
        if (errors.length > 0) deadLetters.push(deadLetter(rec, 'validation_failed', errors.join('; ')));
        else events.push({ kind: 'course', value });
      }
    } catch (e) {
      if (!isRacingError(e)) throw e;
      deadLetters.push(deadLetter(rec, e.code, e.message));
    }
  }
  return { events, deadLetters };
}

function deadLetter(rec: LogRecord, code: string, reason: string): OutRecord {
  return {
    key: rec.key,
    value: rec.value,
    timestamp: rec.timestamp,
    headers: {
      'dlq.error.code': code,
      'dlq.error.reason': reason.slice(0, 2000),
      'dlq.source.topic': rec.topic,
      'dlq.source.partition': String(rec.partition),
      'dlq.source.offset': String(rec.offset),
    },
  };
}
