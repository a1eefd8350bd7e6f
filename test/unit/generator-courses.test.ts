import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import type { Course } from '../../domain/avro-types.generated.js';
import { DIRECTIONS, DISCIPLINES, SURFACES } from '../../domain/codes.js';
import { ARC, COURSE_FACTS, JCR, TRACK_SHAPES } from '../../domain/course-facts.js';
import { courseChangeDates, courseRecord, courseRecords, demoTopology } from '../../domain/course-records.js';
import { COURSES, courseByCode, courseDisciplines, courseIdOf, courseStaging } from '../../domain/courses.js';
import { generateFeed } from '../../domain/generator/index.js';
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
import { generatedTopology } from '../../domain/topology/index.js';
import { validateCourse } from '../../domain/validate.js';

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
      expect(validateCourse(r)).toEqual([]);
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

const byCode = (code: string) => courseByCode(code)!;
/** The AW surface in force on `date` (the last AW period started by then), as the version of that date says. */
const awOn = (code: string, date: string) =>
  courseRecord(byCode(code), date)
    .surfaceHistory.filter((p) => p.surface === 'aw')
    .pop()?.description;
/** Signed area of a [lon, lat] ring (degrees^2; at 0N the degrees are square): > 0 counter-clockwise. */
const signedArea = (ring: readonly (readonly number[])[]) =>
  ring.reduce((sum, a, i) => {
    const b = ring[(i + 1) % ring.length]!;
    return sum + (a[0]! * b[1]! - b[0]! * a[1]!) / 2;
  }, 0);

describe('course facts (course-facts.ts)', () => {
  it('gives every course a direction, a shape, plausible lengths and nothing for a course not in the table', () => {
    expect(Object.keys(COURSE_FACTS).sort()).toEqual(COURSES.map((c) => c.code).sort());
    for (const c of COURSES) {
      expect(DIRECTIONS).toContain(c.direction);
      expect(TRACK_SHAPES).toContain(c.shape);
      for (const y of [c.circuitLengthYards, c.straightLengthYards, ...c.startPositions.map((p) => p.distanceYards)]) {
        if (y !== null) expect(Number.isInteger(y) && y >= 300 && y <= 4000).toBe(true);
      }
      if (c.circuitLengthYards !== null && c.straightLengthYards !== null)
        expect(c.straightLengthYards).toBeLessThan(c.circuitLengthYards);
      // A straight-only track has no circuit; a figure-of-eight course is drawn as one.
      if (c.direction === 'straight') expect([c.shape, c.circuitLengthYards]).toEqual(['straight', null]);
      expect(c.direction === 'figure-of-eight').toBe(c.shape === 'figure-of-eight');
    }
    expect(byCode('ascot')).toMatchObject({ shape: 'triangle', circuitLengthYards: 3080, operator: 'independent' });
    expect(byCode('aintree')).toMatchObject({ straightLengthYards: 494, operator: JCR });
    expect(byCode('epsom')).toMatchObject({ shape: 'horseshoe', circuitLengthYards: 2640, operator: JCR });
    expect(byCode('york').shape).toBe('horseshoe');
    expect(byCode('newmarket')).toMatchObject({
      shape: 'straight',
      circuitLengthYards: null,
      straightLengthYards: 2200,
    });
    for (const code of ['lingfield', 'lingfield-aw', 'wolverhampton-aw', 'southwell-aw', 'newcastle-aw', 'doncaster'])
      expect(byCode(code).operator).toBe(ARC);
    expect(byCode('flemington')).toMatchObject({ circuitLengthYards: 2528, straightLengthYards: 492 });
  });

  it('dates every AW surface, conversions included', () => {
    expect([awOn('wolverhampton-aw', '2000-06-01'), awOn('wolverhampton-aw', '2010-06-01')]).toEqual([
      'Fibresand',
      'Polytrack',
    ]);
    expect(awOn('wolverhampton-aw', '2020-06-01')).toBe('Tapeta');
    expect([awOn('southwell-aw', '2021-06-01'), awOn('southwell-aw', '2022-06-01')]).toEqual(['Fibresand', 'Tapeta']);
    expect([awOn('lingfield-aw', '1995-06-01'), awOn('lingfield-aw', '2005-06-01')]).toEqual([
      'Equitrack',
      'Polytrack',
    ]);
    expect(awOn('kempton-aw', '2006-03-25')).toBe('Polytrack');
    expect(awOn('newcastle-aw', '2016-05-03')).toBe('Tapeta');
    expect(awOn('chelmsford-city-aw', '2015-06-01')).toBe('Polytrack');
    expect(awOn('dundalk-aw', '2010-06-01')).toBe('Polytrack');
    expect([awOn('meydan', '2012-02-01'), awOn('meydan', '2016-02-01')]).toEqual(['Tapeta', 'Dirt']);
    // A conversion is a change of the record: the feed publishes a version on its first day.
    expect(courseChangeDates(byCode('wolverhampton-aw'))).toEqual(['2004-08-21', '2014-08-11']);
    expect(courseRecord(byCode('meydan'), '2016-02-01').surfaceKind).toBe('mixed');
  });

  it('links the courses of one venue both ways, each from the day the other opened', () => {
    const records = new Map(courseRecords().map((r) => [r.courseId, r]));
    let linked = 0;
    for (const r of records.values()) {
      for (const id of r.siblingCourseIds) {
        expect(records.get(id)!.siblingCourseIds).toContain(r.courseId);
        linked++;
      }
    }
    expect(linked).toBe(16);
    const pair = (a: string, b: string) => {
      expect(courseRecord(byCode(a)).siblingCourseIds).toEqual([courseIdOf(b)]);
      expect(courseRecord(byCode(b)).siblingCourseIds).toEqual([courseIdOf(a)]);
    };
    pair('newcastle', 'newcastle-aw');
    pair('kempton', 'kempton-aw');
    pair('lingfield', 'lingfield-aw');
    pair('wolverhampton', 'wolverhampton-aw');
    pair('southwell', 'southwell-aw');
    pair('dundalk', 'dundalk-aw');
    pair('newmarket', 'newmarket-july');
    // Point in time: no sibling before the AW track opened, and its opening is a new version.
    expect(courseRecord(byCode('newcastle'), '2016-05-02').siblingCourseIds).toEqual([]);
    expect(courseRecord(byCode('newcastle'), '2016-05-03').siblingCourseIds).toEqual([courseIdOf('newcastle-aw')]);
    expect(courseChangeDates(byCode('newcastle'))).toEqual(['2016-05-03']);
    expect(() => courseRecord(byCode('newcastle-aw'), '2016-05-02')).toThrow(RangeError);
  });
});

describe('course versions in the feed', () => {
  const courseEvents = (from: string, to: string) =>
    [...generateFeed({ from, to, seed: 3, scale: 0.1 })].flatMap((e) => (e.kind === 'course' ? [e] : []));

  it('publishes a version when racing starts, when a surface changes and when a sibling opens', () => {
    const early = courseEvents('2014-08-05', '2014-08-14');
    const wolves = early.filter((e) => e.value.courseId === courseIdOf('wolverhampton-aw'));
    expect(
      wolves.map((e) => [
        new Date(e.publishedAt).toISOString().slice(0, 10),
        e.value.surfaceHistory.at(-1)!.description,
      ]),
    ).toEqual([
      ['2014-08-02', 'Polytrack'],
      ['2014-08-08', 'Tapeta'],
    ]);
    const later = courseEvents('2016-04-28', '2016-05-05');
    const newcastle = later.filter((e) => e.value.courseId === courseIdOf('newcastle'));
    expect(newcastle.map((e) => e.value.siblingCourseIds)).toEqual([[], [courseIdOf('newcastle-aw')]]);
    expect(later.filter((e) => e.value.courseId === courseIdOf('newcastle-aw'))).toHaveLength(1);
    for (const e of [...early, ...later]) {
      expect(e.value.publishedAt).toBe(e.publishedAt);
      expect(e.publishedAt % MS_PER_DAY).toBe(0);
      // The demo topology is in every version, so the races' rows carry it from the first.
      expect(e.value.topology?.provenance?.geometrySource).toBe('generated');
      expect(validateCourse(e.value)).toEqual([]);
    }
  });
});

describe('demo topology', () => {
  it('is generated for every course, labelled generated, with no attribution', () => {
    for (const c of COURSES) {
      const t = demoTopology(c);
      expect(t.provenance).toMatchObject({
        geometrySource: 'generated',
        osmWays: [],
        elevationSource: 'generated',
        demProducts: ['generated'],
        measuredOn: c.open[0]![0],
      });
      expect(t.attribution).toEqual([]);
      expect(t.closed).toBe(c.shape !== 'straight' && c.shape !== 'horseshoe');
      const yards = c.shape === 'straight' ? c.straightLengthYards : c.circuitLengthYards;
      if (yards !== null) expect(Math.abs(t.circuitLengthM! - yards * 0.9144)).toBeLessThan(1);
      expect(t.centreline.length).toBeGreaterThan(10);
      expect(t.profile.length).toBeGreaterThan(15);
      expect(t.totalClimbM + t.totalDescentM!).toBeGreaterThan(0);
    }
  });

  it('runs left-handed circuits counter-clockwise and right-handed ones clockwise', () => {
    const circuits = COURSES.filter(
      (c) => demoTopology(c).closed && (c.direction === 'left' || c.direction === 'right'),
    );
    expect(circuits.length).toBeGreaterThan(90);
    for (const c of circuits) {
      const area = signedArea(demoTopology(c).centreline);
      expect(Math.sign(area), c.code).toBe(c.direction === 'left' ? 1 : -1);
    }
  });

  it('is deterministic and the topology library measures the same block', () => {
    for (const code of ['epsom', 'chester', 'newmarket', 'fontwell', 'laytown', 'ascot']) {
      const c = byCode(code);
      const t = demoTopology(c);
      const yards = c.shape === 'straight' ? c.straightLengthYards : c.circuitLengthYards;
      const again = generatedTopology(c, {
        shape: c.shape,
        measuredOn: c.open[0]![0],
        ...(yards === null ? {} : { circuitLengthYards: yards }),
      });
      expect([t.totalClimbM, t.totalDescentM, t.elevationRangeM, t.undulationIndex, t.circuitLengthM]).toEqual([
        again.totalClimbM,
        again.totalDescentM,
        again.elevationRangeM,
        again.undulationIndex,
        again.circuitLengthM,
      ]);
      expect(t.turns.map((x) => x.headingChangeDeg)).toEqual(again.turns.map((x) => x.headingChangeDeg));
      expect(t.profile).toEqual(again.profile.map((p) => ({ distanceM: p.distanceM, heightM: p.heightM })));
    }
    expect(JSON.stringify(courseRecords())).toBe(JSON.stringify(courseRecords()));
  });
});

describe('Course records and the Avro schema', () => {
  const type = avro.Type.forSchema(
    JSON.parse(readFileSync(join(import.meta.dirname, '..', '..', 'schemas', 'Course.avsc'), 'utf8')) as avro.Schema,
  );

  it('round-trips every version through schemas/Course.avsc', () => {
    const versions: Course[] = [...courseRecords()];
    for (const c of COURSES) for (const d of courseChangeDates(c)) versions.push(courseRecord(c, d));
    expect(versions.length).toBeGreaterThan(COURSES.length + 10);
    for (const v of versions) {
      const errors: string[] = [];
      expect(type.isValid(v, { errorHook: (path) => errors.push(path.join('.')) }), errors.join(', ')).toBe(true);
      expect(type.fromBuffer(type.toBuffer(v))).toEqual(v);
    }
  });
});

describe('validateCourse', () => {
  const good = () => structuredClone(courseRecord(byCode('epsom'), '2020-01-01'));

  it('accepts the generator and imported shapes, and a v1 version without publishedAt', () => {
    expect(validateCourse(good())).toEqual([]);
    expect(validateCourse({ ...good(), publishedAt: 0, topology: null, direction: 'unknown', shape: '' })).toEqual([]);
  });

  it('names each bad layout field', () => {
    const bad: Course = {
      ...good(),
      direction: 'anticlockwise',
      shape: 'square',
      surfaceKind: 'sand',
      circuitLengthYards: -5,
      straightLengthYards: 1.5,
      siblingCourseIds: ['nope'],
      startPositions: [{ distanceYards: 0, description: 'x' }],
      surfaceHistory: [
        { from: '2020-01-01', surface: 'turf', description: 'Turf' },
        { from: '2019-01-01', surface: 'aw', description: 'Polytrack' },
        { from: '2021-02-30', surface: 'dirt', description: 'Dirt' },
      ],
    };
    const e = validateCourse(bad).join('\n');
    expect(e).toMatch(/direction "anticlockwise" must be one of left, right, straight, figure-of-eight or unknown/);
    expect(e).toMatch(/shape "square" must be one of oval, .*straight or ""/);
    expect(e).toMatch(/surfaceKind "sand"/);
    expect(e).toMatch(/circuitLengthYards -5 must be null \(unknown\) or a whole number of yards/);
    expect(e).toMatch(/straightLengthYards 1.5/);
    expect(e).toMatch(/siblingCourseIds\[0\] "nope" is not a course id/);
    expect(e).toMatch(/startPositions\[0\]\.distanceYards/);
    expect(e).toMatch(/surfaceHistory\[1\]\.from 2019-01-01 is before the previous entry's 2020-01-01/);
    expect(e).toMatch(/surfaceHistory\[2\]\.from "2021-02-30" is not a YYYY-MM-DD date/);
    expect(e).toMatch(/surfaceHistory\[2\]\.surface "dirt"/);
  });

  it('checks topology numbers and that attribution matches the sources', () => {
    const t = good().topology!;
    const broken = {
      ...t,
      totalClimbM: Number.NaN,
      centreline: [
        [0, 0],
        [0, Number.POSITIVE_INFINITY],
      ],
    };
    const e = validateCourse({ ...good(), topology: broken });
    expect(e).toEqual([
      'topology.totalClimbM must be a finite number >= 0',
      'topology.centreline[1] must be [lon, lat] in degrees (finite, WGS84 range)',
    ]);
    const claimed = { ...t, attribution: ['© OpenStreetMap contributors'] };
    expect(validateCourse({ ...good(), topology: claimed })).toEqual([
      'topology.attribution must be empty for generated geometry and elevation (no source to credit)',
    ]);
    const measured = {
      ...t,
      provenance: {
        ...t.provenance!,
        geometrySource: 'openstreetmap',
        elevationSource: 'dem',
        demProducts: ['OS Terrain 50'],
      },
      attribution: [],
    };
    const m = validateCourse({ ...good(), topology: measured }).join('\n');
    expect(m).toMatch(/must include "© OpenStreetMap contributors" when geometrySource is openstreetmap/);
    expect(m).toMatch(/must include the OS Terrain 50 credit "Contains OS data © Crown copyright/);
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
