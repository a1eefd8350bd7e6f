/**
 * Response schemas (JSON Schema via TypeBox). Fastify serialises with them and the OpenAPI document
 * publishes them, so what is documented is what is sent. RaceSummary/RaceDetail mirror
 * state/read-model-port.ts (a test asserts type equality); AnalyticsRow is derived from the .avsc at
 * runtime so it cannot drift from the topic value.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { avroToJsonSchema, loadAvroSchema } from './avro-json-schema.js';

const Nullable = <T extends TSchema>(t: T) => Type.Union([Type.Null(), t]);
const closed = { additionalProperties: false } as const;

// Years 1000-9999 only: the pattern keeps the schema from promising years the date parser cannot round-trip (0070).
export const DateString = Type.String({
  format: 'date',
  pattern: '^[1-9][0-9]{3}-[0-9]{2}-[0-9]{2}$',
  description: 'calendar date, YYYY-MM-DD (years 1000-9999)',
});
export const InstantString = Type.String({ format: 'date-time', description: 'ISO 8601 UTC instant' });

export const RaceSummarySchema = Type.Object(
  {
    raceId: Type.String({ description: 'rac_ followed by an opaque token' }),
    courseId: Type.String({ description: 'crs_ followed by an opaque token' }),
    courseName: Type.String(),
    country: Type.String(),
    offTime: Type.String({ format: 'date-time', description: 'scheduled off, ISO 8601 UTC' }),
    meetingDate: Type.String({ format: 'date', description: 'local meeting date at the course, YYYY-MM-DD' }),
    raceName: Type.String(),
    discipline: Type.String({ description: 'flat | hurdle | chase | nh-flat' }),
    surface: Type.String({ description: 'turf | aw' }),
    distanceYards: Type.Integer(),
    going: Type.String(),
    raceClass: Type.Integer({ description: '1..7, 0 unknown' }),
    fieldSize: Type.Integer({ description: 'declared runners less non-runners on the latest card' }),
    cardVersion: Type.Integer(),
    status: Type.Union([Type.Literal('declared'), Type.Literal('result')], {
      description: "'declared' until the result is in, then 'result'",
    }),
  },
  { ...closed, title: 'RaceSummary' },
);
export type RaceSummaryBody = Static<typeof RaceSummarySchema>;

export const RaceRunnerSchema = Type.Object(
  {
    horseId: Type.String(),
    horseName: Type.String(),
    age: Type.Integer({ description: 'years, 0 unknown' }),
    sireId: Nullable(Type.String()),
    sireName: Nullable(Type.String()),
    jockeyId: Type.String(),
    jockeyName: Type.String(),
    trainerId: Type.String(),
    trainerName: Type.String(),
    saddleCloth: Type.Integer(),
    draw: Type.Integer({ description: 'stall, 0 when there is no draw' }),
    weightLbs: Type.Integer(),
    officialRating: Type.Integer({ description: '0 unknown / unrated' }),
    nonRunner: Type.Boolean(),
    sex: Type.String({ description: "c colt, f filly, g gelding, m mare, h horse (entire, 4yo+), r rig; '' unknown" }),
    headgear: Type.String({
      description:
        "canonical headgear: the distinct codes in the order b blinkers, v visor, h hood, p cheekpieces, t tongue strap, e eye shield (e.g. 'pt'); '' none",
    }),
    jockeyClaimLbs: Type.Integer({ description: "the rider's allowance in lbs, 0 none" }),
    ownerId: Type.String({ description: "own_ id; '' unknown" }),
    ownerName: Type.String({ description: "'' unknown" }),
    damId: Type.String({ description: "dam_ id; '' unknown" }),
    damName: Type.String({ description: "'' unknown" }),
    damSireId: Type.String({ description: "the dam's sire: a sir_ id, the same ids as sireId; '' unknown" }),
    damSireName: Type.String({ description: "'' unknown" }),
    position: Nullable(Type.Integer({ description: 'finishing position once run (0 = did not finish)' })),
    resultStatus: Nullable(Type.String({ description: 'finished | pulled-up | fell | ...' })),
    beatenLengths: Nullable(Type.Number()),
    startingPrice: Nullable(Type.Number({ description: 'decimal odds' })),
    favourite: Nullable(Type.Boolean()),
  },
  { ...closed, title: 'RaceRunner' },
);

export const RaceDetailSchema = Type.Object(
  {
    ...RaceSummarySchema.properties,
    winningTimeSeconds: Nullable(Type.Number()),
    runners: Type.Array(RaceRunnerSchema, { description: 'ordered by saddleCloth, then horseId' }),
  },
  { ...closed, title: 'RaceDetail' },
);

export const RaceDaySchema = Type.Object(
  { date: DateString, races: Type.Integer({ description: 'number of races on that meeting date' }) },
  { ...closed, title: 'RaceDay' },
);

/** Derived from schemas/AnalyticsRow.avsc. */
export const AnalyticsRowSchema = avroToJsonSchema(loadAvroSchema('AnalyticsRow'));

export const RaceDaysResponse = Type.Object(
  { from: DateString, to: DateString, days: Type.Array(RaceDaySchema, { description: 'ascending by date' }) },
  { ...closed, title: 'RaceDays' },
);

const RaceList = Type.Array(RaceSummarySchema, { description: 'ordered by offTime, then raceId' });

export const RacesOnDateResponse = Type.Object(
  { date: DateString, races: RaceList },
  { ...closed, title: 'RacesOnDate' },
);

export const RecentRacesResponse = Type.Object(
  {
    from: Type.String({ format: 'date-time', description: 'start of yesterday (UTC), inclusive' }),
    to: Type.String({ format: 'date-time', description: 'end of tomorrow (UTC): start of the day after, exclusive' }),
    races: RaceList,
  },
  { ...closed, title: 'RecentRaces' },
);

export const RacesResponse = Type.Union([RacesOnDateResponse, RecentRacesResponse]);

export const AnalyticsResponse = Type.Array(AnalyticsRowSchema, { description: 'one row per runner, by horseId' });

export const DemoRaceSchema = Type.Object(
  { ...RaceDetailSchema.properties, analytics: AnalyticsResponse },
  { ...closed, title: 'DemoRace' },
);

export const DemoResponse = Type.Object(
  { date: DateString, races: Type.Array(DemoRaceSchema, { description: 'ordered by offTime, then raceId' }) },
  { ...closed, title: 'DemoDay' },
);

export const HealthResponse = Type.Object({ status: Type.Literal('ok') }, { ...closed, title: 'Health' });

/** Any JSON object, serialised as is (the OpenAPI document itself). */
export const OpenObject = Type.Object({}, { additionalProperties: true });

export const ProblemSchema = Type.Object(
  {
    type: Type.String({ description: 'URI identifying the problem type' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    instance: Type.String({ description: 'the request path' }),
    code: Type.String({ description: 'stable machine code, see docs/errors.md' }),
    errors: Type.Optional(
      Type.Array(
        Type.Object(
          {
            in: Type.String({ description: 'query | path | body | header' }),
            name: Type.String(),
            message: Type.String(),
          },
          closed,
        ),
      ),
    ),
  },
  { ...closed, title: 'Problem', description: 'RFC 9457 problem details (application/problem+json)' },
);

export const KeyRecordSchema = Type.Object(
  {
    id: Type.String({ description: 'key_ followed by an opaque token' }),
    name: Type.String(),
    createdAt: InstantString,
    revokedAt: Nullable(InstantString),
  },
  { ...closed, title: 'ApiKey' },
);

export const CreatedKeySchema = Type.Object(
  {
    id: Type.String(),
    key: Type.String({ description: 'the secret key; shown only in this response' }),
    name: Type.String(),
    createdAt: InstantString,
  },
  { ...closed, title: 'CreatedApiKey' },
);

export const KeyListResponse = Type.Object(
  { keys: Type.Array(KeyRecordSchema, { description: 'ordered by createdAt, then id' }) },
  { ...closed, title: 'ApiKeys' },
);

/** Schemas published under components.schemas; the OpenAPI builder swaps each for a $ref by identity. */
export const NAMED_SCHEMAS: Readonly<Record<string, TSchema>> = {
  RaceSummary: RaceSummarySchema,
  RaceRunner: RaceRunnerSchema,
  RaceDetail: RaceDetailSchema,
  RaceDay: RaceDaySchema,
  AnalyticsRow: AnalyticsRowSchema,
  DemoRace: DemoRaceSchema,
  Problem: ProblemSchema,
  ApiKey: KeyRecordSchema,
  CreatedApiKey: CreatedKeySchema,
};
