/**
 * The processor's input decoder reads cards past their display names (ENGINE_CARD_READER: avsc skips
 * the fields its reader leaves out), for v2 and v1 writers alike, and the engine's copy of a card is the
 * same whichever way the card was read: every field but the names, the names empty.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RaceCard } from '../../domain/avro-types.generated.js';
import { createEmbeddedRegistry } from '../../streams/adapters/embedded-registry.js';
import { createCodecs } from '../../streams/codecs.js';
import type { LogRecord } from '../../streams/log-port.js';
import { AnalyticsEngine } from '../../streams/processors/analytics-engine.js';
import { EngineState } from '../../streams/processors/engine-state.js';
import { decodeInputs } from '../../streams/processors/input-decoder.js';
import { AvroSerde } from '../../streams/serde.js';
import { card } from '../support/builders.js';
import { memoryStore } from '../support/memory-store.js';

const NAMES = ['courseName', 'raceName'] as const;
const RUNNER_NAMES = ['horseName', 'jockeyName', 'trainerName', 'ownerName', 'damName', 'damSireName'] as const;

function record(topic: string, value: Buffer, offset = 0): LogRecord {
  return { topic, partition: 0, offset, key: 'k', value, timestamp: 0, headers: {} } as LogRecord;
}

function named(): RaceCard {
  const c = card({
    r: 'NAMES',
    off: '2024-05-01T14:00:00Z',
    runners: [{ h: 'Dancing Brave', draw: 2, or: 88 }, { h: 'Shergar', s: null }, { h: 'Nijinsky' }],
  });
  return {
    ...c,
    courseName: 'Newmarket',
    raceName: 'The Names Stakes',
    runners: c.runners.map((r, i) => ({
      ...r,
      jockeyName: `Jockey ${i}`,
      trainerName: `Trainer ${i}`,
      ownerName: `Owner ${i}`,
      damName: `Dam ${i}`,
      damSireName: `Dam Sire ${i}`,
    })),
  };
}

/** The card without its display names (what the engine's reader gives). */
function unnamed(c: RaceCard): Record<string, unknown> {
  const out: Record<string, unknown> = { ...c };
  for (const k of NAMES) delete out[k];
  out['runners'] = c.runners.map((r) => {
    const x: Record<string, unknown> = { ...r };
    for (const k of RUNNER_NAMES) delete x[k];
    return x;
  });
  return out;
}

describe("the processor's input decoder", () => {
  it('reads a card past its display names and keeps every other field, the sire name included', async () => {
    const codecs = await createCodecs(createEmbeddedRegistry(memoryStore()));
    const c = named();
    const { events, deadLetters } = await decodeInputs(codecs, [record(codecs.topics.cards, codecs.card.encode(c))]);
    expect(deadLetters).toEqual([]);
    expect(events).toHaveLength(1);
    const value = events[0]!.value as RaceCard;
    for (const k of NAMES) expect(value, k).not.toHaveProperty(k);
    for (const r of value.runners) for (const k of RUNNER_NAMES) expect(r, k).not.toHaveProperty(k);
    expect(value).toEqual(unnamed(c));
    // (the sire's name is read: whether it is null is kept)
    expect(value.runners.map((r) => r.sireName)).toEqual(c.runners.map((r) => r.sireName));
    expect(c.runners.some((r) => r.sireName === null)).toBe(true);
  });

  it('reads a card of the schema before (v1) the same way, the fields it lacks at their defaults', async () => {
    const registry = createEmbeddedRegistry(memoryStore());
    const codecs = await createCodecs(registry);
    const v1 = readFileSync(join(import.meta.dirname, '..', 'fixtures', 'schemas', 'RaceCard.v1.avsc'), 'utf8');
    const writer = await new AvroSerde(registry).codec<Record<string, unknown>>(codecs.topics.cards, v1);
    const c = named();
    // the runners with the v1 schema's fields only
    const v1RunnerFields = (
      JSON.parse(v1) as { fields: { name: string; type: { items: { fields: { name: string }[] } } }[] }
    ).fields
      .find((f) => f.name === 'runners')!
      .type.items.fields.map((f) => f.name);
    const v1Card = {
      ...c,
      runners: c.runners.map((r) =>
        Object.fromEntries(v1RunnerFields.map((k) => [k, (r as unknown as Record<string, unknown>)[k]])),
      ),
    };
    const buf = writer.encode(v1Card);
    const { events, deadLetters } = await decodeInputs(codecs, [record(codecs.topics.cards, buf)]);
    expect(deadLetters).toEqual([]);
    const value = events[0]!.value as RaceCard;
    const full = await codecs.serde.decode<RaceCard>(codecs.topics.cards, buf);
    expect(value).toEqual(unnamed(full));
  });

  it('still sends a card that does not decode to the dead letters, with the reason', async () => {
    const codecs = await createCodecs(createEmbeddedRegistry(memoryStore()));
    const buf = codecs.card.encode(named());
    const { events, deadLetters } = await decodeInputs(codecs, [
      record(codecs.topics.cards, buf.subarray(0, buf.length - 3), 1),
    ]);
    expect(events).toEqual([]);
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0]!.headers!['dlq.error.code']).toBe('bad_wire_format');
    expect(deadLetters[0]!.headers!['dlq.source.offset']).toBe('1');
  });

  it('gives the engine the same card, names emptied, as the card read with every field', async () => {
    const codecs = await createCodecs(createEmbeddedRegistry(memoryStore()));
    const c = named();
    const { events } = await decodeInputs(codecs, [record(codecs.topics.cards, codecs.card.encode(c))]);
    const viaDecoder = new AnalyticsEngine(new EngineState(memoryStore()));
    const viaFull = new AnalyticsEngine(new EngineState(memoryStore()));
    await viaDecoder.applyEvents(events);
    await viaFull.applyEvents([{ kind: 'card', value: c }]);
    const kept = viaDecoder.state.peekRace(c.raceId)!.cards;
    expect(kept).toEqual(viaFull.state.peekRace(c.raceId)!.cards);
    expect(kept[0]!.courseName).toBe('');
    expect(kept[0]!.runners.map((r) => [r.horseName, r.ownerName, r.sireName])).toEqual(
      c.runners.map((r) => ['', '', r.sireName === null ? null : '']),
    );
    expect(kept[0]!.runners.map((r) => r.horseId)).toEqual(c.runners.map((r) => r.horseId));
  });
});
