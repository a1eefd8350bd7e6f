/**
 * The fixture list: which courses race on a given day and when. Each open course gets a daily
 * probability of a flat, jumps or all-weather meeting from its fixtures a year, the season (flat turf
 * peaks in summer, jumps in winter, AW all year), the weekday (Saturdays busiest; no British Sunday
 * racing before 1992) and holidays (no racing on 24-25 December, a Boxing Day peak, no Good Friday
 * racing in Britain before 2014 or in Ireland before 2018).
 */
import { type CourseInfo, COURSES } from '../courses.js';
import type { Surface } from '../codes.js';
import type { Rng } from './prng.js';

export type MeetingType = 'flat' | 'jumps' | 'aw';

export interface Meeting {
  readonly course: CourseInfo;
  /** Local meeting date as an epoch-day number, and as YYYY-MM-DD. */
  readonly day: number;
  readonly date: string;
  readonly type: MeetingType;
  readonly surface: Surface;
  readonly evening: boolean;
  readonly races: number;
  /** First race, local minutes after midnight; then every `interval` minutes. */
  readonly firstOff: number;
  readonly interval: number;
}

export interface DayInfo {
  readonly day: number;
  readonly date: string;
  readonly year: number;
  /** 0..11 */
  readonly month: number;
  readonly dom: number;
  /** 0 = Sunday */
  readonly weekday: number;
}

export function dayInfo(day: number): DayInfo {
  const d = new Date(day * 86_400_000);
  return {
    day,
    date: d.toISOString().slice(0, 10),
    year: d.getUTCFullYear(),
    month: d.getUTCMonth(),
    dom: d.getUTCDate(),
    weekday: d.getUTCDay(),
  };
}

const normCache = new WeakMap<readonly number[], number[]>();

/** A course's own month weights, normalised (cached: the table is fixed). */
function courseMonths(c: CourseInfo): number[] {
  const m = c.months!;
  let n = normCache.get(m);
  if (!n) {
    n = norm([...m]);
    normCache.set(m, n);
  }
  return n;
}

const norm = (w: number[]): number[] => {
  const s = w.reduce((a, b) => a + b, 0);
  return w.map((x) => (x * 12) / s);
};

const FLAT_GB = norm([0, 0, 0.5, 0.95, 1.35, 1.7, 1.85, 1.75, 1.45, 1.05, 0.35, 0]);
const JUMPS: Record<CourseInfo['jumpsSeason'], number[]> = {
  winter: norm([1.3, 1.3, 1.3, 1.0, 0.3, 0, 0, 0, 0.15, 1.0, 1.4, 1.4]),
  summer: norm([0.2, 0.2, 0.5, 1.2, 1.6, 1.6, 1.7, 1.6, 1.4, 1.0, 0.6, 0.3]),
  all: norm([1.15, 1.15, 1.15, 1.1, 0.9, 0.55, 0.55, 0.6, 0.8, 1.1, 1.2, 1.25]),
};
const AW = norm([1.3, 1.3, 1.15, 0.95, 0.8, 0.7, 0.7, 0.75, 0.85, 1.0, 1.2, 1.3]);
const WEEKDAY_GB = [0.75, 0.75, 0.85, 1.0, 1.0, 1.1, 1.55];
const WEEKDAY_IRE = [1.25, 0.7, 0.7, 0.9, 1.0, 1.15, 1.3];

/** Date of Easter Sunday (Gregorian, anonymous algorithm) as month 0..11 and day. */
function easter(year: number): { month: number; dom: number } {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const d = Math.floor(b / 4);
  const e = b % 4;
  const f = Math.floor((b + 8) / 25);
  const g = Math.floor((b - f + 1) / 3);
  const h = (19 * a + b - d - g + 15) % 30;
  const i = Math.floor(c / 4);
  const k = c % 4;
  const l = (32 + 2 * e + 2 * i - h - k) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31);
  const dom = ((h + l - 7 * m + 114) % 31) + 1;
  return { month: month - 1, dom };
}

function isGoodFriday(d: DayInfo): boolean {
  const e = easter(d.year);
  const gf = new Date(Date.UTC(d.year, e.month, e.dom - 2));
  return gf.getUTCMonth() === d.month && gf.getUTCDate() === d.dom;
}

/** Holiday and weekday multiplier for Britain and Ireland. */
function homeDayFactor(region: 'GB' | 'IRE', d: DayInfo): number {
  if (d.month === 11 && (d.dom === 24 || d.dom === 25)) return 0;
  if (isGoodFriday(d) && (region === 'GB' ? d.year < 2014 : d.year < 2018)) return 0;
  let f = region === 'GB' ? WEEKDAY_GB[d.weekday]! : WEEKDAY_IRE[d.weekday]!;
  if (region === 'GB' && d.weekday === 0) {
    if (d.date < '1992-07-26') f = 0;
    else if (d.year < 1995) f *= 0.25;
  }
  if (d.month === 11 && d.dom === 26) f = 2.3;
  else if (d.month === 11 && d.dom === 27) f *= 1.6;
  else if (d.month === 0 && d.dom === 1) f = 1.8;
  return f;
}

/** Season weight for a month, trimming the turf flat season's edges (late March to early November). */
function flatSeason(c: CourseInfo, d: DayInfo): number {
  const w = FLAT_GB[d.month]!;
  const startDom = c.region === 'IRE' ? 15 : 22;
  if (d.month === 2 && d.dom < startDom) return 0;
  if (d.month === 10 && d.dom > (c.region === 'IRE' ? 12 : 8)) return 0;
  return d.month === 2 ? w * 2.2 : d.month === 10 ? w * 3 : w;
}

function isOpen(c: CourseInfo, date: string): boolean {
  for (const [from, to] of c.open) if (date >= from && (to === null || date <= to)) return true;
  return false;
}

/**
 * Volume per region and year, tuned so that full scale gives about 530,000 races from 1988 to 2026
 * (GB about 8,400 races in 1988 rising to 10,500; Ireland 2,600 to 3,000; international about 1,300).
 * New AW tracks add their own growth, so the British factor eases off over the years.
 */
const GB_VOLUME: readonly (readonly [number, number])[] = [
  [1988, 1.25],
  [1993, 1.13],
  [1996, 1.04],
  [2004, 1.01],
  [2012, 0.98],
  [2020, 0.98],
  [2026, 1.01],
];

function volume(region: 'GB' | 'IRE' | 'INT', year: number): number {
  if (region === 'INT') return 0.84;
  if (region === 'IRE') return 1.06 + 0.03 * Math.min(1, Math.max(0, (year - 1988) / 37));
  for (let i = 1; i < GB_VOLUME.length; i++) {
    const [y1, v1] = GB_VOLUME[i]!;
    const [y0, v0] = GB_VOLUME[i - 1]!;
    if (year <= y1) return v0 + ((v1 - v0) * Math.max(0, year - y0)) / (y1 - y0);
  }
  return GB_VOLUME[GB_VOLUME.length - 1]![1];
}

function pickRaces(rng: Rng, c: CourseInfo, d: DayInfo): number {
  if (c.region === 'INT') {
    if (c.code === 'tokyo') return rng.int(10, 12);
    if (c.code === 'sha-tin') return rng.int(9, 11);
    return rng.int(7, 10);
  }
  const r = rng.next();
  if (c.region === 'IRE') return r < 0.1 ? 6 : r < 0.45 ? 7 : r < 0.9 ? 8 : 9;
  if (d.year < 2000) return r < 0.08 ? 5 : r < 0.6 ? 6 : r < 0.92 ? 7 : 8;
  return r < 0.04 ? 5 : r < 0.32 ? 6 : r < 0.77 ? 7 : r < 0.96 ? 8 : 9;
}

const INT_FIRST: Record<string, number> = {
  longchamp: 13 * 60 + 30,
  chantilly: 12 * 60 + 30,
  deauville: 13 * 60 + 30,
  'saint-cloud': 13 * 60 + 30,
  auteuil: 13 * 60 + 30,
  'nad-al-sheba': 17 * 60,
  meydan: 16 * 60 + 30,
  'belmont-park': 13 * 60,
  'santa-anita': 12 * 60 + 30,
  flemington: 11 * 60 + 45,
  randwick: 12 * 60,
  'sha-tin': 12 * 60 + 45,
  'happy-valley': 18 * 60 + 45,
  tokyo: 10 * 60 + 5,
};

function firstOff(rng: Rng, c: CourseInfo, d: DayInfo, type: MeetingType, evening: boolean): number {
  const five = (lo: number, hi: number) => Math.round(rng.uniform(lo, hi) / 5) * 5;
  if (c.region === 'INT') return (INT_FIRST[c.code] ?? 13 * 60) + five(-10, 10);
  const winter = d.month >= 10 || d.month <= 1;
  if (evening) return winter ? five(16 * 60, 17 * 60 + 45) : five(17 * 60, 18 * 60 + 30);
  if (winter) return type === 'aw' ? five(12 * 60 + 15, 13 * 60 + 30) : five(12 * 60, 13 * 60);
  if (d.weekday === 6) return five(13 * 60 + 15, 14 * 60 + 10);
  return five(13 * 60, 14 * 60 + 30);
}

interface Candidate {
  course: CourseInfo;
  pFlat: number;
  pJumps: number;
}

/**
 * The day's meetings. Each open course has a probability of a flat (or AW) and of a jumps meeting; a
 * region's meeting count is its expected count rounded stochastically (fixture lists are planned, so
 * the count varies little), and the courses are drawn by weight without replacement. `scale` thins the
 * fixture list (1 = full volume).
 */
export function meetingsOn(rng: Rng, day: number, scale: number): Meeting[] {
  const d = dayInfo(day);
  const regions: Record<CourseInfo['region'], Candidate[]> = { GB: [], IRE: [], INT: [] };
  const homeFactor = { GB: homeDayFactor('GB', d), IRE: homeDayFactor('IRE', d) };
  for (const c of COURSES) {
    if (!isOpen(c, d.date)) continue;
    let pFlat = 0;
    let pJumps = 0;
    if (c.region === 'INT') {
      if (!c.weekdays?.includes(d.weekday) || !c.months) continue;
      const m = courseMonths(c)[d.month]!;
      const perDay = (m * volume('INT', d.year) * 7) / (365 * c.weekdays.length);
      pFlat = c.flat * perDay;
      pJumps = c.jumps * perDay;
    } else {
      const home = homeFactor[c.region];
      if (home === 0) continue;
      const base = (home * volume(c.region, d.year)) / 365;
      const flatOk = c.flat > 0 && (!c.flatUntil || d.date <= c.flatUntil) && (!c.flatFrom || d.date >= c.flatFrom);
      if (flatOk) {
        const season = c.months ? courseMonths(c)[d.month]! : isAwOnly(c) ? AW[d.month]! : flatSeason(c, d);
        pFlat = c.flat * season * base;
      }
      if (c.jumps > 0 && (!c.jumpsUntil || d.date <= c.jumpsUntil))
        pJumps = c.jumps * JUMPS[c.jumpsSeason][d.month]! * base;
    }
    if (pFlat + pJumps > 0) regions[c.region].push({ course: c, pFlat: pFlat * scale, pJumps: pJumps * scale });
  }
  const out: Meeting[] = [];
  for (const region of ['GB', 'IRE', 'INT'] as const) {
    const cands = regions[region];
    let expected = 0;
    for (const x of cands) expected += Math.min(1, x.pFlat + x.pJumps);
    let n = Math.floor(expected + rng.next());
    while (n-- > 0 && cands.length > 0) {
      const k = rng.weighted(cands.map((x) => Math.min(1, x.pFlat + x.pJumps)));
      const x = cands[k]!;
      cands.splice(k, 1);
      const flat = rng.next() * (x.pFlat + x.pJumps) < x.pFlat;
      out.push(meeting(rng, x.course, d, flat ? (isAwOnly(x.course) ? 'aw' : 'flat') : 'jumps'));
    }
  }
  out.sort((a, b) => COURSES.indexOf(a.course) - COURSES.indexOf(b.course));
  return out;
}

function isAwOnly(c: CourseInfo): boolean {
  return c.surfaceHistory.every((p) => p.surface === 'aw');
}

function meeting(rng: Rng, c: CourseInfo, d: DayInfo, type: MeetingType): Meeting {
  const surface: Surface = type === 'aw' ? 'aw' : 'turf';
  const summer = d.month >= 4 && d.month <= 7;
  const evening =
    c.region === 'INT'
      ? c.evening >= 1
      : type === 'aw'
        ? rng.chance(c.evening)
        : summer && d.weekday !== 0 && rng.chance(d.weekday === 6 ? c.evening * 0.5 : c.evening * 1.6);
  const intervalPick = rng.next();
  const races = pickRaces(rng, c, d);
  let interval = intervalPick < 0.05 ? 25 : intervalPick < 0.55 ? 30 : intervalPick < 0.9 ? 35 : 40;
  let first = firstOff(rng, c, d, type, evening);
  // Last race by 21:15 at British and Irish evening meetings, before dusk (16:10) on winter turf
  // afternoons, and on the same local day everywhere (Happy Valley's night meetings end by 23:00).
  const winterTurf = c.region !== 'INT' && !evening && type !== 'aw' && (d.month >= 10 || d.month <= 1);
  const lastBy =
    c.region === 'INT'
      ? evening
        ? 23 * 60
        : 19 * 60 + 30
      : evening
        ? 21 * 60 + 15
        : winterTurf
          ? 16 * 60 + 10
          : 18 * 60;
  if (first + (races - 1) * interval > lastBy) interval = Math.min(interval, 30);
  first = Math.max(c.region === 'INT' ? 9 * 60 : 11 * 60 + 30, Math.min(first, lastBy - (races - 1) * interval));
  return { course: c, day: d.day, date: d.date, type, surface, evening, races, firstOff: first, interval };
}
