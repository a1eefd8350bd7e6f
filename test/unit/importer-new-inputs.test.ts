/**
 * The catalogue's new inputs from the results files (docs/importer.md "New inputs"): pattern,
 * handicap, sex, headgear, claims, owners, dams. Field rules one by one, then the hand-made fixture
 * test/fixtures/lsr/Results_new-inputs.csv (2026-06..08 layout) end to end.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RaceCard } from '../../domain/avro-types.generated.js';
import { canonicalHeadgear } from '../../domain/codes.js';
import { makeId } from '../../domain/ids.js';
import { type ImportReport, importResultsCsv } from '../../domain/importer/index.js';
import { femaleOnlyRace, isHandicapName, patternOf, sexOf } from '../../domain/importer/mapping.js';
import { validateCard } from '../../domain/validate.js';
import type { PublishableEvent } from '../../domain/events.js';
import { card } from '../support/builders.js';

const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'lsr', 'Results_new-inputs.csv');
const raceIdOf = (courseId: string, off: string) => makeId('race', `lsr:race:${courseId}:${off}`);
const owner = (id: string) => makeId('owner', `lsr:owner:${id}`);
const dam = (name: string) => makeId('dam', `lsr:dam:${name}`);

describe('new-input field rules', () => {
  it('Pattern: groups and grades 1-3, Listed; other gradings none; blank unknown', () => {
    expect(patternOf('(Group 1)')).toBe('group1');
    expect(patternOf('(Grade 2)')).toBe('group2');
    expect(patternOf('(Group 3 ')).toBe('group3'); // "(Group 3 Handicap)" abroad, cut by the scraper
    expect(patternOf('Listed')).toBe('listed');
    expect(patternOf('(Grade A)')).toBe('none');
    expect(patternOf('(Grade B)')).toBe('none');
    expect(patternOf(' Group 1)')).toBe('none'); // "(Local Group 1)", "(PA Group 1)": not black type
    expect(patternOf(' Grade 2)')).toBe('none'); // "(AQPS Grade 2)"
    expect(patternOf('')).toBe('');
    expect(patternOf('   ')).toBe('');
  });

  it('a handicap is a race whose name says so, in any case', () => {
    expect(isHandicapName('Testbury Nursery Handicap')).toBe(true);
    expect(isHandicapName('BARONERACING.COM Leinster National HANDICAP Chase (Grade A)')).toBe(true);
    expect(isHandicapName('Lexus Melbourne Cup (Group 1 handicap)')).toBe(true);
    expect(isHandicapName("Testbury Novices' Hurdle")).toBe(false);
  });

  it('sex: female in fillies-and-mares races by age, g on GeldingFirstTime, otherwise unknown', () => {
    expect(femaleOnlyRace('Fillies', 'Any Stakes')).toBe(true);
    expect(femaleOnlyRace('None', "Testbury Mares' Handicap Hurdle")).toBe(true);
    expect(femaleOnlyRace('None', 'Irish Stallion Farms EBF Mares INH Flat Race')).toBe(true);
    expect(femaleOnlyRace('ColtsAndFillies', 'Testbury Stakes')).toBe(false);
    expect(femaleOnlyRace('ColdsAndGeldings', 'Testbury Stakes')).toBe(false);
    expect(femaleOnlyRace('None', 'Testbury Stakes')).toBe(false);
    expect(sexOf(true, 2, 'False')).toBe('f');
    expect(sexOf(true, 3, '')).toBe('f');
    expect(sexOf(true, 4, '')).toBe('m');
    expect(sexOf(true, 0, '')).toBe('');
    expect(sexOf(false, 5, 'True')).toBe('g');
    expect(sexOf(false, 5, 'False')).toBe('');
  });

  it("headgear: the files' codes to canonical text ('e/s' is e, the first-time digit dropped)", () => {
    expect(canonicalHeadgear('tp1')).toBe('pt');
    expect(canonicalHeadgear('e/s1')).toBe('e');
    expect(canonicalHeadgear('e/sp')).toBe('pe');
    expect(canonicalHeadgear('htb')).toBe('bht');
    expect(canonicalHeadgear('')).toBe('');
  });
});

describe('validateCard: the new fields', () => {
  const base = (): RaceCard => {
    const c = card({ r: 'V', off: '2026-07-02T17:00:00Z', runners: [{ h: 'A' }] });
    return {
      ...c,
      isHandicap: true,
      pattern: 'group1',
      runners: c.runners.map((r) => ({
        ...r,
        sex: 'g',
        headgear: 'pt',
        jockeyClaimLbs: 7,
        ownerId: makeId('owner', 't:o'),
        ownerName: 'O',
        damId: makeId('dam', 't:d'),
        damName: 'D',
        damSireId: makeId('sire', 't:ds'),
        damSireName: 'DS',
      })),
    };
  };
  const withRunner = (x: Partial<RaceCard['runners'][number]>): RaceCard => {
    const c = base();
    return { ...c, runners: [{ ...c.runners[0]!, ...x }] };
  };

  it('accepts the tables, canonical headgear, claims 0..10 and ids of the right kind, and "" as unknown', () => {
    expect(validateCard(base())).toEqual([]);
    const unknown = withRunner({ sex: '', headgear: '', jockeyClaimLbs: 0, ownerId: '', damId: '', damSireId: '' });
    expect(validateCard({ ...unknown, pattern: '', isHandicap: false })).toEqual([]);
  });

  it('names the field and what it accepts', () => {
    expect(validateCard({ ...base(), pattern: 'Group 1' })).toEqual([
      'pattern "Group 1" must be one of none, listed, group3, group2, group1 or "" (unknown)',
    ]);
    expect(validateCard(withRunner({ sex: 'x' }))).toEqual([
      'runners[0].sex "x" must be one of c, f, g, m, h, r or "" (unknown)',
    ]);
    expect(validateCard(withRunner({ headgear: 'tp1' }))).toEqual([
      'runners[0].headgear "tp1" is not canonical headgear: distinct codes in the order b, v, h, p, t, e (expected "pt")',
    ]);
    expect(validateCard(withRunner({ jockeyClaimLbs: 11 }))).toEqual([
      'runners[0].jockeyClaimLbs must be an integer 0..10',
    ]);
    expect(validateCard(withRunner({ jockeyClaimLbs: -3 }))).toHaveLength(1);
    expect(validateCard(withRunner({ ownerId: makeId('dam', 'x') }))).toEqual([
      'runners[0].ownerId is not an owner id (own_...) or ""',
    ]);
    expect(validateCard(withRunner({ damId: 'dam_' }))).toEqual(['runners[0].damId is not a dam id (dam_...) or ""']);
    expect(validateCard(withRunner({ damSireId: makeId('dam', 'x') }))).toEqual([
      'runners[0].damSireId is not a sire id (sir_...) or ""',
    ]);
  });
});

describe('importer: the new inputs on a 2026-layout fixture', () => {
  let events: PublishableEvent[];
  let report: ImportReport;
  const cardAt = (courseId: string, off: string): RaceCard => {
    const id = raceIdOf(courseId, off);
    const e = events.find((x) => x.kind === 'card' && x.value.raceId === id);
    if (!e) throw new Error(`no card ${courseId} ${off}`);
    return e.value as RaceCard;
  };
  const runnersOf = (c: RaceCard) => Object.fromEntries(c.runners.map((r) => [r.horseName, r]));

  beforeAll(async () => {
    ({ events, report } = await importResultsCsv([FIXTURE]));
  });

  it('rejects only the row whose JockeyAllowanceLbs is not a whole number of lbs', () => {
    expect(report.rows).toBe(10);
    expect(report.rejectedByReason).toEqual({ 'bad-jockey-allowance': 1 });
    expect(report.issues).toMatchObject([{ line: 7, reason: 'bad-jockey-allowance' }]);
    for (const e of events) if (e.kind === 'card') expect(validateCard(e.value)).toEqual([]);
  });

  it("a fillies' handicap: f/m by age, canonical headgear, claims, owners and dams (0 is no owner)", () => {
    const c = cardAt('9001', '07/02/2026 18:00:00');
    expect(c).toMatchObject({ raceName: "Testbury Fillies' Handicap", isHandicap: true, pattern: '' });
    const r = runnersOf(c);
    expect(r['Filly One']).toMatchObject({
      sex: 'f',
      headgear: 'pt',
      jockeyClaimLbs: 5,
      ownerId: owner('500001'),
      ownerName: 'The Test Partnership',
      damId: dam('Mare & Foal'),
      damName: 'Mare & Foal',
      damSireId: '',
      damSireName: '',
    });
    expect(r['Mare Two']).toMatchObject({
      sex: 'm',
      headgear: 'e',
      jockeyClaimLbs: 10,
      ownerId: '',
      ownerName: '',
      damId: '',
      damName: '',
    });
    expect(r['No Age']).toMatchObject({ sex: '', headgear: 'bht', jockeyClaimLbs: 0, damId: r['Filly One']!.damId });
  });

  it('an open race: GeldingFirstTime makes a gelding, a truncated "(Group 1 " is group1', () => {
    const c = cardAt('9001', '07/02/2026 18:30:00');
    expect(c).toMatchObject({ isHandicap: false, pattern: 'group1' });
    const r = runnersOf(c);
    expect(Object.keys(r).sort()).toEqual(['Colt', 'Geldy']);
    expect(r['Geldy']).toMatchObject({ sex: 'g', jockeyClaimLbs: 3, ownerId: owner('500002'), damName: 'Dam Two' });
    expect(r['Colt']).toMatchObject({ sex: '', headgear: 'v', jockeyClaimLbs: 0, ownerName: 'Mr A Owner' });
  });

  it("a mares' handicap hurdle (unrestricted in SexRestriction) is female; Grade B is none", () => {
    const c = cardAt('9001', '07/02/2026 19:00:00');
    expect(c).toMatchObject({ discipline: 'hurdle', isHandicap: true, pattern: 'none' });
    const r = runnersOf(c);
    expect(r['Old Mare']).toMatchObject({ sex: 'm', headgear: 'p', ownerName: 'Ms B' });
    expect(r['Young Mare']).toMatchObject({ sex: 'm', jockeyClaimLbs: 7, ownerName: 'Owner & Co' });
  });

  it('a local Group 2 abroad is none; Listed is listed; blanks are unknown', () => {
    const abroad = cardAt('9002', '07/03/2026 16:00:00');
    expect(abroad).toMatchObject({ country: 'QA', pattern: 'none', isHandicap: false });
    expect(abroad.runners[0]).toMatchObject({ ownerId: '', damId: '', sireId: null, headgear: '', sex: '' });
    const listed = cardAt('9001', '07/03/2026 17:00:00');
    expect(listed).toMatchObject({ pattern: 'listed' });
    expect(listed.runners[0]).toMatchObject({ headgear: 'h', damName: 'Dam Five', ownerId: owner('500001') });
  });
});
