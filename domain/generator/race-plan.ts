/**
 * What a race is before anyone is declared: discipline, surface, distance, class, conditions (maiden,
 * novice, handicap, open, bumper), age range, target field and title. The tables below are the
 * generator's target distributions; docs/generator.md lists them.
 */
import type { CourseInfo } from '../courses.js';
import type { Discipline, Pattern, Surface } from '../codes.js';
import type { Entry } from './horses.js';
import { racePrefix } from './names.js';
import { type Code, FLAT, JUMPS } from './people.js';
import { hashString, type Rng } from './prng.js';
import type { DayInfo, Meeting } from './schedule.js';

export interface RacePlan {
  readonly discipline: Discipline;
  readonly surface: Surface;
  readonly code: Code;
  readonly yards: number;
  /** Published class (0 unknown: Irish and international races, a few British ones). */
  readonly raceClass: number;
  /** Internal level 1..7 the field is drawn from. */
  readonly level: number;
  readonly kind: Entry['kind'];
  readonly minAge: number;
  readonly maxAge: number;
  readonly stage: Entry['stage'];
  /** Declared runners wanted (before non-runners). */
  readonly declared: number;
  readonly name: string;
  /** Black type: listed or group/grade 1-3 for the top races at premier courses, otherwise none (never ''). */
  readonly pattern: Pattern;
}

type Table = readonly (readonly [number, number])[];

const FLAT_F: Table = [
  [5, 15],
  [6, 20],
  [7, 17],
  [8, 17],
  [9, 5],
  [10, 10],
  [11, 3],
  [12, 7],
  [13, 1.5],
  [14, 2],
  [16, 1.5],
  [18, 0.5],
  [20, 0.2],
  [22, 0.1],
];
const TWO_YO_F: Table = [
  [5, 35],
  [6, 35],
  [7, 20],
  [8, 10],
];
const HURDLE_F: Table = [
  [16, 36],
  [17, 10],
  [18, 4],
  [19, 10],
  [20, 20],
  [21, 7],
  [22, 4],
  [23, 3],
  [24, 5],
  [25, 0.5],
  [26, 0.5],
  [27, 0.4],
];
const CHASE_F: Table = [
  [16, 20],
  [17, 6],
  [18, 3],
  [19, 8],
  [20, 18],
  [21, 8],
  [22, 7],
  [23, 5],
  [24, 12],
  [25, 4],
  [26, 4],
  [27, 2],
  [28, 1.5],
  [29, 0.6],
  [30, 0.4],
  [32, 0.3],
  [34, 0.1],
];
const BUMPER_F: Table = [
  [13, 3],
  [14, 7],
  [16, 80],
  [17, 6],
  [19, 4],
];
const METRES: Table = [
  [1000, 12],
  [1200, 22],
  [1400, 15],
  [1600, 20],
  [1800, 10],
  [2000, 10],
  [2200, 4],
  [2400, 5],
  [2800, 1],
  [3200, 1],
];

/** Class mixes (weights for classes/levels 1..7). */
const CLASS_MIX = {
  flat1: [18, 20, 20, 22, 15, 5, 0],
  flat2: [3, 8, 14, 25, 28, 20, 2],
  flat3: [0, 2, 7, 20, 35, 30, 6],
  aw: [0.5, 3, 7, 15, 25, 32, 17.5],
  jumps1: [30, 22, 22, 18, 8, 0, 0],
  jumps2: [6, 12, 20, 32, 28, 2, 0],
  jumps3: [1, 3, 12, 36, 42, 6, 0],
  ire1: [15, 20, 20, 20, 15, 10, 0],
  ire: [2, 6, 15, 27, 28, 18, 4],
  int1: [25, 25, 20, 15, 10, 5, 0],
  int: [5, 15, 25, 25, 20, 10, 0],
} as const;

const YARD_EXTRAS = [0, 0, 0, 0, 0, 6, 10, 14, 21, 32, 44, 50, 66, 100, 110, 132, 154, 176, 198];

function pickTable(rng: Rng, t: Table): number {
  let total = 0;
  for (const [, w] of t) total += w;
  let r = rng.next() * total;
  for (const [v, w] of t) {
    r -= w;
    if (r < 0) return v;
  }
  return t[t.length - 1]![0];
}

/** A course's distances recur (Ascot's 1m 2f is always 1m 1f 212y): extra yards from a hash. */
function yardsAt(course: CourseInfo, furlongs: number): number {
  const h = hashString(`${course.code}:${furlongs}`);
  const extra = YARD_EXTRAS[h % YARD_EXTRAS.length]!;
  // Sprints and marathons stay close to their nominal trip (5f 21y, 4m 2f 74y...).
  return furlongs * 220 + (furlongs <= 6 || furlongs >= 20 ? Math.min(extra, 74) : extra);
}

function classMix(course: CourseInfo, code: Code, surface: Surface): readonly number[] {
  if (course.region === 'INT') return course.grade === 1 ? CLASS_MIX.int1 : CLASS_MIX.int;
  if (course.region === 'IRE') return course.grade === 1 ? CLASS_MIX.ire1 : CLASS_MIX.ire;
  if (surface === 'aw') return CLASS_MIX.aw;
  if (code === JUMPS)
    return course.grade === 1 ? CLASS_MIX.jumps1 : course.grade === 2 ? CLASS_MIX.jumps2 : CLASS_MIX.jumps3;
  return course.grade === 1 ? CLASS_MIX.flat1 : course.grade === 2 ? CLASS_MIX.flat2 : CLASS_MIX.flat3;
}

const TWO_YO_SHARE = [0, 0, 0.02, 0.07, 0.13, 0.18, 0.22, 0.24, 0.25, 0.25, 0.18, 0.08];

/** Disciplines of a meeting's races, in card order. */
export function meetingDisciplines(rng: Rng, m: Meeting, d: DayInfo): Discipline[] {
  const out: Discipline[] = [];
  if (m.type !== 'jumps') {
    for (let i = 0; i < m.races; i++) out.push('flat');
    return out;
  }
  const c = m.course;
  const irishMixed = c.region === 'IRE' && c.flat > 0 && d.month >= 4 && d.month <= 8 && rng.chance(0.35);
  const flatRaces = irishMixed ? rng.int(2, 3) : 0;
  const bumper = c.country !== 'FR' && rng.chance(c.region === 'IRE' ? 0.75 : 0.55);
  for (let i = 0; i < m.races; i++) {
    if (i < flatRaces) out.push('flat');
    else if (bumper && i === m.races - 1) out.push('nh-flat');
    else out.push(rng.chance(c.country === 'FR' ? 0.5 : 0.56) ? 'hurdle' : 'chase');
  }
  return out;
}

function fieldTarget(rng: Rng, discipline: Discipline, course: CourseInfo, kind: Entry['kind'], level: number): number {
  let n: number;
  switch (discipline) {
    case 'flat':
      n = 2 + rng.gamma(3.2) * 2.75;
      if (kind === 'handicap' && level <= 2 && course.grade === 1) n += 6;
      break;
    case 'hurdle':
      n = 2 + rng.gamma(3) * 2.55;
      break;
    case 'chase':
      n = 2 + rng.gamma(2.6) * 2.15;
      break;
    default:
      n = 3 + rng.gamma(3) * 2.6;
  }
  if (course.region === 'IRE') n *= 1.2;
  if (course.region === 'INT') n = Math.max(n, 6 + rng.gamma(3) * 2);
  const cap = discipline === 'flat' ? course.maxField : Math.min(course.maxField, 24);
  return Math.max(2, Math.min(cap, Math.round(n)));
}

function kindOf(rng: Rng, discipline: Discipline, level: number, twoYo: boolean, month: number): Entry['kind'] {
  const r = rng.next();
  if (discipline === 'nh-flat') return 'bumper';
  if (discipline === 'flat') {
    if (twoYo) return r < 0.45 ? 'maiden' : r < 0.8 ? 'novice' : r < 0.9 || month < 6 ? 'open' : 'handicap';
    if (level === 1) return r < 0.75 ? 'open' : 'handicap';
    if (level === 2) return r < 0.7 ? 'handicap' : 'open';
    if (level === 7) return r < 0.8 ? 'handicap' : 'open';
    return r < 0.66 ? 'handicap' : r < 0.8 ? 'maiden' : r < 0.9 ? 'novice' : 'open';
  }
  if (level === 1) return r < 0.55 ? 'open' : 'handicap';
  if (discipline === 'hurdle') return r < 0.55 ? 'handicap' : r < 0.77 ? 'novice' : r < 0.87 ? 'maiden' : 'open';
  return r < 0.65 ? 'handicap' : r < 0.9 ? 'novice' : 'open';
}

/** Black type in a title: `(Listed)`, `(Group N)` on the flat, `(Grade N)` over jumps. */
const BLACK_TYPE: Readonly<Record<Exclude<Pattern, '' | 'none'>, [string, string]>> = {
  listed: ['(Listed)', '(Listed)'],
  group3: ['(Group 3)', '(Grade 3)'],
  group2: ['(Group 2)', '(Grade 2)'],
  group1: ['(Group 1)', '(Grade 1)'],
};

/**
 * The race title (sponsor + conditions) and its black type. Pattern races are the open races of the
 * top level at premier courses (grade 1), plus some Grade 3 handicaps over jumps there; the same
 * conditions elsewhere make a conditions race.
 */
function title(
  rng: Rng,
  p: Omit<RacePlan, 'name' | 'declared' | 'pattern'>,
  course: CourseInfo,
): { name: string; pattern: Pattern } {
  const r = rng.next();
  let label: string;
  let pattern: Pattern = 'none';
  const two = p.maxAge === 2;
  const top = p.level === 1 && course.grade === 1;
  const jumps = p.code === JUMPS;
  const blackType = (pt: Exclude<Pattern, '' | 'none'>, base: string) => {
    pattern = pt;
    return `${base} ${BLACK_TYPE[pt][jumps ? 1 : 0]}`;
  };
  switch (p.discipline) {
    case 'flat':
      if (p.kind === 'maiden') label = two ? 'Maiden Stakes' : 'Maiden Stakes';
      else if (p.kind === 'novice') label = 'Novice Stakes';
      else if (p.kind === 'handicap')
        label = two ? 'Nursery Handicap' : p.level <= 2 ? 'Heritage Handicap' : 'Handicap';
      else if (top)
        label =
          r < 0.5
            ? blackType('listed', 'Stakes')
            : r < 0.8
              ? blackType('group3', 'Stakes')
              : r < 0.93
                ? blackType('group2', 'Stakes')
                : blackType('group1', 'Stakes');
      else if (p.level === 1) label = 'Conditions Stakes';
      else
        label =
          r < 0.5
            ? 'Conditions Stakes'
            : r < 0.75
              ? 'Claiming Stakes'
              : p.level >= 6
                ? 'Selling Stakes'
                : 'Classified Stakes';
      break;
    case 'hurdle':
      if (p.kind === 'maiden') label = 'Maiden Hurdle';
      else if (p.kind === 'novice') label = p.maxAge === 4 ? 'Juvenile Hurdle' : "Novices' Hurdle";
      else if (p.kind === 'handicap')
        label = top && r < 0.3 ? blackType('group3', 'Handicap Hurdle') : 'Handicap Hurdle';
      else
        label = top
          ? r < 0.5
            ? blackType('group2', 'Hurdle')
            : r < 0.8
              ? blackType('group1', 'Hurdle')
              : blackType('listed', 'Hurdle')
          : p.level >= 6
            ? 'Selling Hurdle'
            : 'Hurdle';
      break;
    case 'chase':
      if (p.kind === 'novice') label = r < 0.5 ? "Novices' Chase" : "Beginners' Chase";
      else if (p.kind === 'handicap') label = top && r < 0.3 ? blackType('group3', 'Handicap Chase') : 'Handicap Chase';
      else
        label = top
          ? r < 0.5
            ? blackType('group2', 'Chase')
            : blackType('group1', 'Chase')
          : r < 0.4
            ? "Hunters' Chase"
            : 'Chase';
      break;
    default:
      label = course.region === 'IRE' ? 'INH Flat Race' : 'Standard Open NH Flat Race';
  }
  return { name: `${racePrefix(rng, course.name)} ${label}`, pattern };
}

export function planRace(rng: Rng, m: Meeting, d: DayInfo, discipline: Discipline): RacePlan {
  const course = m.course;
  const code: Code = discipline === 'flat' ? FLAT : JUMPS;
  let surface: Surface = discipline === 'flat' ? m.surface : 'turf';
  if (discipline === 'flat' && course.region === 'INT' && course.surfaceHistory.length > 1) {
    const awFrom = course.surfaceHistory.find((p) => p.surface === 'aw')?.from ?? '9999';
    const winter = d.month <= 2 || d.month >= 10;
    if (m.date >= awFrom && rng.chance(course.code === 'sha-tin' ? 0.15 : winter ? 0.45 : 0.08)) surface = 'aw';
  }
  const mix = classMix(course, code, surface);
  let level = 1 + rng.weighted(mix);
  if (code === JUMPS && discipline === 'nh-flat') level = Math.max(level, 4);
  const twoYo = code === FLAT && rng.chance(surface === 'aw' ? TWO_YO_SHARE[d.month]! * 0.4 : TWO_YO_SHARE[d.month]!);
  const kind = kindOf(rng, discipline, level, twoYo, d.month);
  let minAge = 3;
  let maxAge = 14;
  if (code === FLAT) {
    if (twoYo) {
      minAge = 2;
      maxAge = 2;
    } else if (d.month >= 3 && d.month <= 8 && rng.chance(0.18)) maxAge = 3;
  } else if (discipline === 'chase') minAge = 5;
  else if (discipline === 'nh-flat') {
    minAge = 4;
    maxAge = 7;
  } else {
    minAge = 4;
    if (kind === 'novice' && (d.month >= 9 || d.month <= 3) && rng.chance(0.15)) maxAge = 4;
  }
  let yards: number;
  if (course.region === 'INT' && code === FLAT) yards = Math.round(pickTable(rng, METRES) * 1.0936);
  else {
    const t =
      discipline === 'flat'
        ? twoYo
          ? TWO_YO_F
          : FLAT_F
        : discipline === 'hurdle'
          ? HURDLE_F
          : discipline === 'chase'
            ? CHASE_F
            : BUMPER_F;
    yards = yardsAt(course, pickTable(rng, t));
  }
  const raceClass =
    course.region !== 'GB'
      ? 0
      : rng.chance(0.01)
        ? 0
        : code === JUMPS
          ? Math.min(level, discipline === 'nh-flat' ? 6 : 5)
          : level;
  const stage: Entry['stage'] =
    discipline === 'chase' ? 2 : discipline === 'hurdle' ? 1 : discipline === 'nh-flat' ? 0 : -1;
  const base = { discipline, surface, code, yards, raceClass, level, kind, minAge, maxAge, stage };
  const declared = fieldTarget(rng, discipline, course, kind, level);
  return { ...base, declared, ...title(rng, base, course) };
}
