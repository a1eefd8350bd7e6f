/**
 * The importer against the real LSR results files in ../shared/data/lsr-racingdata (not in the repo:
 * see SOURCE.md there for why). Skipped with a message when the folder is absent, except in CI
 * (CI=true), where a missing folder fails the run. The totals below were computed independently with
 * Python's csv module; the three hand-checked races were read off the files by eye.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RaceCard, RaceResult } from '../../domain/avro-types.generated.js';
import { makeId } from '../../domain/ids.js';
import { eventFingerprint, type ImportReport, importResultsCsv } from '../../domain/importer/index.js';
import { validateCard, validateCourse, validateResult } from '../../domain/validate.js';
import type { PublishableEvent } from '../../streams/publisher.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const DATA = join(repoRoot, '..', 'shared', 'data', 'lsr-racingdata');
const present = existsSync(DATA);
const inCi = process.env.CI === 'true';
const skip = !present && !inCi;
if (skip) {
  console.warn(`importer-real: skipping the real-file tests: ${DATA} is absent (they run, and fail, when CI=true)`);
}

function resultFiles(): string[] {
  if (!present) throw new Error(`real LSR data folder missing: ${DATA}`);
  return readdirSync(DATA, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) =>
      readdirSync(join(DATA, d.name))
        .filter((f) => /^Results_\d{6}\.csv$/.test(f))
        .map((f) => join(DATA, d.name, f)),
    );
}

const utc = (iso: string) => Date.parse(iso);
const horse = (id: string) => makeId('horse', `lsr:horse:${id}`);

describe.skipIf(skip)(`importer on the real LSR files (${DATA})`, () => {
  let events: PublishableEvent[];
  let report: ImportReport;
  let seconds = 0;
  const cards = new Map<string, RaceCard>();
  const results = new Map<string, RaceResult>();

  beforeAll(async () => {
    const t0 = performance.now();
    ({ events, report } = await importResultsCsv(resultFiles()));
    seconds = (performance.now() - t0) / 1000;
    console.info(
      `importer-real: ${report.files} files, ${report.rows} rows, ${report.races} races in ${seconds.toFixed(2)} s`,
    );
    for (const e of events) {
      if (e.kind === 'card') cards.set(e.value.raceId, e.value);
      else if (e.kind === 'result') results.set(e.value.raceId, e.value);
    }
  });

  function raceAt(courseId: string, off: string, expectedId: string): { card: RaceCard; result: RaceResult } {
    const id = makeId('race', `lsr:race:${courseId}:${off}`);
    expect(id).toBe(expectedId); // the id must never change between releases: it is the topic key
    const card = cards.get(id);
    const result = results.get(id);
    if (!card || !result) throw new Error(`race ${courseId} ${off} not imported`);
    return { card, result };
  }

  it('matches the independently computed totals for the whole folder', () => {
    expect(report).toMatchObject({
      files: 11,
      rows: 126_852,
      races: 12_986,
      runners: 126_771,
      duplicateRowsDropped: 81,
      rejectedRows: 0,
      rejectedByReason: {},
    });
    expect(report.issues).toEqual([]);
    const kinds = { course: 0, card: 0, result: 0 };
    for (const e of events) kinds[e.kind]++;
    expect(kinds).toEqual({ course: 220, card: 12_986, result: 12_986 });
  });

  it('emits only events the processor accepts', () => {
    for (const e of events) {
      const errors =
        e.kind === 'card'
          ? validateCard(e.value)
          : e.kind === 'result'
            ? validateResult(e.value)
            : validateCourse(e.value);
      if (errors.length > 0)
        throw new Error(`${e.kind} ${JSON.stringify(e.value).slice(0, 200)}: ${errors.join('; ')}`);
    }
  });

  it('Hereford 2021-11-01 12:25 (GMT, the day after the clock change): a 7-runner maiden hurdle', () => {
    const { card, result } = raceAt('24', '11/01/2021 12:25:00', 'rac_ahtrd9066bas2vfd');
    expect(card.offTime).toBe(utc('2021-11-01T12:25:00Z'));
    expect(card.publishedAt).toBe(utc('2021-10-31T12:25:00Z'));
    expect(result.publishedAt).toBe(utc('2021-11-01T12:40:00Z'));
    expect(card).toMatchObject({
      meetingDate: '2021-11-01',
      courseName: 'Hereford',
      country: 'GB',
      discipline: 'hurdle',
      surface: 'turf',
      raceClass: 4,
      distanceYards: 4290,
      going: 'Good',
      raceName: 'Philip & Carol Houldey Golden Wedding Anniversary "National Hunt" Auction Maiden Hurdle (GBB Race)',
    });
    expect(card.runners).toHaveLength(7);
    expect(card.runners.every((r) => r.draw === 0)).toBe(true); // jumps: no stalls
    expect(card.runners[0]).toMatchObject({
      horseId: horse('2877679'),
      horseName: 'A Distant Place',
      jockeyName: 'Kevin Brogan',
      trainerName: "Jonjo O'Neill",
      saddleCloth: 1,
      weightLbs: 177,
      officialRating: 120,
      age: 6,
    });
    expect(result.runners.map((r) => r.position)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(result.runners.map((r) => r.beatenLengths)).toEqual([0, 5, 5.75, 49.75, 56.25, 58.5, 64]);
    expect(result.runners.filter((r) => r.favourite).map((r) => r.horseId)).toEqual([horse('2877679')]); // 8/15F
    expect(result.runners[0]!.startingPrice).toBeCloseTo(1.5333, 4);
    expect(result.winningTimeSeconds).toBe(288.7);
  });

  it('Dundalk (AW) (IRE) 2021-11-03 15:30: a 10-runner claimer from stalls, with a disqualification', () => {
    const { card, result } = raceAt('1138', '11/03/2021 15:30:00', 'rac_6yvfvre8pb6ws1b1');
    expect(card.offTime).toBe(utc('2021-11-03T15:30:00Z'));
    expect(card).toMatchObject({
      courseName: 'Dundalk (AW) (IRE)',
      country: 'IRE',
      discipline: 'flat',
      surface: 'aw',
      raceClass: 0,
      distanceYards: 1320,
      going: 'Standard',
    });
    const drawOf = Object.fromEntries(card.runners.map((r) => [r.horseName, r.draw]));
    expect(drawOf).toEqual({
      'Rocky Dreams': 8,
      'No Speed Limit': 4,
      'Viv Vance': 2,
      'Art Of Unity': 3,
      'Windham Belle': 10,
      "Caesar's Comet": 5,
      Beleaguerment: 7,
      Hathiq: 6,
      'Jm Barrie': 1,
      'The Last Knight': 9,
    });
    expect(card.runners.map((r) => r.saddleCloth)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(result.runners.map((r) => r.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 0]);
    expect(result.runners[9]).toMatchObject({ horseId: horse('3162599'), status: 'disqualified', beatenLengths: 0 });
    expect(result.runners.filter((r) => r.favourite).map((r) => r.horseId)).toEqual([horse('1633882')]); // 6/4F
    expect(result.runners[0]).toMatchObject({ horseId: horse('2645452'), startingPrice: 3.25, beatenLengths: 0 });
    expect(result.winningTimeSeconds).toBe(71.25);
  });

  it('Limerick (IRE) 2022-03-27 15:26 (BST from that morning): a 6-runner Grade 3 novice chase', () => {
    const { card, result } = raceAt('188', '03/27/2022 15:26:00', 'rac_f8v7r3kkvvfp2fb9');
    expect(card.offTime).toBe(utc('2022-03-27T14:26:00Z'));
    expect(card.publishedAt).toBe(utc('2022-03-26T14:26:00Z')); // 24 h in UTC, i.e. 14:26 GMT the day before
    expect(card).toMatchObject({
      meetingDate: '2022-03-27',
      country: 'IRE',
      discipline: 'chase',
      surface: 'turf',
      raceClass: 0,
      distanceYards: 5390,
      going: 'Good To Yielding',
    });
    expect(card.runners).toHaveLength(6);
    expect(card.runners.every((r) => r.draw === 0)).toBe(true);
    expect(result.runners.map((r) => r.position)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(result.runners[0]!.horseId).toBe(horse('2644701')); // Lifetime Ambition
    expect(result.runners.filter((r) => r.favourite).map((r) => r.horseId)).toEqual([horse('1888978')]); // 5/4F
    expect(result.winningTimeSeconds).toBe(377.9);
  });

  it('Bath 2026-07-01 17:58 (BST, 2026 layout): " right" stripped, sires from SireName + SireCountry', () => {
    const { card } = raceAt('5', '07/01/2026 17:58:00', 'rac_encce1jsf1qk4d0h');
    expect(card.offTime).toBe(utc('2026-07-01T16:58:00Z'));
    const winner = card.runners.find((r) => r.horseName === 'Reality Queen');
    expect(winner).toMatchObject({
      jockeyName: 'Alistair Rawlinson',
      trainerName: 'Michael Appleby',
      sireName: 'Ubettabelieveit (IRE)',
      sireId: makeId('sire', 'lsr:sire:Ubettabelieveit:IRE'),
      draw: 3,
      officialRating: 57,
    });
    expect(card.runners.some((r) => / right$/.test(r.horseName + r.jockeyName + r.trainerName))).toBe(false);
  });

  it('has no sire before 2026-06-23 and strips " right" from every 2026 name', () => {
    let firstSire = Number.POSITIVE_INFINITY;
    for (const c of cards.values()) {
      for (const r of c.runners) {
        if (r.sireId !== null) firstSire = Math.min(firstSire, c.offTime);
        if (r.horseName.endsWith(' right') || r.jockeyName.endsWith(' right') || r.trainerName.endsWith(' right')) {
          throw new Error(`" right" left in ${c.raceId}: ${r.horseName} / ${r.jockeyName} / ${r.trainerName}`);
        }
      }
    }
    expect(new Date(firstSire).toISOString().slice(0, 10)).toBe('2026-06-23');
  });

  it('new inputs over the folder: pattern, handicaps, sex, headgear, claims, owners, dams (Python tallies)', () => {
    const patterns: Record<string, number> = {};
    let handicaps = 0;
    const sex: Record<string, number> = {};
    let headgear = 0;
    const claims: Record<string, number> = {};
    const owners = new Set<string>();
    const dams = new Set<string>();
    let withOwner = 0;
    let withDam = 0;
    for (const c of cards.values()) {
      patterns[c.pattern] = (patterns[c.pattern] ?? 0) + 1;
      if (c.isHandicap) handicaps++;
      for (const r of c.runners) {
        sex[r.sex] = (sex[r.sex] ?? 0) + 1;
        if (r.headgear !== '') headgear++;
        if (r.jockeyClaimLbs > 0) claims[r.jockeyClaimLbs] = (claims[r.jockeyClaimLbs] ?? 0) + 1;
        if (r.ownerId !== '') {
          withOwner++;
          owners.add(r.ownerId);
        }
        if (r.damId !== '') {
          withDam++;
          dams.add(r.damId);
        }
        expect(r.damSireId).toBe(''); // no dam sire column
      }
    }
    expect(patterns).toEqual({ '': 11_270, none: 51, listed: 367, group3: 557, group2: 370, group1: 371 });
    expect(handicaps).toBe(7_696);
    expect(sex).toEqual({ '': 112_375, f: 6_247, m: 7_941, g: 208 });
    expect(headgear).toBe(56_471);
    expect(claims).toEqual({ 2: 132, 3: 511, 4: 41, 5: 1_061, 6: 2, 7: 968, 10: 46 });
    expect([withOwner, owners.size]).toEqual([12_991, 6_412]);
    expect([withDam, dams.size]).toEqual([12_991, 8_149]);
  });

  it('new inputs, hand-picked runners of 2021-22 and 2026', () => {
    // Kempton (AW) 2026-07-02 16:55, novice stakes: Shadow Brigade, GeldingFirstTime True, Liam Wright claiming 5
    const kempton = raceAt('1079', '07/02/2026 16:55:00', makeId('race', 'lsr:race:1079:07/02/2026 16:55:00'));
    expect(kempton.card).toMatchObject({ isHandicap: false, pattern: '' });
    expect(kempton.card.runners.find((r) => r.horseId === horse('7204798'))).toMatchObject({
      horseName: 'Shadow Brigade',
      sex: 'g',
      headgear: '',
      jockeyClaimLbs: 5,
      ownerId: makeId('owner', 'lsr:owner:361251'),
      ownerName: 'Victorious Forever',
      damId: makeId('dam', 'lsr:dam:Mohassan'),
      damName: 'Mohassan',
      damSireId: '',
    });
    // Nottingham 2026-07-04 20:00, a fillies' handicap: Rosemary May (4yo, hood), claim 5
    const notts = raceAt('40', '07/04/2026 20:00:00', makeId('race', 'lsr:race:40:07/04/2026 20:00:00'));
    expect(notts.card).toMatchObject({ isHandicap: true, pattern: '' });
    expect(notts.card.runners.find((r) => r.horseId === horse('7355941'))).toMatchObject({
      sex: 'm',
      headgear: 'h',
      jockeyClaimLbs: 5,
      ownerName: 'Reality Partnerships XVIII',
      damName: 'Rawaaq',
    });
    // Lingfield (AW) 2021-11-13 15:40, the Churchill Stakes (Listed): Dubai Warrior in "e/s1"; no owner then
    const lingfield = raceAt('393', '11/13/2021 15:40:00', makeId('race', 'lsr:race:393:11/13/2021 15:40:00'));
    expect(lingfield.card).toMatchObject({ pattern: 'listed', isHandicap: false });
    expect(lingfield.card.runners.find((r) => r.horseId === horse('2315226'))).toMatchObject({
      headgear: 'e',
      sex: '',
      jockeyClaimLbs: 0,
      ownerId: '',
      damId: '',
    });
    // Leopardstown 2022-02-06 14:25, a Grade A handicap chase: none; Doha 2021-12-23 16:45, a local Group 1: none
    expect(raceAt('187', '02/06/2022 14:25:00', makeId('race', 'lsr:race:187:02/06/2022 14:25:00')).card).toMatchObject(
      { pattern: 'none', isHandicap: true },
    );
    expect(
      raceAt('1196', '12/23/2021 16:45:00', makeId('race', 'lsr:race:1196:12/23/2021 16:45:00')).card,
    ).toMatchObject({ pattern: 'none', courseName: 'Doha (QA)' });
    // Hereford 2021-11-01 15:25, a mares' handicap hurdle (SexRestriction None): Peltwell (8, cheekpieces), Sashenka (5)
    const hereford = raceAt('24', '11/01/2021 15:25:00', makeId('race', 'lsr:race:24:11/01/2021 15:25:00'));
    const h = Object.fromEntries(hereford.card.runners.map((r) => [r.horseName, r]));
    expect(h['Peltwell']).toMatchObject({ sex: 'm', headgear: 'p' });
    expect(h['Sashenka']).toMatchObject({ sex: 'm', headgear: '' });
  });

  it('Results_202203.csv alone: 81 duplicates dropped; a re-import is byte-identical', async () => {
    const march = resultFiles().filter((p) => p.endsWith('Results_202203.csv'));
    const a = await importResultsCsv(march);
    const b = await importResultsCsv(march);
    expect(a.report.duplicateRowsDropped).toBe(81);
    expect(a.report.races).toBe(1_378);
    expect(b.events.map(eventFingerprint)).toEqual(a.events.map(eventFingerprint));
    // the first occurrence is kept: Southwell 2022-03-07 14:10, "Mr Toby Wynne" (the re-scrape says "Toby Wynne")
    const id = makeId('race', 'lsr:race:61:03/07/2022 14:10:00');
    const card = a.events.find((e) => e.kind === 'card' && e.value.raceId === id)!.value as RaceCard;
    expect(card.runners.find((r) => r.horseId === horse('1114289'))!.jockeyName).toBe('Mr Toby Wynne');
  });
});
