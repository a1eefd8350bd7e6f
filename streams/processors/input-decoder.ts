/**
 * Decodes and validates input records. Anything that cannot be applied (not Avro, unknown schema id,
 * failing validation) becomes a dead letter with the reason in its headers; nothing is dropped.
 */
import avro from 'avsc';
import type { Course, RaceCard, RaceResult } from '../../domain/avro-types.generated.js';
import type { InputEvent } from '../../domain/events.js';
import { isRacingError } from '../../domain/errors.js';
import { validateCard, validateCourse, validateResult } from '../../domain/validate.js';
import type { LogRecord, OutRecord } from '../log-port.js';
import type { Codecs } from '../codecs.js';
import { loadSchemaText } from '../serde.js';

export type { InputEvent };

export interface Decoded {
  /** the valid events; a card's display names are left unread (ENGINE_CARD_READER): the properties are absent */
  events: InputEvent[];
  deadLetters: OutRecord[];
}

/**
 * The display names of a card the engine never reads (it keeps cards without them: analytics-engine.ts,
 * slimCard). The sire's stays: whether it is null is kept.
 */
const UNREAD_CARD_FIELDS = new Set(['courseName', 'raceName']);
const UNREAD_RUNNER_FIELDS = new Set(['horseName', 'jockeyName', 'trainerName', 'ownerName', 'damName', 'damSireName']);

/**
 * The engine's reader of cards: RaceCard without the fields above, which avsc then skips unread (their
 * strings were most of what decoding a card made). Every writer version of RaceCard resolves to it.
 */
export const ENGINE_CARD_READER = avro.Type.forSchema(engineCardSchema(JSON.parse(loadSchemaText('RaceCard'))));

function engineCardSchema(schema: { fields: { name: string; type: unknown }[] }): avro.Schema {
  const fields = schema.fields
    .filter((f) => !UNREAD_CARD_FIELDS.has(f.name))
    .map((f) => {
      if (f.name !== 'runners') return f;
      const runners = f.type as { items: { fields: { name: string }[] } };
      return {
        ...f,
        type: {
          ...runners,
          items: { ...runners.items, fields: runners.items.fields.filter((r) => !UNREAD_RUNNER_FIELDS.has(r.name)) },
        },
      };
    });
  return { ...schema, fields } as avro.Schema;
}

export async function decodeInputs(codecs: Codecs, records: readonly LogRecord[]): Promise<Decoded> {
  const { serde, topics } = codecs;
  const events: InputEvent[] = [];
  const deadLetters: OutRecord[] = [];
  for (const rec of records) {
    if (rec.value === null) continue; // tombstones on the compacted course topic carry no event
    try {
      if (rec.topic === topics.cards) {
        // (without the display names: the engine does not read them; slimCard gives its copy empty ones)
        const value = await serde.decodeAs<RaceCard>(ENGINE_CARD_READER, rec.value);
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
