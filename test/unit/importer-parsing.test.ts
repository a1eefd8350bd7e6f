/** The importer's building blocks: CSV reader, UK time conversion, field rules. */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { forEachCsvRecord, parseCsvRecord, parseCsvText } from '../../domain/importer/csv.js';
import {
  cleanPersonOrHorseName,
  courseIdentity,
  decodeHtmlEntities,
  isFavourite,
  lowerKebab,
  statusOf,
} from '../../domain/importer/mapping.js';
import { isBst, lastSundayOfMonth, parseUkOff, ukLocalToUtc } from '../../domain/importer/uk-time.js';

const HOUR = 3_600_000;
const utc = (iso: string) => Date.parse(iso);

describe('CSV parser (RFC 4180)', () => {
  it('splits plain fields, keeping empty ones, including a trailing empty field', () => {
    expect(parseCsvRecord('a,b,,d,')).toEqual(['a', 'b', '', 'd', '']);
    expect(parseCsvRecord('')).toEqual(['']);
  });

  it('reads quoted fields with commas and doubled quotes', () => {
    expect(parseCsvRecord('1,"Smith, Jones","say ""hi""",""')).toEqual(['1', 'Smith, Jones', 'say "hi"', '']);
    expect(parseCsvRecord('"a",b,"c,"')).toEqual(['a', 'b', 'c,']);
    expect(parseCsvRecord('x,"",y')).toEqual(['x', '', 'y']);
  });

  it('is lenient outside the RFC: a bare quote in an unquoted field is kept, text after a closing quote is appended', () => {
    expect(parseCsvRecord('5\'2",b')).toEqual(['5\'2"', 'b']);
    expect(parseCsvRecord('"ab"cd,e')).toEqual(['abcd', 'e']);
  });

  it('returns null while a quoted field is open, and joins lines for embedded newlines', () => {
    expect(parseCsvRecord('1,"open')).toBeNull();
    const recs = parseCsvText('h1,h2\r\n1,"two\r\nlines"\r\n3,"x ""q"""\r\n\r\n4,end\n');
    expect(recs).toEqual([
      { line: 1, fields: ['h1', 'h2'] },
      { line: 2, fields: ['1', 'two\nlines'] },
      { line: 4, fields: ['3', 'x "q"'] },
      { line: 6, fields: ['4', 'end'] },
    ]);
  });

  it('skips a byte-order mark and reports an unterminated quote at end of input', () => {
    expect(parseCsvText('\uFEFFa,b\n1,"never closed\n2,3')).toEqual([
      { line: 1, fields: ['a', 'b'] },
      { line: 2, error: 'unterminated quoted field at end of file' },
    ]);
  });

  it('streams a file across chunk boundaries (multi-byte characters, CRLF, embedded newline, no final newline)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lsr-csv-'));
    try {
      const row = (i: number) => `${i},"2m3½f, £3,454","a ""b"""`;
      const lines = ['id,dist,q'];
      for (let i = 0; i < 60_000; i++) lines.push(row(i)); // > 2 MiB: several 1 MiB chunks
      lines.push('60000,"multi\r\nline",z');
      const path = join(dir, 'big.csv');
      writeFileSync(path, '\uFEFF' + lines.join('\r\n'));
      const got: { line: number; fields?: string[] }[] = [];
      let bytes = 0;
      await forEachCsvRecord(
        path,
        (r) => got.push(r),
        (n) => {
          bytes += n;
        },
      );
      expect(bytes).toBe(statSync(path).size);
      expect(got.length).toBe(60_002);
      expect(got[0]).toEqual({ line: 1, fields: ['id', 'dist', 'q'] });
      for (let i = 0; i < 60_000; i++) {
        const r = got[i + 1]!;
        if (
          r.line !== i + 2 ||
          r.fields?.[1] !== '2m3½f, £3,454' ||
          r.fields[2] !== 'a "b"' ||
          r.fields[0] !== String(i)
        ) {
          throw new Error(`record ${i} wrong: ${JSON.stringify(r)}`);
        }
      }
      expect(got[60_001]).toEqual({ line: 60_002, fields: ['60000', 'multi\nline', 'z'] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('UK local time -> UTC', () => {
  it('finds the last Sunday of March and October', () => {
    expect(lastSundayOfMonth(2022, 3)).toBe(27);
    expect(lastSundayOfMonth(2021, 10)).toBe(31);
    expect(lastSundayOfMonth(2026, 3)).toBe(29);
    expect(lastSundayOfMonth(2026, 10)).toBe(25);
  });

  it('2022-03-27: GMT until 01:00 UTC, BST after; the skipped hour reads as GMT', () => {
    expect(ukLocalToUtc(2022, 3, 26, 14, 0)).toBe(utc('2022-03-26T14:00:00Z'));
    expect(ukLocalToUtc(2022, 3, 27, 0, 59)).toBe(utc('2022-03-27T00:59:00Z'));
    expect(ukLocalToUtc(2022, 3, 27, 1, 30)).toBe(utc('2022-03-27T01:30:00Z')); // does not exist locally
    expect(ukLocalToUtc(2022, 3, 27, 2, 0)).toBe(utc('2022-03-27T01:00:00Z'));
    expect(ukLocalToUtc(2022, 3, 27, 14, 0)).toBe(utc('2022-03-27T13:00:00Z'));
  });

  it('2021-10-31: BST until 01:00 UTC, GMT after; the repeated hour takes its first (BST) occurrence', () => {
    expect(ukLocalToUtc(2021, 10, 30, 14, 0)).toBe(utc('2021-10-30T13:00:00Z'));
    expect(ukLocalToUtc(2021, 10, 31, 0, 30)).toBe(utc('2021-10-30T23:30:00Z'));
    expect(ukLocalToUtc(2021, 10, 31, 1, 30)).toBe(utc('2021-10-31T00:30:00Z'));
    expect(ukLocalToUtc(2021, 10, 31, 2, 0)).toBe(utc('2021-10-31T02:00:00Z'));
    expect(ukLocalToUtc(2021, 10, 31, 14, 0)).toBe(utc('2021-10-31T14:00:00Z'));
    expect(ukLocalToUtc(2021, 11, 1, 12, 25)).toBe(utc('2021-11-01T12:25:00Z'));
  });

  it('2026-03-29: the change at 01:00 UTC', () => {
    expect(ukLocalToUtc(2026, 3, 28, 23, 59)).toBe(utc('2026-03-28T23:59:00Z'));
    expect(ukLocalToUtc(2026, 3, 29, 0, 30)).toBe(utc('2026-03-29T00:30:00Z'));
    expect(ukLocalToUtc(2026, 3, 29, 2, 30)).toBe(utc('2026-03-29T01:30:00Z'));
    expect(ukLocalToUtc(2026, 3, 29, 14, 0)).toBe(utc('2026-03-29T13:00:00Z'));
    expect(ukLocalToUtc(2026, 7, 1, 17, 58)).toBe(utc('2026-07-01T16:58:00Z'));
  });

  it('round-trips every quarter hour across both changes (except the second of the repeated hour)', () => {
    for (const [from, to] of [
      ['2021-10-30T00:00:00Z', '2021-11-01T00:00:00Z'],
      ['2022-03-26T00:00:00Z', '2022-03-28T00:00:00Z'],
      ['2026-03-28T00:00:00Z', '2026-03-30T00:00:00Z'],
    ] as const) {
      for (let t = utc(from); t < utc(to); t += 15 * 60_000) {
        const local = new Date(t + (isBst(t) ? HOUR : 0));
        const back = ukLocalToUtc(
          local.getUTCFullYear(),
          local.getUTCMonth() + 1,
          local.getUTCDate(),
          local.getUTCHours(),
          local.getUTCMinutes(),
        );
        const secondOfRepeated = !isBst(t) && isBst(t - HOUR);
        expect(back).toBe(secondOfRepeated ? t - HOUR : t);
      }
    }
  });

  it("parses the files' MM/dd/yyyy HH:mm:ss and rejects anything else", () => {
    expect(parseUkOff('11/01/2021 12:25:00')).toMatchObject({ localDate: '2021-11-01', hour: 12, minute: 25 });
    for (const bad of [
      '13/45/2021 25:00:00',
      '02/30/2022 12:00:00',
      '2021-11-01 12:25:00',
      '',
      '11/01/2021 24:00:00',
    ]) {
      expect(parseUkOff(bad)).toBeUndefined();
    }
  });
});

describe('field rules', () => {
  it('country, region and track variant from the course-name suffix', () => {
    expect(courseIdentity('Hereford')).toEqual({ country: 'GB', region: 'GB', trackVariant: null });
    expect(courseIdentity('Kempton (AW)')).toEqual({ country: 'GB', region: 'GB', trackVariant: 'AW' });
    expect(courseIdentity('Newmarket (July)')).toEqual({ country: 'GB', region: 'GB', trackVariant: 'July' });
    expect(courseIdentity('Cork (IRE)')).toEqual({ country: 'IRE', region: 'IRE', trackVariant: null });
    expect(courseIdentity('Dundalk (AW) (IRE)')).toEqual({ country: 'IRE', region: 'IRE', trackVariant: 'AW' });
    expect(courseIdentity('Kempton (AW) (GB) (ARAB)')).toEqual({
      country: 'GB-ARAB',
      region: 'GB',
      trackVariant: 'AW',
    });
    expect(courseIdentity('Meydan (UAE) (ARAB)')).toEqual({ country: 'UAE-ARAB', region: 'INT', trackVariant: null });
    expect(courseIdentity('Chantilly (FR)').country).toBe('FR');
    expect(courseIdentity('Ascot (Perth) (AUS)')).toEqual({ country: 'AUS', region: 'INT', trackVariant: null });
  });

  it('result status table, with lower-kebab for anything else', () => {
    const table: [string, string][] = [
      ['CompletedRace', 'finished'],
      ['PulledUp', 'pulled-up'],
      ['Fell', 'fell'],
      ['UnseatedRider', 'unseated'],
      ['BroughtDown', 'brought-down'],
      ['RefusedToRace', 'refused'],
      ['Refused', 'refused'],
      ['RanOut', 'ran-out'],
      ['SlippedUp', 'slipped-up'],
      ['CarriedOut', 'carried-out'],
      ['Disqualified', 'disqualified'],
      ['LeftAtStart', 'left-at-start'],
      ['Void Race', 'void-race'],
    ];
    for (const [from, to] of table) expect(statusOf(from)).toBe(to);
    expect(lowerKebab('HTMLParserError')).toBe('html-parser-error');
  });

  it('favourite markers F, J and C (the files also write EvensF / EvsJ)', () => {
    for (const yes of ['8/15F', '2/1J', '3/1C', 'EvensF', 'EvsJ', ' 6/4F ']) expect(isFavourite(yes), yes).toBe(true);
    for (const no of ['8/1', 'Evs', '', '100/1']) expect(isFavourite(no), no).toBe(false);
  });

  it('names: HTML entities decoded, the lower-case " right" artifact stripped once, real "Right" names kept', () => {
    expect(decodeHtmlEntities('A &amp; B &#39;x&#x27; &lt;&gt; &quot;q&quot; &bogus;')).toBe(
      'A & B \'x\' <> "q" &bogus;',
    );
    expect(cleanPersonOrHorseName('Port Noir right')).toBe('Port Noir');
    expect(cleanPersonOrHorseName('Royal Right right')).toBe('Royal Right');
    expect(cleanPersonOrHorseName('Aye Right')).toBe('Aye Right');
    expect(cleanPersonOrHorseName('Smith &amp; Jones right')).toBe('Smith & Jones');
    expect(cleanPersonOrHorseName('Wainwright')).toBe('Wainwright');
  });
});
