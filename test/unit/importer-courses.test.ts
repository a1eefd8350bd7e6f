/**
 * Course records of the importer (docs/courses.md): what the results files show (name, country,
 * region, surfaces, disciplines, the track variant from the name, siblings at the same venue) and
 * unknown for the rest. On one real LSR month (../shared/data/lsr-racingdata; skipped with a message
 * when absent, except in CI), and venueKey on names alone.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Course } from '../../domain/avro-types.generated.js';
import { makeId } from '../../domain/ids.js';
import { venueKey } from '../../domain/importer/build.js';
import { importResultsCsv } from '../../domain/importer/index.js';
import { validateCourse } from '../../domain/validate.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const FILE = join(repoRoot, '..', 'shared', 'data', 'lsr-racingdata', 'block_2021-11_to_2022-03', 'Results_202112.csv');
const present = existsSync(FILE);
const skip = !present && process.env.CI !== 'true';
if (skip) console.warn(`importer-courses: skipping the real-file test: ${FILE} is absent`);

const courseId = (rpId: string) => makeId('course', `lsr:course:${rpId}`);

describe('venueKey', () => {
  it('drops the variant and Arabian suffixes, keeps the country', () => {
    expect(venueKey('Newcastle')).toBe('Newcastle|GB');
    expect(venueKey('Newcastle (AW)')).toBe('Newcastle|GB');
    expect(venueKey('Newcastle (AUS)')).toBe('Newcastle|AUS');
    expect(venueKey('Newmarket (July)')).toBe('Newmarket|GB');
    expect(venueKey('Dundalk (AW) (IRE)')).toBe('Dundalk|IRE');
    expect(venueKey('Lingfield (AW) (GB) (ARAB)')).toBe('Lingfield|GB');
    expect(venueKey('Meydan (UAE) (ARAB)')).toBe(venueKey('Meydan (UAE)'));
  });
});

describe.skipIf(skip)('importer course records on a real month (Results_202112.csv)', () => {
  const courses = new Map<string, { publishedAt: number; value: Course }>();

  beforeAll(async () => {
    const { events } = await importResultsCsv([FILE]);
    for (const e of events) if (e.kind === 'course') courses.set(e.value.name, e);
  });

  it('Newcastle and Newcastle (AW): variant from the name, siblings of each other, the rest unknown', () => {
    const turf = courses.get('Newcastle')!;
    const aw = courses.get('Newcastle (AW)')!;
    expect(turf.value).toMatchObject({
      courseId: courseId('37'),
      trackVariant: null,
      siblingCourseIds: [courseId('1353')],
      country: 'GB',
      region: 'GB',
    });
    expect(aw.value).toMatchObject({
      courseId: courseId('1353'),
      trackVariant: 'AW',
      siblingCourseIds: [courseId('37')],
      surfaceKind: 'aw',
      disciplines: ['flat'],
    });
    for (const c of [turf, aw]) {
      expect(c.value).toMatchObject({
        direction: 'unknown',
        shape: '',
        operator: '',
        circuitLengthYards: null,
        straightLengthYards: null,
        startPositions: [],
        topology: null,
      });
      expect(c.value.publishedAt).toBe(c.publishedAt);
      expect(validateCourse(c.value)).toEqual([]);
    }
    // A course elsewhere with the same name is another venue.
    const australian = courses.get('Newcastle (AUS)');
    if (australian) expect(australian.value.siblingCourseIds).toEqual([]);
  });

  it('every imported course is valid, unknown-handed and without topology; siblings are symmetric', () => {
    const byId = new Map([...courses.values()].map((c) => [c.value.courseId, c.value]));
    for (const c of byId.values()) {
      expect(validateCourse(c)).toEqual([]);
      expect(c.direction).toBe('unknown');
      expect(c.topology).toBeNull();
      for (const s of c.siblingCourseIds) expect(byId.get(s)!.siblingCourseIds).toContain(c.courseId);
    }
  });
});
