import { describe, expect, it } from 'vitest';
import { DISCIPLINES, SURFACES } from '../../domain/codes.js';
import {
  COURSES,
  courseByCode,
  courseDisciplines,
  courseRecord,
  courseRecords,
  courseStaging,
} from '../../domain/courses.js';
import { Rng } from '../../domain/generator/prng.js';
import { meetingsOn } from '../../domain/generator/schedule.js';
import {
  intlOffsetMinutes,
  localToUtc,
  ukOffsetMinutes,
  ukSummerTimeBounds,
  ZoneClock,
} from '../../domain/generator/zones.js';
import { isId } from '../../domain/ids.js';
import { MS_PER_DAY, parseDate } from '../../domain/time.js';

const day = (date: string) => parseDate(date)! / MS_PER_DAY;

describe('course table', () => {
  it('covers the current British and Irish courses and a few international ones', () => {
    const current = (region: string) =>
      new Set(
        COURSES.filter((c) => c.region === region && c.open.some(([, to]) => to === null)).map((c) =>
          c.name.replace(/ \((AW|July)\)$/, ''),
        ),
      );
    expect(current('GB').size).toBe(59);
    expect(current('IRE').size).toBe(26);
    for (const name of ['Longchamp', 'Meydan', 'Belmont Park', 'Flemington', 'Sha Tin']) {
      expect(COURSES.some((c) => c.name === name && c.region === 'INT')).toBe(true);
    }
    expect(new Set(COURSES.map((c) => c.code)).size).toBe(COURSES.length);
    expect(new Set(COURSES.map((c) => c.name)).size).toBe(COURSES.length);
  });

  it('has the publicly known directions, AW variants and draw biases', () => {
    const dir = (code: string) => courseByCode(code)!.direction;
    expect(dir('ascot')).toBe('right');
    expect(dir('aintree')).toBe('left');
    expect(dir('windsor')).toBe('figure-of-eight');
    expect(dir('epsom')).toBe('left');
    expect(dir('chester')).toBe('left');
    expect(dir('kempton')).toBe('right');
    expect(dir('cheltenham')).toBe('left');
    for (const code of [
      'kempton-aw',
      'lingfield-aw',
      'wolverhampton-aw',
      'southwell-aw',
      'newcastle-aw',
      'chelmsford-city-aw',
      'dundalk-aw',
    ]) {
      const c = courseByCode(code)!;
      expect(c.trackVariant).toBe('AW');
      expect(c.surfaceHistory.every((p) => p.surface === 'aw')).toBe(true);
      expect(courseStaging(c)).toBe('flat');
    }
    expect(courseByCode('chester')!.drawBias).toBeGreaterThan(0.3);
    expect(courseByCode('beverley')!.drawBias).toBeGreaterThan(0.3);
    const nearZero = COURSES.filter((c) => Math.abs(c.drawBias) < 0.1).length;
    expect(nearZero / COURSES.length).toBeGreaterThan(0.75);
    expect(courseStaging(courseByCode('cheltenham')!)).toBe('jumps');
    expect(courseStaging(courseByCode('york')!)).toBe('flat');
    expect(courseStaging(courseByCode('haydock')!)).toBe('mixed');
  });

  it('produces Course events with stable ids and dated surface history', () => {
    const records = courseRecords();
    expect(records).toHaveLength(COURSES.length);
    expect(new Set(records.map((r) => r.courseId)).size).toBe(records.length);
    for (const r of records) {
      expect(isId('course', r.courseId)).toBe(true);
      expect(r.topology).toBeNull();
      expect(['GB', 'IRE', 'INT']).toContain(r.region);
      expect(['turf', 'aw', 'mixed']).toContain(r.surfaceKind);
      for (const d of r.disciplines) expect(DISCIPLINES).toContain(d);
      for (const p of r.surfaceHistory) {
        expect(SURFACES).toContain(p.surface);
        expect(parseDate(p.from)).toBeDefined();
      }
    }
    const southwell = records.find((r) => r.name === 'Southwell (AW)')!;
    expect(southwell.surfaceHistory.map((p) => [p.from.slice(0, 7), p.description])).toEqual([
      ['1989-11', 'Fibresand'],
      ['2021-12', 'Tapeta'],
    ]);
    expect(records.find((r) => r.name === 'Newcastle (AW)')!.surfaceHistory[0]!.from.slice(0, 4)).toBe('2016');
    expect(records.find((r) => r.name === 'Chelmsford City (AW)')!.surfaceHistory[0]!.from.slice(0, 4)).toBe('2015');
    // As known before Southwell's relay, the record has no Tapeta line yet.
    expect(courseRecord(courseByCode('southwell-aw')!, '2021-06-01').surfaceHistory).toHaveLength(1);
    expect(courseDisciplines(courseByCode('auteuil')!)).toEqual(['hurdle', 'chase']);
  });

  it('stages racing only while a course is open', () => {
    const rng = new Rng(5);
    const codes = new Set<string>();
    for (let d = day('2014-01-01'); d < day('2014-12-31'); d++)
      for (const m of meetingsOn(rng, d, 1)) codes.add(m.course.code);
    expect(codes.has('chelmsford-city-aw')).toBe(false);
    expect(codes.has('newcastle-aw')).toBe(false);
    expect(codes.has('hereford')).toBe(false); // closed 2012-2016
    expect(codes.has('kempton-aw')).toBe(true);
    const christmas = meetingsOn(new Rng(5), day('2019-12-25'), 1).filter((m) => m.course.region !== 'INT');
    expect(christmas).toHaveLength(0);
    expect(meetingsOn(new Rng(5), day('2019-12-26'), 1).length).toBeGreaterThanOrEqual(5);
  });
});

describe('time zones', () => {
  it('follows the GB-Eire summer-time rule, checked against the tz database, 1988-2030', () => {
    const mismatches: string[] = [];
    for (let d = day('1988-01-01'); d <= day('2030-12-31'); d++) {
      for (const hour of [0, 2, 12]) {
        const t = d * MS_PER_DAY + hour * 3_600_000;
        const uk = ukOffsetMinutes(t);
        if (uk !== intlOffsetMinutes('Europe/London', t) || uk !== intlOffsetMinutes('Europe/Dublin', t))
          mismatches.push(new Date(t).toISOString());
      }
    }
    expect(mismatches).toEqual([]);
    expect(new Date(ukSummerTimeBounds(2024).start).toISOString()).toBe('2024-03-31T01:00:00.000Z');
    expect(new Date(ukSummerTimeBounds(2024).end).toISOString()).toBe('2024-10-27T01:00:00.000Z');
    expect(new Date(ukSummerTimeBounds(1988).end).toISOString()).toBe('1988-10-23T01:00:00.000Z');
  });

  it('turns a 14:00 London off into 13:00Z in July and 14:00Z in January', () => {
    expect(new Date(localToUtc('Europe/London', day('2024-07-13'), 14 * 60)).toISOString()).toBe(
      '2024-07-13T13:00:00.000Z',
    );
    expect(new Date(localToUtc('Europe/London', day('2024-01-13'), 14 * 60)).toISOString()).toBe(
      '2024-01-13T14:00:00.000Z',
    );
    const clock = new ZoneClock();
    expect(new Date(clock.toUtc('Europe/London', day('2024-03-31'), 14 * 60)).toISOString()).toBe(
      '2024-03-31T13:00:00.000Z',
    );
    expect(new Date(clock.toUtc('Europe/London', day('2024-10-27'), 14 * 60)).toISOString()).toBe(
      '2024-10-27T14:00:00.000Z',
    );
    // International tracks: their own zones, e.g. Santa Anita's 17:00 is 01:00Z the next day in winter.
    expect(new Date(clock.toUtc('America/Los_Angeles', day('2024-01-13'), 17 * 60)).toISOString()).toBe(
      '2024-01-14T01:00:00.000Z',
    );
    expect(new Date(clock.toUtc('Australia/Melbourne', day('2024-11-05'), 15 * 60)).toISOString()).toBe(
      '2024-11-05T04:00:00.000Z',
    );
  });
});
