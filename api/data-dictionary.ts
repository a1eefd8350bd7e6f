/**
 * The data dictionary of the analytics row, served at /api/v1/data-dictionary. The field list comes
 * from schemas/AnalyticsRow.avsc at runtime; each field's text comes from the table below (the 46 fields
 * of features.md and our extensions, family "confirmed") or from api/data-dictionary-catalogue.ts (the
 * 162 fields of catalogue.md, families A..R). Every entry names its family and entity key. A field in the
 * .avsc without an entry (or the reverse) fails at startup and in test/api, so the dictionary cannot fall
 * behind the schema.
 */
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { codeTables, HEADGEAR_CODES, HEADGEAR_NAMES } from '../domain/codes.js';
import { RacingError } from '../domain/errors.js';
import { type AvroRecordSchema, avroToJsonSchema, avroTypeName, loadAvroSchema } from './avro-json-schema.js';
import {
  CATALOGUE_CONVENTIONS,
  CATALOGUE_FIELDS,
  ENTITY_KEYS,
  FAMILIES,
  type FieldText,
  FORM_SCORE,
  group,
  R4,
  RATE,
} from './data-dictionary-catalogue.js';

/** ODbL attribution for the measured course topology (interface-spec.md, "Data licensing"). */
export const TOPOLOGY_LICENCE = 'ODbL';
export const TOPOLOGY_ATTRIBUTION =
  'Open data under the ODbL licence. Derived from a community-maintained open map dataset ' +
  '(attribution: "© map contributors" of that dataset). Elevation is produced using a public European ' +
  'earth-observation elevation model (EU-DEM, funded by the European Union).';

const NEVER = 'never missing';
const NO_PREV = '-999 when the runner has no previous run';
const EMPTY_RATE = '0 when the denominator is empty';
const HISTORY =
  "The horse's history is its runs (not non-runners) visible under the point-in-time rule: results of races " +
  "off before this race whose result was published before this race's off.";
const TOPOLOGY_MISSING = 'null when the course has no measured topology';

const CORE_FIELDS: Record<string, FieldText> = {
  ...group('confirmed', 'race card', 'extension', {
    raceId: {
      origin: 'confirmed',
      unit: null,
      definition:
        "`rac_` + opaque token, stable across rebuilds (derived deterministically from the race's source identity).",
      missing: NEVER,
    },
    horseId: {
      origin: 'confirmed',
      unit: null,
      definition: '`hrs_` + opaque token, stable across rebuilds.',
      missing: NEVER,
    },
    offTime: {
      unit: 'ISO 8601 UTC instant',
      definition: "The race's scheduled off. Nothing published at or after it changes any feature except position.",
      missing: NEVER,
    },
    courseId: { unit: null, definition: '`crs_` + opaque token: the course (track variant).', missing: NEVER },
    jockeyId: {
      unit: null,
      definition: "`jky_` + opaque token: this runner's jockey on the card used.",
      missing: NEVER,
    },
    trainerId: {
      unit: null,
      definition: "`trn_` + opaque token: this runner's trainer on the card used.",
      missing: NEVER,
    },
    sireId: {
      unit: null,
      definition: "`sir_` + opaque token: this runner's sire as named on the card used.",
      missing: 'null when the card names no sire',
    },
    draw: { unit: 'stall number', definition: 'Stall number on the card used.', missing: '0 when there is no draw' },
    weightLbs: { unit: 'lbs', definition: 'Weight carried, from the card used.', missing: NEVER },
    officialRating: {
      unit: 'rating points',
      definition: 'Official rating on the card used.',
      missing: '0 when unknown or unrated',
    },
    fieldSize: { unit: 'runners', definition: 'Declared runners less non-runners on the card used.', missing: NEVER },
    distanceYards: { unit: 'yards', definition: 'Race distance.', missing: NEVER },
    raceClass: { unit: null, definition: 'Race class 1..7.', missing: '0 when unknown' },
    disciplineCode: {
      unit: 'code',
      definition: 'Discipline as an enum code (table disciplineCode).',
      missing: '0 = unknown',
      codeTable: 'disciplineCode',
    },
    surfaceCode: {
      unit: 'code',
      definition: 'Surface as an enum code (table surfaceCode).',
      missing: '0 = unknown',
      codeTable: 'surfaceCode',
    },
    goingCode: {
      unit: 'code',
      definition:
        'Official going description on the card used, as an enum code (table goingCode, matched case-insensitively).',
      missing: '0 = unknown (including any description not in the table)',
      codeTable: 'goingCode',
    },
    distanceBucketCode: {
      unit: 'code',
      definition:
        'Distance bucket of distanceYards as an enum code (table distanceBucketCode): sprint < 1540 (7f); mile ' +
        '1540..2199; middle 2200..2859 (up to 1m5f); staying >= 2860.',
      missing: '0 = unknown',
      codeTable: 'distanceBucketCode',
    },
  }),
  ...group('confirmed', 'race result', 'confirmed', {
    computedAtUtc: {
      unit: 'ISO 8601 UTC instant, millisecond precision',
      definition:
        'When the row was last (re)computed, as the event time of the input that caused it: the card ' +
        "version's publishedAt for a card-triggered recompute, the result's publishedAt for a " +
        'result-triggered one; never the wall clock, so a replay reproduces every row byte for byte. ' +
        'Provisional pre-race recomputes and the final post-race compute overwrite the same row.',
      missing: NEVER,
    },
    position: {
      unit: null,
      definition:
        'Finishing position once the race has run: 1..9. 0 for provisional (pre-race) rows, for finishes ' +
        'outside the top 9, and for non-finishers.',
      missing: '0 before the result (status provisional)',
    },
    status: {
      origin: 'extension',
      unit: null,
      definition:
        "'provisional' (pre-race; position is 0) until the race's result is processed, then 'final'. The same row " +
        'is overwritten, not versioned.',
      missing: NEVER,
    },
  }),
  ...group('confirmed', 'horse', 'confirmed', {
    careerRuns: { unit: 'runs', definition: `Size of the history. ${HISTORY}`, missing: '0 when no runs' },
    careerWins: {
      unit: 'runs',
      definition:
        'Wins in the history. A win is finishing position 1 (a dead heat for first is a win for each horse in it).',
      missing: '0 when no runs',
    },
    courseForm: {
      unit: 'form score in [0, 1]',
      definition:
        "Form score averaged over the horse's last 5 runs (or fewer) at this course (same courseId). " +
        FORM_SCORE +
        R4,
      missing: '0 when no run at this course (courseFormRuns is then 0)',
      decimals: 4,
    },
    courseFormRuns: {
      origin: 'extension',
      unit: 'runs',
      definition: 'Runs at this course that courseForm rests on (0..5).',
      missing: '0 when no run at this course',
    },
    winRatioLast5: {
      unit: RATE,
      definition: 'Wins in the last min(5, careerRuns) runs divided by that count.' + R4,
      missing: '0 when no runs',
      decimals: 4,
    },
    vpr: {
      unit: 'rating (lbs scale)',
      definition:
        "The horse's performance rating: exponentially weighted mean (weights 1, 0.8, 0.64, ... newest first) of " +
        'the run figures of its last 6 (or fewer) runs that have a figure. A run that finished (finishing position ' +
        '>= 1, not a non-finisher) has figure = standard - min(beatenLengths, 30) * lbsPerLength + ' +
        '(weightLbs - 140) * 0.5, where standard is the mean official rating of the rated runners (ratings > 0) ' +
        "of that race's final card, or when none is rated the class par (class 1..7 -> 110, 95, 85, 75, 65, 55, 45; " +
        'unknown class -> 60); beatenLengths is the cumulative distance behind the winner (0 for the winner); ' +
        'lbsPerLength = clamp(3300 / distanceYards, 0.5, 3.0). Figures are rounded to 0.1 before use; vpr is ' +
        'rounded to 0.1.',
      missing: '0 when no run has a figure (vprConfidence is then 0)',
      decimals: 1,
    },
    vprConfidence: {
      unit: RATE,
      definition: 'min(n, 6) / 6, n = number of run figures used in vpr.' + R4,
      missing: '0 when no run has a figure',
      decimals: 4,
    },
    improvingVpr: {
      unit: null,
      definition:
        'true iff n >= 3 and the newest run figure is greater than the mean of the other figures used (n = number ' +
        'of run figures used in vpr).',
      missing: 'false when fewer than 3 figures',
    },
    distanceDifferenceY: {
      unit: 'yards',
      definition: "Delta field: today's distance in yards minus the last run's.",
      missing: NO_PREV,
    },
    ratingDifference: {
      unit: 'rating points',
      definition: "Delta field: today's official rating minus the last run's.",
      missing: `${NO_PREV}, or when either rating is unknown`,
    },
    weightDifferenceLbs: {
      origin: 'features',
      unit: 'lbs',
      definition: "Delta field: today's weight carried minus the last run's.",
      missing: NO_PREV,
    },
    classDifference: {
      origin: 'features',
      unit: 'classes',
      definition: "Delta field: the last run's class minus today's (positive means dropping in class).",
      missing: `${NO_PREV}, or when either class is unknown`,
    },
    lastRunDays: {
      unit: 'days',
      definition:
        "Calendar days between the previous run's off date and this off date (both dates in UTC), capped at 729.",
      missing: '730 means no previous run (lastRunDays == 730 exactly when careerRuns == 0)',
    },
  }),
  ...group('confirmed', 'jockey', 'confirmed', {
    jockeyWinRate90Day: {
      unit: RATE,
      definition: "This runner's jockey: wins / rides in visible races with offTime in [off - 90 days, off)." + R4,
      missing: `${EMPTY_RATE} (jockeyRides90Day = 0)`,
      decimals: 4,
    },
    jockeyRides90Day: {
      origin: 'extension',
      unit: 'rides',
      definition: 'The rides jockeyWinRate90Day rests on: rides in visible races with offTime in [off - 90 days, off).',
      missing: '0 when none',
    },
  }),
  ...group('confirmed', 'trainer', 'confirmed', {
    trainer14DayWinRate: {
      unit: RATE,
      definition:
        "This runner's trainer: winners / runners in visible races with offTime in [off - 14 days, off)." + R4,
      missing: `${EMPTY_RATE} (trainerRunners14Day = 0)`,
      decimals: 4,
    },
    trainerRunners14Day: {
      origin: 'extension',
      unit: 'runners',
      definition:
        'The runners trainer14DayWinRate rests on: runners in visible races with offTime in [off - 14 days, off).',
      missing: '0 when none',
    },
    stableForm: {
      unit: 'W-P-R (three integers joined by hyphens)',
      definition:
        "The trainer's last 14 days as W-P-R: wins, seconds plus thirds, runners (so W + P <= R), e.g. 3-5-21.",
      missing: '0-0-0 when the trainer had no runners in the window',
    },
  }),
  ...group('confirmed', 'sire', 'confirmed', {
    sireProgenyWinRate: {
      unit: RATE,
      definition:
        "All visible runs, all time, whose card named the same sire as this runner's card: wins / runs. A run " +
        "counts for the sire named for that runner on that race's card; runs whose card names no sire count for " +
        'none.' +
        R4,
      missing: "0 when this runner's sire is unknown or the sire has no visible runs (sireProgenyRuns = 0)",
      decimals: 4,
    },
    sireProgenyRuns: {
      origin: 'extension',
      unit: 'runs',
      definition: 'The runs sireProgenyWinRate rests on.',
      missing: '0 when the sire is unknown or has no visible runs',
    },
  }),
  ...group('confirmed', 'course snapshot key', 'confirmed', {
    drawBiasStrength: {
      unit: RATE,
      definition:
        "From the course snapshot in force at the off for this race's (course, discipline, distance bucket, " +
        'surface): absolute difference between the win rates of the lowest and highest draw thirds (races with a ' +
        'draw and at least 6 runners).' +
        R4,
      missing: '0 when there is no snapshot or no draw',
      decimals: 4,
    },
    drawBiasRaces: {
      origin: 'extension',
      unit: 'races',
      definition: "Races with a draw (and at least 6 runners) that the snapshot's draw rates rest on.",
      missing: '0 when there is no snapshot or the runner has no draw (drawBiasStrength is 0 then too)',
    },
    snapshotPeriod: {
      origin: 'extension',
      unit: null,
      definition:
        "The period of the course snapshot this row joined (drawBiasStrength and family I): with the race's course, discipline, distance bucket and surface it is the key of that row on racing.course-snapshots.v1 and in /courses/{courseId}/analytics. YYYY-MM (monthly) or YYYY-MM-DD (daily, once live).",
      missing: "empty string when no snapshot is in force (no race of the key was visible before the race's period)",
    },
  }),
  ...group('confirmed', 'course record', 'confirmed', {
    courseTotalClimbM: {
      unit: 'metres',
      definition: 'Total climb of the course, from the open course-topology dataset.',
      missing: TOPOLOGY_MISSING,
      openData: true,
    },
    courseUndulationIndex: {
      unit: 'index (dimensionless)',
      definition: 'Undulation index of the course, from the open course-topology dataset.',
      missing: TOPOLOGY_MISSING,
      openData: true,
    },
    courseElevationRangeM: {
      unit: 'metres',
      definition: 'Elevation range of the course, from the open course-topology dataset.',
      missing: TOPOLOGY_MISSING,
      openData: true,
    },
  }),
};

/** Every field's text, by name: the 46 above and the 162 of the catalogue. */
const FIELDS: Readonly<Record<string, FieldText>> = { ...CORE_FIELDS, ...CATALOGUE_FIELDS };

/** The letters of the canonical headgear text (field headgear), published beside the enum tables. */
const HEADGEAR_TABLE: Record<string, string> = Object.fromEntries([
  ['', 'none'],
  ...HEADGEAR_CODES.map((c) => [c, HEADGEAR_NAMES[c]]),
]);

export const CONVENTIONS: readonly { rule: string; statement: string }[] = [
  {
    rule: 'point in time',
    statement:
      "Every value is computed only from information published before the race's off: results of races Q with " +
      'Q.offTime < R.offTime and Q.result.publishedAt < R.offTime. Only position (and computedAtUtc) change after the off.',
  },
  {
    rule: 'rates',
    statement:
      'Fractions in [0, 1]; a rate with an empty denominator is 0, and a companion count field says how many runs it rests on.',
  },
  { rule: 'form score', statement: FORM_SCORE },
  {
    rule: 'enum-coded fields',
    statement:
      'Integers; 0 means unknown. The code tables are in codeTables, with the letters of the headgear text (table headgear).',
  },
  {
    rule: 'delta fields',
    statement:
      'Exactly four: distanceDifferenceY, ratingDifference, weightDifferenceLbs, classDifference; each is -999 when ' +
      'the runner has no previous run (ratingDifference and classDifference also when either value is unknown).',
  },
  { rule: 'lastRunDays', statement: '730 means no previous run, so lastRunDays == 730 exactly when careerRuns == 0.' },
  {
    rule: 'position',
    statement:
      '1..9 once the race has run; 0 for provisional rows, for finishes outside the top 9, and for non-finishers.',
  },
  {
    rule: 'rounding',
    statement:
      'Rates and scores are rounded to 4 decimal places, vpr and run figures to 0.1, level stakes and starting ' +
      "prices to 2 (each field's decimals); counts are integers. Rounding is half away from zero (two correct " +
      'implementations may still differ by one unit in the last kept place where binary floating point lands on a half).',
  },
  {
    rule: 'non-runners',
    statement: 'Withdrawn runners are not runs: they never count in any history and get no row.',
  },
  ...CATALOGUE_CONVENTIONS,
];

const Nullable = <T extends TSchema>(t: T) => Type.Union([Type.Null(), t]);
const literals = (values: readonly string[], description: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    { description },
  );

export const DataDictionaryFieldSchema = Type.Object(
  {
    name: Type.String(),
    type: Type.String({ description: 'Avro type, e.g. int, double, string, boolean, double | null' }),
    jsonType: Type.String({ description: 'JSON type in API responses, e.g. integer, number | null' }),
    family: literals(Object.keys(FAMILIES), 'catalogue family A..R, or confirmed for the row before the catalogue'),
    entityKey: literals(Object.keys(ENTITY_KEYS), 'the one key whose visible history the value is a function of'),
    unit: Nullable(Type.String()),
    definition: Type.String(),
    missing: Type.String({ description: 'unknown-value convention' }),
    decimals: Nullable(Type.Integer({ description: 'decimal places the value is rounded to' })),
    codeTable: Nullable(Type.String({ description: 'name of the code table in codeTables' })),
    origin: literals(
      ['confirmed', 'features', 'catalogue', 'extension'],
      'confirmed: named by the interface spec; features: defined by the normative feature definitions; ' +
        'catalogue: defined by the normative catalogue; extension: ours',
    ),
    licence: Nullable(Type.String()),
    attribution: Nullable(Type.String()),
  },
  { additionalProperties: false, title: 'DataDictionaryField' },
);

export const DataDictionarySchema = Type.Object(
  {
    record: Type.String({ description: 'Avro full name of the row' }),
    description: Type.String(),
    fieldCount: Type.Integer(),
    conventions: Type.Array(
      Type.Object({ rule: Type.String(), statement: Type.String() }, { additionalProperties: false }),
    ),
    families: Type.Array(
      Type.Object(
        { family: Type.String(), title: Type.String(), fieldCount: Type.Integer() },
        { additionalProperties: false },
      ),
      { description: 'the field families in row order, with their field counts' },
    ),
    entityKeys: Type.Record(Type.String(), Type.String(), { description: 'entity key -> what its history is' }),
    fields: Type.Array(DataDictionaryFieldSchema, { description: 'in Avro field order' }),
    codeTables: Type.Record(Type.String(), Type.Record(Type.String(), Type.String()), {
      description:
        'code -> meaning for every enum-coded field (0 is always unknown), and headgear: letter -> item ("" none)',
    }),
    openData: Type.Object(
      { fields: Type.Array(Type.String()), licence: Type.String(), attribution: Type.String() },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, title: 'DataDictionary' },
);

export type DataDictionary = Static<typeof DataDictionarySchema>;

function jsonTypeName(schema: unknown): string {
  const s = schema as { type?: string; anyOf?: unknown[] };
  if (s.anyOf) {
    const names = s.anyOf.map(jsonTypeName);
    return [...names.filter((n) => n !== 'null'), ...names.filter((n) => n === 'null')].join(' | ');
  }
  return s.type ?? 'unknown';
}

/** Builds the dictionary for a record schema; throws when a field has no entry or an entry no field. */
export function buildDataDictionary(record: AvroRecordSchema = loadAvroSchema('AnalyticsRow')): DataDictionary {
  const names = record.fields.map((f) => f.name);
  const undocumented = names.filter((n) => !(n in FIELDS));
  const stale = Object.keys(FIELDS).filter((n) => !names.includes(n));
  if (undocumented.length > 0 || stale.length > 0) {
    throw new RacingError(
      'config_invalid',
      `data dictionary out of step with ${record.name}.avsc: undocumented [${undocumented.join(', ')}], ` +
        `not in schema [${stale.join(', ')}]`,
    );
  }
  const tables = { ...codeTables(), headgear: HEADGEAR_TABLE };
  const fields = record.fields.map((f) => {
    const t = FIELDS[f.name]!;
    if (t.codeTable !== undefined && !(t.codeTable in tables)) {
      throw new RacingError('config_invalid', `data dictionary: no code table ${t.codeTable}`);
    }
    return {
      name: f.name,
      type: avroTypeName(f.type),
      jsonType: jsonTypeName(avroToJsonSchema(f.type)),
      family: t.family,
      entityKey: t.entityKey,
      unit: t.unit,
      definition: t.definition,
      missing: t.missing,
      decimals: t.decimals ?? null,
      codeTable: t.codeTable ?? null,
      origin: t.origin,
      licence: t.openData ? TOPOLOGY_LICENCE : null,
      attribution: t.openData ? TOPOLOGY_ATTRIBUTION : null,
    };
  });
  const families = [...new Set(fields.map((f) => f.family))].map((family) => ({
    family,
    title: FAMILIES[family],
    fieldCount: fields.filter((f) => f.family === family).length,
  }));
  return {
    record: record.namespace ? `${record.namespace}.${record.name}` : record.name,
    description: record.doc ?? '',
    fieldCount: fields.length,
    conventions: CONVENTIONS.map((c) => ({ ...c })),
    families,
    entityKeys: { ...ENTITY_KEYS },
    fields,
    codeTables: tables,
    openData: {
      fields: fields.filter((f) => f.licence !== null).map((f) => f.name),
      licence: TOPOLOGY_LICENCE,
      attribution: TOPOLOGY_ATTRIBUTION,
    },
  };
}
