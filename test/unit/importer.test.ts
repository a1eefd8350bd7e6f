/** The importer's rules on small hand-made fixtures (test/fixtures/lsr); parsing pieces are in importer-parsing.test.ts. */
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Course, RaceCard, RaceResult } from '../../domain/avro-types.generated.js';
import { makeId } from '../../domain/ids.js';
import { compareEvents } from '../../domain/importer/build.js';
import { type ImportReport, eventFingerprint, importResultsCsv, RESULT_DELAY_MS } from '../../domain/importer/index.js';
import { validateCard, validateCourse, validateResult } from '../../domain/validate.js';
import type { PublishableEvent } from '../../streams/publisher.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'lsr');
const fx = (name: string) => join(FIXTURES, `Results_${name}.csv`);
const HOUR = 3_600_000;
const utc = (iso: string) => Date.parse(iso);
const raceIdOf = (courseId: string, off: string) => makeId('race', `lsr:race:${courseId}:${off}`);
const horse = (id: string) => makeId('horse', `lsr:horse:${id}`);

function cards(events: PublishableEvent[]): RaceCard[] {
  return events.flatMap((e) => (e.kind === 'card' ? [e.value] : []));
}
function results(events: PublishableEvent[]): RaceResult[] {
  return events.flatMap((e) => (e.kind === 'result' ? [e.value] : []));
}
function courses(events: PublishableEvent[]): Course[] {
  return events.flatMap((e) => (e.kind === 'course' ? [e.value] : []));
}
function race(events: PublishableEvent[], courseId: string, off: string): { card: RaceCard; result: RaceResult } {
  const id = raceIdOf(courseId, off);
  const card = cards(events).find((c) => c.raceId === id);
  const result = results(events).find((r) => r.raceId === id);
  if (!card || !result) throw new Error(`no race ${courseId} ${off}`);
  return { card, result };
}

describe('importer on hand-made fixtures', () => {
  let events: PublishableEvent[];
  let report: ImportReport;
  beforeAll(async () => {
    ({ events, report } = await importResultsCsv([fx('basic')]));
  });

  it('reports every row: kept, duplicate or rejected (with file, line and reason)', () => {
    expect(report).toMatchObject({
      files: 1,
      rows: 34,
      races: 7,
      runners: 29,
      duplicateRowsDropped: 1,
      rejectedRows: 4,
    });
    expect(report.rows).toBe(report.runners + report.duplicateRowsDropped + report.rejectedRows);
    expect(report.rejectedByReason).toEqual({
      'bad-distance': 1,
      'bad-off': 1,
      'bad-weight': 1,
      'missing-horse-id': 1,
    });
    expect(report.issues.map((i) => [i.file, i.line, i.reason])).toEqual([
      [fx('basic'), 6, 'missing-horse-id'],
      [fx('basic'), 30, 'bad-weight'],
      [fx('basic'), 34, 'bad-off'],
      [fx('basic'), 35, 'bad-distance'],
    ]);
    expect(report.issues[1]!.detail).toContain('WeightInPounds');
  });

  it('emits one card and one result per race, one course per CourseId, in feed order, all valid', () => {
    expect(cards(events)).toHaveLength(7);
    expect(results(events)).toHaveLength(7);
    expect(courses(events)).toHaveLength(5);
    for (let i = 1; i < events.length; i++) expect(compareEvents(events[i - 1]!, events[i]!)).toBeLessThan(0);
    for (const e of events) {
      const errors =
        e.kind === 'card'
          ? validateCard(e.value)
          : e.kind === 'result'
            ? validateResult(e.value)
            : validateCourse(e.value);
      expect(errors).toEqual([]);
      if (e.kind !== 'course') expect(e.publishedAt).toBe(e.value.publishedAt);
    }
  });

  it('keys a race by (CourseId, Off) and publishes the card 24 h before and the result 15 min after the off', () => {
    const { card, result } = race(events, '9001', '11/01/2021 12:25:00');
    expect(card.raceId).toBe(raceIdOf('9001', '11/01/2021 12:25:00'));
    expect(card.offTime).toBe(utc('2021-11-01T12:25:00Z'));
    expect(card.publishedAt).toBe(card.offTime - 24 * HOUR);
    expect(result.publishedAt).toBe(card.offTime + RESULT_DELAY_MS);
    expect(card).toMatchObject({
      version: 1,
      meetingDate: '2021-11-01',
      courseId: makeId('course', 'lsr:course:9001'),
      courseName: 'Testbury',
      country: 'GB',
      raceName: 'Smith & Sons "Hands And Heels" Novices\' Hurdle, Div I',
      discipline: 'hurdle',
      surface: 'turf',
      distanceYards: 4290,
      going: 'Good',
      raceClass: 4,
    });
  });

  it('drops the duplicate runner row (keeping the first) and rejects only the bad row of a race', () => {
    const { card } = race(events, '9001', '11/01/2021 12:25:00');
    expect(card.runners.map((r) => r.horseId)).toEqual(['1001', '1003', '1002', '1005', '1006'].map(horse));
    const first = card.runners[0]!;
    expect(first).toEqual({
      horseId: horse('1001'),
      horseName: 'Alpha Star',
      age: 6,
      sireId: null,
      sireName: null,
      jockeyId: makeId('jockey', 'lsr:jockey:2001'),
      jockeyName: 'Jo Rider', // the duplicate said "Mr Jo Rider"
      trainerId: makeId('trainer', 'lsr:trainer:3001'),
      trainerName: 'Smith & Jones',
      saddleCloth: 1,
      draw: 0,
      weightLbs: 155,
      officialRating: 120,
      nonRunner: false,
      // the 40-column layout: no sex column, no claims, owners or pedigree; HeadGear blank = none
      sex: '',
      headgear: '',
      jockeyClaimLbs: 0,
      ownerId: '',
      ownerName: '',
      damId: '',
      damName: '',
      damSireId: '',
      damSireName: '',
    });
    expect(card.runners.find((r) => r.horseId === horse('1002'))!.officialRating).toBe(0); // blank OR
  });

  it('results: finishing order, pulled-up/fell at position 0, cumulative beaten lengths, SP, favourite, winning time', () => {
    const { result } = race(events, '9001', '11/01/2021 12:25:00');
    expect(result.winningTimeSeconds).toBe(288.7);
    expect(result.runners).toEqual([
      {
        horseId: horse('1001'),
        position: 1,
        status: 'finished',
        beatenLengths: 0,
        startingPrice: 1.5333333333333332,
        favourite: true,
      },
      { horseId: horse('1002'), position: 2, status: 'finished', beatenLengths: 5, startingPrice: 9, favourite: false },
      {
        horseId: horse('1003'),
        position: 3,
        status: 'finished',
        beatenLengths: 5.75,
        startingPrice: 3.25,
        favourite: false,
      },
      {
        horseId: horse('1005'),
        position: 0,
        status: 'pulled-up',
        beatenLengths: 0,
        startingPrice: 12,
        favourite: false,
      },
      { horseId: horse('1006'), position: 0, status: 'fell', beatenLengths: 0, startingPrice: 51, favourite: false },
    ]);
  });

  it('a chase with unseated, brought-down and an unlisted status (kebab-cased)', () => {
    const { card, result } = race(events, '9001', '11/01/2021 12:55:00');
    expect(card.discipline).toBe('chase');
    expect(card.raceClass).toBe(3);
    expect(result.runners.map((r) => r.status)).toEqual(['finished', 'unseated', 'brought-down', 'left-at-start']);
  });

  it('RaceType Flat is a bumper (nh-flat); Evs is not a favourite, EvensF is', () => {
    const { card, result } = race(events, '9001', '11/01/2021 15:25:00');
    expect(card.discipline).toBe('nh-flat');
    expect(result.runners.map((r) => r.favourite)).toEqual([false, true]);
  });

  it('an Irish INH flat race typed Hurdle is nh-flat; blank class is 0; co-favourites (C) both flagged', () => {
    const { card, result } = race(events, '9003', '11/03/2021 14:10:00');
    expect(card).toMatchObject({
      discipline: 'nh-flat',
      country: 'IRE',
      raceClass: 0,
      going: 'Yielding',
      surface: 'turf',
    });
    expect(result.runners.map((r) => r.favourite)).toEqual([true, true, false]);
  });

  it('an AW flat race with stalls: draws, a dead heat for first, a position above 9, a disqualification', () => {
    const { card, result } = race(events, '9002', '11/03/2021 17:00:00');
    expect(card).toMatchObject({
      discipline: 'flat',
      surface: 'aw',
      country: 'IRE',
      courseName: 'Testdalk (AW) (IRE)',
    });
    expect(card.runners.map((r) => r.draw)).toEqual([8, 4, 1, 10, 5, 3, 7, 6, 9, 11, 2]);
    expect(result.runners.map((r) => r.position)).toEqual([1, 1, 3, 4, 5, 6, 7, 8, 9, 10, 0]);
    expect(result.runners.slice(0, 2).map((r) => [r.horseId, r.beatenLengths, r.favourite])).toEqual([
      [horse('1401'), 0, true],
      [horse('1402'), 0, true],
    ]);
    expect(result.runners[9]).toMatchObject({ horseId: horse('1410'), position: 10, beatenLengths: 8.25 });
    expect(result.runners[10]).toMatchObject({
      horseId: horse('1411'),
      position: 0,
      status: 'disqualified',
      beatenLengths: 0,
    });
    expect(result.winningTimeSeconds).toBe(71.25);
  });

  it('foreign dirt and GB Arabian races: surface, country, blank going and SP', () => {
    const dirt = race(events, '9004', '11/06/2021 21:08:00');
    expect(dirt.card).toMatchObject({ surface: 'aw', country: 'USA', going: 'Fast' });
    expect(dirt.card.runners).toHaveLength(2); // the bad-weight row is rejected, the race kept
    const arab = race(events, '9005', '11/06/2021 17:40:00');
    expect(arab.card).toMatchObject({ surface: 'aw', country: 'GB-ARAB', going: '', raceClass: 5 });
    expect(arab.result.runners.map((r) => [r.startingPrice, r.favourite])).toEqual([
      [null, false],
      [1.6666666666666667, true],
    ]);
  });

  it('course records: country, region, variant, surfaces and disciplines seen, published 1 ms before the first card', () => {
    const byName = new Map(courses(events).map((c) => [c.name, c]));
    expect(byName.get('Testbury')).toEqual({
      courseId: makeId('course', 'lsr:course:9001'),
      publishedAt: utc('2021-10-31T12:25:00Z') - 1,
      name: 'Testbury',
      country: 'GB',
      region: 'GB',
      trackVariant: null,
      siblingCourseIds: [],
      operator: '',
      surfaceKind: 'turf',
      direction: 'unknown',
      shape: '',
      circuitLengthYards: null,
      straightLengthYards: null,
      startPositions: [],
      disciplines: ['hurdle', 'chase', 'nh-flat'],
      surfaceHistory: [{ from: '2021-11-01', surface: 'turf', description: expect.stringContaining('2021-11-01') }],
      topology: null,
    });
    expect(byName.get('Testdalk (AW) (IRE)')).toMatchObject({
      country: 'IRE',
      region: 'IRE',
      trackVariant: 'AW',
      surfaceKind: 'aw',
    });
    expect(byName.get('Test Park (USA)')).toMatchObject({
      country: 'USA',
      region: 'INT',
      surfaceKind: 'aw',
      disciplines: ['flat'],
    });
    expect(byName.get('Testwell (AW) (GB) (ARAB)')).toMatchObject({
      country: 'GB-ARAB',
      region: 'GB',
      trackVariant: 'AW',
    });
    const firstCard = events.find(
      (e) => e.kind === 'card' && e.value.courseId === makeId('course', 'lsr:course:9001'),
    )!;
    const course = events.find((e) => e.kind === 'course' && e.value.name === 'Testbury')!;
    expect(course.publishedAt).toBe(firstCard.publishedAt - 1);
  });
});

describe('importer: determinism and robustness', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'lsr-import-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const fingerprints = (es: PublishableEvent[]) => es.map(eventFingerprint);

  it('gives byte-identical events on every run, whatever the path order', async () => {
    const a = await importResultsCsv([fx('basic'), fx('clock'), fx('layout-2026')]);
    const b = await importResultsCsv([fx('layout-2026'), fx('basic'), fx('clock')]);
    expect(JSON.stringify(b.events)).toBe(JSON.stringify(a.events));
    expect(fingerprints(b.events)).toEqual(fingerprints(a.events));
  });

  it('a file imported twice in one run adds only duplicates', async () => {
    const once = await importResultsCsv([fx('basic')]);
    const twice = await importResultsCsv([fx('basic'), fx('basic')]);
    expect(JSON.stringify(twice.events)).toBe(JSON.stringify(once.events));
    // the second copy: its kept rows and its own duplicate are duplicates; its bad rows are rejected again
    expect(twice.report.duplicateRowsDropped).toBe(2 * once.report.duplicateRowsDropped + once.report.runners);
    expect(twice.report.rejectedRows).toBe(2 * once.report.rejectedRows);
  });

  it('CRLF line endings and a byte-order mark change nothing', async () => {
    const crlf = join(dir, 'Results_basic.csv');
    writeFileSync(crlf, '\uFEFF' + readFileSync(fx('basic'), 'utf8').replace(/\n/g, '\r\n'));
    const a = await importResultsCsv([fx('basic')]);
    const b = await importResultsCsv([crlf]);
    expect(fingerprints(b.events)).toEqual(fingerprints(a.events));
    expect(b.report.issues.map((i) => i.line)).toEqual(a.report.issues.map((i) => i.line));
  });

  it('eventFingerprint is a SHA-256 of the canonical event: key order does not matter, any value does', async () => {
    const { events } = await importResultsCsv([fx('basic')]);
    const e = events.find((x): x is Extract<PublishableEvent, { kind: 'card' }> => x.kind === 'card')!;
    const fp = eventFingerprint(e);
    expect(fp).toMatch(/^[0-9a-f]{64}$/);
    const reordered = JSON.parse(JSON.stringify({ value: e.value, publishedAt: e.publishedAt, kind: e.kind }));
    expect(eventFingerprint(reordered)).toBe(fp);
    const changed = structuredClone(e);
    changed.value.runners[0]!.draw += 1;
    expect(eventFingerprint(changed)).not.toBe(fp);
  });

  it('reports progress up to the total size', async () => {
    const calls: [number, number][] = [];
    await importResultsCsv([fx('basic'), fx('clock')], { onProgress: (d, t) => calls.push([d, t]) });
    const total = statSync(fx('basic')).size + statSync(fx('clock')).size;
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.at(-1)).toEqual([total, total]);
  });

  it('a file without the required columns: every data row rejected and reported, other files still imported', async () => {
    const bad = join(dir, 'Results_nocols.csv');
    writeFileSync(bad, 'RaceId,HorseId\n1,2\n3,4\n');
    const { report } = await importResultsCsv([bad, fx('clock')]);
    expect(report.rejectedByReason).toEqual({ 'missing-columns': 2 });
    expect(report.issues.map((i) => [i.file, i.line])).toEqual([
      [bad, 2],
      [bad, 3],
    ]);
    expect(report.races).toBe(11);
  });

  it('a row with the wrong number of fields or an unterminated quote is rejected by line', async () => {
    const path = join(dir, 'Results_ragged.csv');
    const text = readFileSync(fx('clock'), 'utf8').split('\n');
    text.pop(); // the final newline
    text[2] = text[2]!.split(',').slice(0, 30).join(',');
    text.push('910099,"never closed');
    writeFileSync(path, text.join('\n'));
    const { report } = await importResultsCsv([path]);
    expect(report.issues.map((i) => [i.line, i.reason])).toEqual([
      [3, 'column-count'],
      [13, 'csv-syntax'],
    ]);
  });

  it('a race whose card would fail validation is rejected row by row (here: 50 yards)', async () => {
    const path = join(dir, 'Results_short.csv');
    const text = readFileSync(fx('clock'), 'utf8').split('\n');
    text[1] = text[1]!.replace(',1609,1760,', ',1609,50,');
    writeFileSync(path, text.join('\n'));
    const { report } = await importResultsCsv([path]);
    expect(report.issues).toEqual([
      { file: path, line: 2, reason: 'invalid-card', detail: 'distanceYards out of range' },
    ]);
    expect(report.races).toBe(10);
  });

  it('copies of the same rows under another file name are duplicates, not new races', async () => {
    const copy = join(dir, 'Results_clock-copy.csv');
    copyFileSync(fx('clock'), copy);
    const { report } = await importResultsCsv([fx('clock'), copy]);
    expect(report.races).toBe(11);
    expect(report.duplicateRowsDropped).toBe(11);
  });
});

describe('importer: clock changes and the morning-off option', () => {
  it('converts offs across both clock changes; meetingDate is the UK date', async () => {
    const { events } = await importResultsCsv([fx('clock')]);
    const off = (o: string) => race(events, '9001', o).card;
    expect(off('03/26/2022 14:00:00').offTime).toBe(utc('2022-03-26T14:00:00Z'));
    expect(off('03/27/2022 14:00:00').offTime).toBe(utc('2022-03-27T13:00:00Z'));
    expect(off('03/27/2022 01:30:00').offTime).toBe(utc('2022-03-27T01:30:00Z'));
    expect(off('10/30/2021 14:00:00').offTime).toBe(utc('2021-10-30T13:00:00Z'));
    expect(off('10/31/2021 14:00:00').offTime).toBe(utc('2021-10-31T14:00:00Z'));
    const early = off('10/31/2021 01:30:00');
    expect(early.offTime).toBe(utc('2021-10-31T00:30:00Z'));
    expect(early.meetingDate).toBe('2021-10-31');
    expect(early.publishedAt).toBe(utc('2021-10-30T00:30:00Z')); // exactly 24 h, not "same clock time yesterday"
    expect(off('03/28/2026 14:00:00').offTime).toBe(utc('2026-03-28T14:00:00Z'));
    expect(off('03/29/2026 14:00:00').offTime).toBe(utc('2026-03-29T13:00:00Z'));
    expect(off('12/04/2021 23:15:00').offTime).toBe(utc('2021-12-04T23:15:00Z')); // as written by default
  });

  it('fixGbIreMorningOffs reads GB/IRE 22:00-23:59 as morning; foreign offs and race ids unchanged', async () => {
    const plain = await importResultsCsv([fx('clock')]);
    const fixed = await importResultsCsv([fx('clock')], { fixGbIreMorningOffs: true });
    expect(race(fixed.events, '9001', '12/04/2021 23:15:00').card.offTime).toBe(utc('2021-12-04T11:15:00Z'));
    expect(race(fixed.events, '9002', '12/04/2021 22:30:00').card.offTime).toBe(utc('2021-12-04T10:30:00Z'));
    expect(race(fixed.events, '9004', '12/04/2021 23:15:00').card.offTime).toBe(utc('2021-12-04T23:15:00Z'));
    expect(race(fixed.events, '9001', '12/04/2021 23:15:00').card.meetingDate).toBe('2021-12-04');
    expect(new Set(cards(fixed.events).map((c) => c.raceId))).toEqual(
      new Set(cards(plain.events).map((c) => c.raceId)),
    );
  });
});

describe('importer: discipline of flat-race titles typed Hurdle', () => {
  const offs = ['13:00', '13:30', '14:00', '14:30', '15:00', '15:30'].map((t) => `01/10/2022 ${t}:00`);
  it("by default only the brief's regex (INH Flat | National Hunt Flat | Bumper) makes nh-flat", async () => {
    const { events } = await importResultsCsv([fx('flat-race-titles')]);
    expect(offs.map((o) => race(events, '9001', o).card.discipline)).toEqual([
      'hurdle',
      'hurdle',
      'hurdle',
      'hurdle',
      'nh-flat',
      'hurdle',
    ]);
  });
  it('extendedFlatRaceRule: "NH Flat Race"/"Flat Race" titles are nh-flat, or flat when run from stalls', async () => {
    const { events } = await importResultsCsv([fx('flat-race-titles')], { extendedFlatRaceRule: true });
    expect(offs.map((o) => race(events, '9001', o).card.discipline)).toEqual([
      'nh-flat',
      'nh-flat',
      'flat',
      'hurdle',
      'nh-flat',
      'hurdle',
    ]);
  });
});

describe('importer: 2026-06..08 layout (sires, card ratings, " right" names)', () => {
  it('strips " right", keys sires by SireName + SireCountry, leaves blanks unknown', async () => {
    const { events, report } = await importResultsCsv([fx('layout-2026')]);
    expect(report.rejectedRows).toBe(0);
    const { card } = race(events, '9001', '07/01/2026 17:58:00');
    expect(card.offTime).toBe(utc('2026-07-01T16:58:00Z'));
    const byHorse = new Map(card.runners.map((r) => [r.horseName, r]));
    expect([...byHorse.keys()].sort()).toEqual(['Foreign Sire', 'No Sire Known', 'Reality Queen', 'Royal Right']);
    expect(byHorse.get('Reality Queen')).toMatchObject({
      jockeyName: 'Alistair Rider',
      trainerName: 'Michael Trainer',
    });
    expect(byHorse.get('Royal Right')).toMatchObject({ jockeyName: 'Aye Right', trainerName: 'Smith & Jones' });
    const testSireIre = makeId('sire', 'lsr:sire:Test Sire:IRE');
    expect(byHorse.get('Reality Queen')).toMatchObject({ sireId: testSireIre, sireName: 'Test Sire (IRE)' });
    expect(byHorse.get('Royal Right')!.sireId).toBe(testSireIre);
    expect(byHorse.get('Foreign Sire')).toMatchObject({
      sireId: makeId('sire', 'lsr:sire:Test Sire:FR'),
      sireName: 'Test Sire (FR)',
    });
    expect(byHorse.get('No Sire Known')).toMatchObject({ sireId: null, sireName: null });
  });

  it('officialRating: OfficialRating by default, CardOfficialRating where present with the option', async () => {
    const ratings = async (opt?: 'card-when-present') => {
      const { events } = await importResultsCsv([fx('layout-2026')], opt ? { officialRating: opt } : {});
      const { card } = race(events, '9001', '07/01/2026 17:58:00');
      return Object.fromEntries(card.runners.map((r) => [r.horseName, r.officialRating]));
    };
    expect(await ratings()).toEqual({ 'Reality Queen': 57, 'Royal Right': 62, 'No Sire Known': 55, 'Foreign Sire': 0 });
    expect(await ratings('card-when-present')).toEqual({
      'Reality Queen': 57,
      'Royal Right': 60,
      'No Sire Known': 55,
      'Foreign Sire': 50,
    });
  });
});
