/**
 * The data dictionary against schemas/AnalyticsRow.avsc and ../shared/spec/catalogue.md: every field of the
 * .avsc has an entry with family, entity key, type, unit, definition and unknown-value convention, every
 * entry is a field of the .avsc, and the 162 catalogue fields sit in their families in catalogue order.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { avroTypeName, type AvroType } from '../../api/avro-json-schema.js';
import { buildDataDictionary } from '../../api/data-dictionary.js';
import { CATALOGUE_FIELDS, ENTITY_KEYS, FAMILIES } from '../../api/data-dictionary-catalogue.js';
import { HEADGEAR_CODES, HEADGEAR_NAMES } from '../../domain/codes.js';

interface AvscField {
  name: string;
  type: AvroType;
  default?: unknown;
}
const avsc = JSON.parse(readFileSync(join(import.meta.dirname, '../../schemas/AnalyticsRow.avsc'), 'utf8')) as {
  fields: AvscField[];
};
const dd = buildDataDictionary();
const by = Object.fromEntries(dd.fields.map((f) => [f.name, f]));
const catalogue = dd.fields.filter((f) => f.family !== 'confirmed');

/** catalogue.md "Counting", in row order. */
const CATALOGUE_COUNTS = { A: 5, B: 11, C: 22, D: 9, E: 15, F: 4, G: 23, I: 9, J: 13, K: 13, L: 6, M: 20, N: 6, R: 6 };
/** The row before the catalogue (features.md's fields, companions and card fields): 45, plus later extensions. */
const CONFIRMED_BEFORE_CATALOGUE = 45;

describe('data dictionary and AnalyticsRow.avsc', () => {
  it('has a full entry (family, entity key, type, unit, definition, unknown) for every .avsc field, and no other', () => {
    expect(dd.fields.map((f) => f.name)).toEqual(avsc.fields.map((f) => f.name));
    expect(Object.keys(CATALOGUE_FIELDS).every((n) => avsc.fields.some((f) => f.name === n))).toBe(true);
    for (const [i, f] of dd.fields.entries()) {
      expect(Object.keys(FAMILIES), f.name).toContain(f.family);
      expect(Object.keys(ENTITY_KEYS), f.name).toContain(f.entityKey);
      expect(f.type, f.name).toBe(avroTypeName(avsc.fields[i]!.type));
      expect(f.unit === null || f.unit.length > 0, f.name).toBe(true);
      expect(f.definition.length, f.name).toBeGreaterThan(10);
      expect(f.missing.length, f.name).toBeGreaterThan(0);
    }
    // A value with a unit of measure has one (only flags, ids, text and positions may have none).
    for (const f of catalogue.filter((x) => x.type !== 'boolean' && x.type !== 'string')) {
      expect(f.unit, f.name).not.toBeNull();
    }
  });

  it('appends 162 catalogue fields in 14 families after the confirmed row, in catalogue order', () => {
    const confirmed = dd.fields.length - 162;
    expect(confirmed).toBeGreaterThanOrEqual(CONFIRMED_BEFORE_CATALOGUE);
    expect(catalogue).toHaveLength(162);
    expect(Object.keys(CATALOGUE_FIELDS)).toHaveLength(162);
    expect(dd.families).toEqual(
      Object.entries({ confirmed, ...CATALOGUE_COUNTS }).map(([family, fieldCount]) => ({
        family,
        title: FAMILIES[family as keyof typeof FAMILIES],
        fieldCount,
      })),
    );
    // contiguous families: the family sequence along the row is exactly the counts laid end to end
    expect(dd.fields.map((f) => f.family)).toEqual(
      Object.entries({ confirmed, ...CATALOGUE_COUNTS }).flatMap(([family, n]) => Array<string>(n).fill(family)),
    );
    const names = catalogue.map((f) => f.name);
    const scopes = ['Course', 'Distance', 'Going', 'Surface', 'Discipline', 'Class', 'CourseDistance'];
    expect(names.filter((n) => by[n]!.family === 'G')).toEqual([
      ...scopes.flatMap((s) => [`horse${s}Runs`, `horse${s}Wins`, `horse${s}FormScore`]),
      'horseJockeyRuns',
      'horseJockeyWins',
    ]);
    expect(names.filter((n) => by[n]!.family === 'K')).toEqual([
      'trainerRunners30Day',
      'trainerWinRate30Day',
      'trainerRunners365Day',
      'trainerWinRate365Day',
      'trainerPlaceRate365Day',
      'trainerAe365Day',
      'trainerLevelStakes365Day',
      'trainerShrunkWinRate365Day',
      'trainerCourseRunners5Year',
      'trainerCourseWinRate5Year',
      'trainerDisciplineRunners365Day',
      'trainerDisciplineWinRate365Day',
      'trainerDaysSinceLastWinner',
    ]);
    expect(names.slice(0, 5)).toEqual([
      'isHandicap',
      'patternCode',
      'goingGroupCode',
      'monthOfYear',
      'courseDirectionCode',
    ]);
    expect(names.slice(-6)).toEqual([
      'vprRankInRace',
      'vprGapToBest',
      'officialRatingRankInRace',
      'weightRankInRace',
      'jockeyWinRate90DayRankInRace',
      'trainer14DayWinRateRankInRace',
    ]);
  });

  it('gives every catalogue field a default, so a row written before them still decodes', () => {
    const zero: Record<string, unknown> = { int: 0, double: 0, boolean: false, string: '' };
    for (const f of avsc.fields.filter((x) => x.name in CATALOGUE_FIELDS)) {
      expect(f, f.name).toHaveProperty('default');
      if (Array.isArray(f.type)) {
        expect(f.type[0], f.name).toBe('null');
        expect(f.default, f.name).toBeNull();
      } else expect(f.default, f.name).toBe(zero[f.type as string]);
    }
    // a writer with only the fields that have no default (the original row) resolves to the full schema
    const v1 = avro.Type.forSchema({ ...avsc, fields: avsc.fields.filter((f) => !('default' in f)) } as avro.Schema);
    // (sireId and the three topology fields of the original 45 are nullable with a default too)
    expect((v1.schema() as { fields: unknown[] }).fields.length).toBeGreaterThanOrEqual(CONFIRMED_BEFORE_CATALOGUE - 4);
    const v2 = avro.Type.forSchema(avsc as unknown as avro.Schema);
    const old = v1.random() as unknown as Record<string, unknown>;
    const read = v2.fromBuffer(v1.toBuffer(old), v2.createResolver(v1)) as Record<string, unknown>;
    expect(read['weightRankInRace']).toBe(0);
    expect(read['lastPosition']).toBeNull();
    expect(read['headgear']).toBe('');
    expect(read['raceId']).toBe(old['raceId']);
  });

  it("states catalogue.md's unknown-value conventions for every catalogue field", () => {
    for (const f of catalogue) {
      if (f.type.endsWith('| null')) expect(f.missing, f.name).toMatch(/^null /);
      else expect(f.missing, f.name).not.toMatch(/\bnull\b/);
      if (f.name.endsWith('Code')) expect(f.missing, f.name).toMatch(/^0 = /);
      // every double is rounded by rule: 4 dp, or 0.1 (figures, vpr, distances), or 2 (SP, level stakes)
      if (f.type.startsWith('double')) expect([1, 2, 4], f.name).toContain(f.decimals);
      else expect(f.decimals, f.name).toBeNull();
      if (f.decimals === 4) expect(f.definition, f.name).toContain('Rounded to 4 decimal places');
      if (f.unit === 'fraction in [0, 1]' && /Rate/.test(f.name) && !/Shrunk/.test(f.name)) {
        expect(f.missing, f.name).toMatch(/0 when/);
      }
    }
    expect(by['daysSinceLastWin']!.missing).toContain('730 when the history has no win');
    expect(by['daysSinceLastWin']!.definition).toContain('capped at 729');
    for (const who of ['jockey', 'trainer']) {
      expect(by[`${who}DaysSinceLastWinner`]!.missing, who).toMatch(/^730 /);
      expect(by[`${who}ShrunkWinRate365Day`]!.missing, who).toContain('0.1');
      expect(by[`${who}LevelStakes365Day`]!.decimals, who).toBe(2);
    }
    expect(by['careerWinRate']!.missing).toBe('0 when the denominator is empty (careerRuns = 0)');
    expect(by['runsSinceLastWin']!.missing).toContain('careerRuns');
    expect(by['drawThirdCode']!.missing).toBe('0 = no draw');
    expect(by['drawPct']!.missing).toContain('null without a draw');
    expect(by['vprGapToBest']!.decimals).toBe(1);
    expect(by['lastStartingPrice']!.decimals).toBe(2);
    expect(by['isDebut']!.definition).toBe('careerRuns = 0.');
  });

  it('names the entity key catalogue.md gives each field', () => {
    const expected = (name: string, family: string): string => {
      switch (family) {
        case 'A':
          return name === 'courseDirectionCode' ? 'course record' : 'race card';
        case 'B':
          return 'race card';
        case 'I':
          return 'course snapshot key';
        case 'R':
          return 'race (rank)';
        case 'J':
        case 'K': {
          const who = family === 'J' ? 'jockey' : 'trainer';
          return name.startsWith(`${who}Course`)
            ? `${who}+course`
            : name.startsWith(`${who}Discipline`)
              ? `${who}+discipline`
              : who;
        }
        case 'L':
          return name.startsWith('owner') ? 'owner' : 'trainer+jockey';
        case 'M': {
          if (name.startsWith('damSireDistance')) return 'dam sire+distance bucket';
          if (name.startsWith('damSire')) return 'dam sire';
          if (name.startsWith('dam')) return 'dam';
          const m = /^sire(Surface|Going|Distance|Discipline)/.exec(name);
          const scope = {
            Surface: 'surface',
            Going: 'going group',
            Distance: 'distance bucket',
            Discipline: 'discipline',
          };
          return m ? `sire+${scope[m[1] as keyof typeof scope]}` : 'sire';
        }
        default:
          return 'horse'; // C, D, E, F, G, N
      }
    };
    for (const f of catalogue) expect(f.entityKey, f.name).toBe(expected(f.name, f.family));
    expect(dd.entityKeys).toEqual(ENTITY_KEYS);
    expect(by['jockeyWinRate90Day']!.entityKey).toBe('jockey');
    expect(by['drawBiasStrength']!.entityKey).toBe('course snapshot key');
    expect(by['courseTotalClimbM']!.entityKey).toBe('course record');
    expect(by['vpr']!.entityKey).toBe('horse');
  });

  it('links the new enum fields and the headgear text to their code tables', () => {
    for (const name of ['patternCode', 'goingGroupCode', 'courseDirectionCode', 'sexCode', 'drawThirdCode']) {
      expect(by[name]!.codeTable, name).toBe(name);
      expect(dd.codeTables[name]!['0'], name).toBe('unknown');
      expect(Object.keys(dd.codeTables[name]!).length, name).toBeGreaterThan(3);
    }
    expect(by['headgear']!.codeTable).toBe('headgear');
    expect(dd.codeTables['headgear']).toEqual({
      '': 'none',
      ...Object.fromEntries(HEADGEAR_CODES.map((c) => [c, HEADGEAR_NAMES[c]])),
    });
    expect(dd.codeTables['goingGroupCode']!['6']).toBe('aw-slow');
    expect(dd.codeTables['drawThirdCode']).toEqual({ '0': 'unknown', '1': 'low', '2': 'middle', '3': 'high' });
  });

  it("publishes catalogue.md's rules among the conventions", () => {
    expect(dd.conventions.map((c) => c.rule)).toEqual(
      expect.arrayContaining(['one entity', 'windows', 'unknown values', 'PRB', 'A/E', 'level stakes', 'draw third']),
    );
    const rule = (r: string) => dd.conventions.find((c) => c.rule === r)!.statement;
    expect(rule('windows')).toContain('1826 days');
    expect(rule('PRB')).toContain('(ran - pos) / (ran - 1)');
    expect(rule('shrunk win rate')).toContain('(wins + 2) / (runs + 20)');
    expect(rule('level stakes')).toContain('SP / k - 1');
  });
});
