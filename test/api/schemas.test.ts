import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FormatRegistry, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { avroToJsonSchema, avroTypeName, loadAvroSchema } from '../../api/avro-json-schema.js';
import type { RaceDay, RaceDetail, RaceRunner, RaceSummary } from '../../state/read-model-port.js';
import {
  AnalyticsRowSchema,
  RaceDaySchema,
  RaceDetailSchema,
  RaceRunnerSchema,
  RaceSummarySchema,
} from '../../api/schemas.js';
import type { AnalyticsRow } from '../../domain/avro-types.generated.js';
import { parseDate } from '../../domain/time.js';
import { makeRace, makeRow, makeRunner } from '../support/fake-read-model.js';

// TypeBox's Value.Check knows no formats by itself (Fastify's Ajv does); register the two we use.
FormatRegistry.Set('date', (v) => parseDate(v) !== undefined);
FormatRegistry.Set(
  'date-time',
  (v) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(v) && !Number.isNaN(Date.parse(v)),
);

const summary: RaceSummary = {
  raceId: 'rac_x',
  courseId: 'crs_y',
  courseName: 'York',
  country: 'GB',
  offTime: '2024-05-10T14:00:00.000Z',
  meetingDate: '2024-05-10',
  raceName: 'Stakes',
  discipline: 'flat',
  surface: 'turf',
  distanceYards: 1320,
  going: 'Good To Soft',
  raceClass: 2,
  fieldSize: 9,
  cardVersion: 3,
  status: 'result',
};
const runner: RaceRunner = makeRunner({
  horseId: 'hrs_h',
  position: 4,
  resultStatus: 'finished',
  beatenLengths: 3.25,
  startingPrice: 7,
  favourite: false,
});
const detail: RaceDetail = { ...summary, winningTimeSeconds: 72.5, runners: [runner] };

describe('TypeBox schemas mirror state/read-model-port.ts', () => {
  it('have the same static types as the port (checked by tsc)', () => {
    expectTypeOf<Static<typeof RaceSummarySchema>>().toEqualTypeOf<RaceSummary>();
    expectTypeOf<Static<typeof RaceRunnerSchema>>().toEqualTypeOf<RaceRunner>();
    expectTypeOf<Static<typeof RaceDetailSchema>>().toEqualTypeOf<RaceDetail>();
    expectTypeOf<Static<typeof RaceDaySchema>>().toEqualTypeOf<RaceDay>();
  });

  it('accept sample objects and have exactly their keys', () => {
    expect(Value.Check(RaceSummarySchema, summary)).toBe(true);
    expect(Value.Check(RaceRunnerSchema, runner)).toBe(true);
    expect(Value.Check(RaceDetailSchema, detail)).toBe(true);
    expect(Value.Check(RaceDetailSchema, makeRace({ raceId: 'rac_a', offTime: summary.offTime }))).toBe(true);
    const day: RaceDay = { date: '2024-05-10', races: 7 };
    expect(Value.Check(RaceDaySchema, day)).toBe(true);
    expect(Object.keys(RaceDaySchema.properties).sort()).toEqual(Object.keys(day).sort());
    expect(Object.keys(RaceSummarySchema.properties).sort()).toEqual(Object.keys(summary).sort());
    expect(Object.keys(RaceRunnerSchema.properties).sort()).toEqual(Object.keys(runner).sort());
    expect(Object.keys(RaceDetailSchema.properties).sort()).toEqual(Object.keys(detail).sort());
  });

  it('reject objects with a missing, extra or mistyped field', () => {
    const { going: _g, ...missing } = summary;
    expect(Value.Check(RaceSummarySchema, missing)).toBe(false);
    expect(Value.Check(RaceSummarySchema, { ...summary, extra: 1 })).toBe(false);
    expect(Value.Check(RaceSummarySchema, { ...summary, status: 'abandoned' })).toBe(false);
    expect(Value.Check(RaceSummarySchema, { ...summary, meetingDate: '2024-02-30' })).toBe(false);
    expect(Value.Check(RaceRunnerSchema, { ...runner, draw: 1.5 })).toBe(false);
  });
});

describe('AnalyticsRow JSON Schema derived from the .avsc', () => {
  const avsc = JSON.parse(readFileSync(join(import.meta.dirname, '../../schemas/AnalyticsRow.avsc'), 'utf8')) as {
    fields: { name: string; type: unknown }[];
  };

  it('has exactly the Avro fields, all required, in Avro order, closed', () => {
    const s = AnalyticsRowSchema as unknown as {
      properties: Record<string, unknown>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(Object.keys(s.properties)).toEqual(avsc.fields.map((f) => f.name));
    expect(s.required).toEqual(avsc.fields.map((f) => f.name));
    expect(s.additionalProperties).toBe(false);
    expect(loadAvroSchema('AnalyticsRow').fields.map((f) => f.name)).toEqual(avsc.fields.map((f) => f.name));
  });

  it('maps int -> integer, double -> number, string, boolean, ["null", X] -> anyOf', () => {
    const p = (AnalyticsRowSchema as unknown as { properties: Record<string, Record<string, unknown>> }).properties;
    expect(p['position']).toMatchObject({ type: 'integer', minimum: -2147483648, maximum: 2147483647 });
    expect(p['vpr']).toMatchObject({ type: 'number' });
    expect(p['stableForm']).toMatchObject({ type: 'string' });
    expect(p['improvingVpr']).toMatchObject({ type: 'boolean' });
    expect(p['sireId']).toMatchObject({ anyOf: [{ type: 'null' }, { type: 'string' }] });
    expect(p['courseTotalClimbM']).toMatchObject({ anyOf: [{ type: 'null' }, { type: 'number' }] });
  });

  it('accepts a generated-type row and rejects a wrong one', () => {
    const row: AnalyticsRow = makeRow({ raceId: 'rac_a', horseId: 'hrs_b' });
    expect(Value.Check(AnalyticsRowSchema, row)).toBe(true);
    expect(Value.Check(AnalyticsRowSchema, { ...row, sireId: null, courseTotalClimbM: null })).toBe(true);
    expect(Value.Check(AnalyticsRowSchema, { ...row, position: 1.5 })).toBe(false);
    expect(Value.Check(AnalyticsRowSchema, { ...row, improvingVpr: 1 })).toBe(false);
    expect(Value.Check(AnalyticsRowSchema, { ...row, extra: 0 })).toBe(false);
    const { vpr: _v, ...noVpr } = row;
    expect(Value.Check(AnalyticsRowSchema, noVpr)).toBe(false);
  });

  it('converts the other Avro shapes and refuses bytes', () => {
    const s = avroToJsonSchema({
      type: 'record',
      name: 'Outer',
      fields: [
        { name: 'tags', type: { type: 'array', items: 'string' } },
        { name: 'counts', type: { type: 'map', values: 'long' } },
        { name: 'kind', type: { type: 'enum', name: 'Kind', symbols: ['a', 'b'] } },
        { name: 'inner', type: { type: 'record', name: 'Inner', fields: [{ name: 'x', type: 'float' }] } },
        { name: 'again', type: ['null', 'Inner'] },
      ],
    });
    expect(Value.Check(s, { tags: ['x'], counts: { a: 1 }, kind: 'b', inner: { x: 1.5 }, again: null })).toBe(true);
    expect(Value.Check(s, { tags: ['x'], counts: { a: 1 }, kind: 'c', inner: { x: 1.5 }, again: { x: 2 } })).toBe(
      false,
    );
    expect(() => avroToJsonSchema('bytes')).toThrow(/bytes/);
    expect(avroTypeName(['null', 'double'])).toBe('double | null');
    expect(avroTypeName({ type: 'array', items: 'int' })).toBe('array<int>');
  });
});
