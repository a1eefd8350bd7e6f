/**
 * Racecourses the generator races at: every current British and Irish course, the AW tracks as their
 * own variants (as the Racing Post and the BHA treat them), the British courses that closed after 1988,
 * and a handful of international tracks. Facts are public knowledge (direction, surfaces, what is
 * staged; shape, lengths, operator and siblings in course-facts.ts; the Course versions in course-records.ts); fixture counts and draw-bias
 * factors are rounded modelling inputs, documented in docs/generator.md. Dates marked `~` there are
 * approximate to the month.
 */
import type { Discipline, Surface } from './codes.js';
import {
  COURSE_FACTS,
  type CourseFacts,
  siblingCodes,
  type StartPositionFact,
  type TrackShape,
} from './course-facts.js';
import { makeId } from './ids.js';

export type CourseRegion = 'GB' | 'IRE' | 'INT';
export type CourseDirection = 'left' | 'right' | 'figure-of-eight' | 'straight';
/** Which half of the year a jumps course races in: winter (Oct-Apr), summer (Apr-Oct) or all year. */
export type JumpsSeason = 'winter' | 'summer' | 'all';

export interface CourseSurfacePeriod {
  /** YYYY-MM-DD, first day in force */
  readonly from: string;
  readonly surface: Surface;
  readonly description: string;
}

export interface CourseInfo {
  /** Stable generator code (a slug); the course id is makeId('course', 'gen:course:' + code). */
  readonly code: string;
  readonly name: string;
  /** GB, IRE or the country code for international tracks (FR, UAE, USA, AUS, HK, JPN). */
  readonly country: string;
  readonly region: CourseRegion;
  /** 'AW' for a separate all-weather track, 'July' for Newmarket's July Course; null for the main track. */
  readonly trackVariant: string | null;
  readonly direction: CourseDirection;
  readonly shape: TrackShape;
  /** one circuit in yards (the round course of a horseshoe); null unknown or straight only */
  readonly circuitLengthYards: number | null;
  /** the run-in (home straight) in yards, or the straight course of a straight-only track; null unknown */
  readonly straightLengthYards: number | null;
  /** the present-day racecourse group (not dated); '' unknown */
  readonly operator: string;
  /** codes of the other courses at the same venue (course-facts.ts VENUES) */
  readonly siblingCodes: readonly string[];
  readonly startPositions: readonly StartPositionFact[];
  /** IANA time zone of the course (off times are local there). */
  readonly zone: string;
  /**
   * Dated surface introductions. Each entry supersedes the previous entry for the same surface; a
   * course racing on turf and AW side by side (Deauville, Sha Tin) has one line per surface.
   */
  readonly surfaceHistory: readonly CourseSurfacePeriod[];
  /** Approximate flat fixtures a year in the modern era (0 = no flat racing). */
  readonly flat: number;
  /** Approximate jumps fixtures a year (0 = no jumps racing). */
  readonly jumps: number;
  readonly jumpsSeason: JumpsSeason;
  /**
   * Draw bias, -1..1: positive favours low draws, negative high; it acts most in sprints. Most
   * courses are near 0.
   */
  readonly drawBias: number;
  /** 1 premier (Group/Grade 1 venues), 2 mid-ranking, 3 minor. Drives the class mix. */
  readonly grade: 1 | 2 | 3;
  /** Largest field the course takes (stalls or safety limit). */
  readonly maxField: number;
  /** Periods in which the course stages racing: [from, to] inclusive, to null = still open. */
  readonly open: readonly (readonly [string, string | null])[];
  /** Last day of flat racing when the course gave it up (Kempton turf 2005, Warwick 2014...). */
  readonly flatUntil?: string;
  /** First day of flat racing when the course took it up (Wetherby 2015). */
  readonly flatFrom?: string;
  /** Last day of jumps racing when the course gave it up (Nottingham, Windsor). */
  readonly jumpsUntil?: string;
  /** Share of meetings run as evening (or floodlit) meetings. */
  readonly evening: number;
  /** International tracks: racing months weights Jan..Dec (relative) and race weekdays (0 = Sunday). */
  readonly months?: readonly number[];
  readonly weekdays?: readonly number[];
}

const START = '1988-01-01';

interface Spec {
  dir: CourseDirection;
  flat?: number;
  jumps?: number;
  season?: JumpsSeason;
  bias?: number;
  grade?: 1 | 2 | 3;
  max?: number;
  open?: readonly (readonly [string, string | null])[];
  flatUntil?: string;
  flatFrom?: string;
  jumpsUntil?: string;
  evening?: number;
  variant?: string;
  surfaces?: readonly CourseSurfacePeriod[];
  months?: readonly number[];
  weekdays?: readonly number[];
}

function turf(from: string = START): CourseSurfacePeriod[] {
  return [{ from, surface: 'turf', description: 'Turf' }];
}

function make(code: string, name: string, country: string, region: CourseRegion, zone: string, s: Spec): CourseInfo {
  const open = s.open ?? [[START, null]];
  const facts: CourseFacts | undefined = COURSE_FACTS[code];
  if (!facts) throw new Error(`course-facts.ts has no entry for course ${code}`);
  return {
    code,
    name,
    country,
    region,
    trackVariant: s.variant ?? null,
    direction: s.dir,
    ...facts,
    siblingCodes: siblingCodes(code),
    zone,
    surfaceHistory: s.surfaces ?? turf(open[0]![0]),
    flat: s.flat ?? 0,
    jumps: s.jumps ?? 0,
    jumpsSeason: s.season ?? 'all',
    drawBias: s.bias ?? 0,
    grade: s.grade ?? 3,
    maxField: s.max ?? (s.flat ? 20 : 18),
    open,
    evening: s.evening ?? (s.flat ? 0.3 : 0.1),
    ...(s.flatUntil ? { flatUntil: s.flatUntil } : {}),
    ...(s.flatFrom ? { flatFrom: s.flatFrom } : {}),
    ...(s.jumpsUntil ? { jumpsUntil: s.jumpsUntil } : {}),
    ...(s.months ? { months: s.months } : {}),
    ...(s.weekdays ? { weekdays: s.weekdays } : {}),
  };
}

const LON = 'Europe/London';
const DUB = 'Europe/Dublin';
const gb = (code: string, name: string, s: Spec) => make(code, name, 'GB', 'GB', LON, s);
const ire = (code: string, name: string, s: Spec) => make(code, name, 'IRE', 'IRE', DUB, s);
const aw = (from: string, description: string): CourseSurfacePeriod => ({ from, surface: 'aw', description });

/** GB courses: the 59 current ones, AW variants, and courses that closed after 1988. */
const GB: CourseInfo[] = [
  gb('aintree', 'Aintree', { dir: 'left', jumps: 8, season: 'winter', grade: 1, max: 40 }),
  gb('ascot', 'Ascot', { dir: 'right', flat: 16, jumps: 10, season: 'winter', grade: 1, max: 30, evening: 0.1 }),
  gb('ayr', 'Ayr', { dir: 'left', flat: 18, jumps: 12, season: 'winter', grade: 2, max: 25 }),
  gb('bangor-on-dee', 'Bangor-on-Dee', { dir: 'left', jumps: 14 }),
  gb('bath', 'Bath', { dir: 'left', flat: 22, bias: -0.15, max: 18, evening: 0.35 }),
  gb('beverley', 'Beverley', { dir: 'right', flat: 20, bias: 0.45, max: 20 }),
  gb('brighton', 'Brighton', { dir: 'left', flat: 20, bias: 0.15, max: 16 }),
  gb('carlisle', 'Carlisle', { dir: 'right', flat: 12, jumps: 10, season: 'winter', max: 16 }),
  gb('cartmel', 'Cartmel', { dir: 'left', jumps: 9, season: 'summer', max: 14 }),
  gb('catterick', 'Catterick', { dir: 'left', flat: 16, jumps: 10, season: 'winter', bias: 0.2, max: 20 }),
  gb('chelmsford-city-aw', 'Chelmsford City (AW)', {
    dir: 'left',
    flat: 60,
    variant: 'AW',
    bias: 0.1,
    max: 14,
    open: [['2015-01-22', null]],
    surfaces: [aw('2015-01-22', 'Polytrack')],
    evening: 0.5,
  }),
  gb('cheltenham', 'Cheltenham', { dir: 'left', jumps: 16, season: 'winter', grade: 1, max: 24 }),
  gb('chepstow', 'Chepstow', { dir: 'left', flat: 12, jumps: 15, season: 'winter', max: 20 }),
  gb('chester', 'Chester', { dir: 'left', flat: 15, bias: 0.6, grade: 2, max: 14 }),
  gb('doncaster', 'Doncaster', { dir: 'left', flat: 22, jumps: 9, season: 'winter', grade: 1, max: 24 }),
  gb('epsom', 'Epsom', { dir: 'left', flat: 10, bias: 0.1, grade: 1, max: 20 }),
  gb('exeter', 'Exeter', { dir: 'right', jumps: 16, season: 'winter' }),
  gb('fakenham', 'Fakenham', { dir: 'left', jumps: 12 }),
  gb('ffos-las', 'Ffos Las', { dir: 'left', flat: 8, jumps: 14, open: [['2009-06-18', null]], max: 18 }),
  gb('fontwell', 'Fontwell', { dir: 'figure-of-eight', jumps: 22 }),
  gb('goodwood', 'Goodwood', { dir: 'right', flat: 19, bias: 0.15, grade: 1, max: 28, evening: 0.2 }),
  gb('hamilton', 'Hamilton', { dir: 'right', flat: 18, max: 16, evening: 0.4 }),
  gb('haydock', 'Haydock', { dir: 'left', flat: 20, jumps: 12, season: 'winter', grade: 1, max: 20 }),
  gb('hereford', 'Hereford', {
    dir: 'right',
    jumps: 14,
    season: 'winter',
    open: [
      [START, '2012-12-16'],
      ['2016-10-16', null],
    ],
  }),
  gb('hexham', 'Hexham', { dir: 'left', jumps: 15 }),
  gb('huntingdon', 'Huntingdon', { dir: 'right', jumps: 18 }),
  gb('kelso', 'Kelso', { dir: 'left', jumps: 14 }),
  gb('kempton', 'Kempton', { dir: 'right', flat: 20, jumps: 12, season: 'winter', grade: 1, flatUntil: '2005-10-31' }),
  gb('kempton-aw', 'Kempton (AW)', {
    dir: 'right',
    flat: 80,
    variant: 'AW',
    max: 14,
    grade: 2,
    open: [['2006-03-25', null]],
    surfaces: [aw('2006-03-25', 'Polytrack')],
    evening: 0.6,
  }),
  gb('leicester', 'Leicester', { dir: 'right', flat: 18, jumps: 8, season: 'winter', max: 20 }),
  gb('lingfield', 'Lingfield', { dir: 'left', flat: 12, jumps: 8, season: 'winter', max: 18 }),
  gb('lingfield-aw', 'Lingfield (AW)', {
    dir: 'left',
    flat: 75,
    variant: 'AW',
    bias: 0.1,
    max: 14,
    open: [['1989-10-30', null]],
    surfaces: [aw('1989-10-30', 'Equitrack'), aw('2001-11-24', 'Polytrack')],
    evening: 0.05,
  }),
  gb('ludlow', 'Ludlow', { dir: 'right', jumps: 14, season: 'winter' }),
  gb('market-rasen', 'Market Rasen', { dir: 'right', jumps: 20, season: 'summer' }),
  gb('musselburgh', 'Musselburgh', { dir: 'right', flat: 16, jumps: 9, season: 'winter', max: 16 }),
  gb('newbury', 'Newbury', { dir: 'left', flat: 18, jumps: 12, season: 'winter', grade: 1, max: 24 }),
  gb('newcastle', 'Newcastle', { dir: 'left', flat: 18, jumps: 14, season: 'winter', flatUntil: '2015-12-31' }),
  gb('newcastle-aw', 'Newcastle (AW)', {
    dir: 'left',
    flat: 45,
    variant: 'AW',
    max: 20,
    open: [['2016-05-03', null]],
    surfaces: [aw('2016-05-03', 'Tapeta')],
    evening: 0.3,
  }),
  gb('newmarket', 'Newmarket', { dir: 'right', flat: 20, grade: 1, max: 30 }),
  gb('newmarket-july', 'Newmarket (July)', { dir: 'right', flat: 18, grade: 1, max: 30, variant: 'July' }),
  gb('newton-abbot', 'Newton Abbot', { dir: 'left', jumps: 16, season: 'summer' }),
  gb('nottingham', 'Nottingham', { dir: 'left', flat: 22, jumps: 8, season: 'winter', jumpsUntil: '1996-03-31' }),
  gb('perth', 'Perth', { dir: 'right', jumps: 12, season: 'summer' }),
  gb('plumpton', 'Plumpton', { dir: 'left', jumps: 18, season: 'winter' }),
  gb('pontefract', 'Pontefract', { dir: 'left', flat: 16, bias: 0.25, max: 20 }),
  gb('redcar', 'Redcar', { dir: 'left', flat: 18, max: 20 }),
  gb('ripon', 'Ripon', { dir: 'right', flat: 15, max: 20 }),
  gb('salisbury', 'Salisbury', { dir: 'right', flat: 16, max: 20 }),
  gb('sandown', 'Sandown', { dir: 'right', flat: 14, jumps: 9, season: 'winter', bias: -0.2, grade: 1 }),
  gb('sedgefield', 'Sedgefield', { dir: 'left', jumps: 18 }),
  gb('southwell', 'Southwell', { dir: 'left', jumps: 14 }),
  gb('southwell-aw', 'Southwell (AW)', {
    dir: 'left',
    flat: 60,
    variant: 'AW',
    max: 16,
    open: [['1989-11-09', null]],
    surfaces: [aw('1989-11-09', 'Fibresand'), aw('2021-12-07', 'Tapeta')],
    evening: 0.15,
  }),
  gb('stratford', 'Stratford', { dir: 'left', jumps: 14, season: 'summer' }),
  gb('taunton', 'Taunton', { dir: 'right', jumps: 14, season: 'winter' }),
  gb('thirsk', 'Thirsk', { dir: 'left', flat: 14, bias: -0.15, max: 20 }),
  gb('uttoxeter', 'Uttoxeter', { dir: 'left', jumps: 20 }),
  gb('warwick', 'Warwick', { dir: 'left', flat: 10, jumps: 16, season: 'winter', flatUntil: '2014-12-31' }),
  gb('wetherby', 'Wetherby', { dir: 'left', flat: 5, jumps: 18, season: 'winter', flatFrom: '2015-04-01' }),
  gb('wincanton', 'Wincanton', { dir: 'right', jumps: 16, season: 'winter' }),
  gb('windsor', 'Windsor', { dir: 'figure-of-eight', flat: 24, jumps: 8, season: 'winter', jumpsUntil: '1998-12-31' }),
  gb('wolverhampton-aw', 'Wolverhampton (AW)', {
    dir: 'left',
    flat: 85,
    variant: 'AW',
    bias: 0.05,
    max: 13,
    open: [['1993-12-27', null]],
    surfaces: [aw('1993-12-27', 'Fibresand'), aw('2004-08-21', 'Polytrack'), aw('2014-08-11', 'Tapeta')],
    evening: 0.5,
  }),
  gb('worcester', 'Worcester', { dir: 'left', jumps: 18, season: 'summer' }),
  gb('yarmouth', 'Yarmouth', { dir: 'left', flat: 22, max: 20, evening: 0.3 }),
  gb('york', 'York', { dir: 'left', flat: 17, grade: 1, max: 22 }),
  // Closed since 1988.
  gb('folkestone', 'Folkestone', { dir: 'right', flat: 14, jumps: 10, open: [[START, '2012-12-18']] }),
  gb('great-leighs-aw', 'Great Leighs (AW)', {
    dir: 'left',
    flat: 30,
    variant: 'AW',
    max: 14,
    open: [['2008-04-20', '2009-01-12']],
    surfaces: [aw('2008-04-20', 'Polytrack')],
  }),
  gb('towcester', 'Towcester', { dir: 'right', jumps: 14, season: 'winter', open: [[START, '2018-05-20']] }),
  gb('wolverhampton', 'Wolverhampton', { dir: 'left', flat: 12, jumps: 8, open: [[START, '1993-08-31']] }),
];

/** Irish courses: the 26 current ones and Dundalk's turf track (closed 2001, rebuilt as AW in 2007). */
const IRE: CourseInfo[] = [
  ire('ballinrobe', 'Ballinrobe', { dir: 'right', flat: 4, jumps: 5, season: 'summer', evening: 0.6 }),
  ire('bellewstown', 'Bellewstown', { dir: 'left', flat: 3, jumps: 3, season: 'summer', evening: 0.6 }),
  ire('clonmel', 'Clonmel', { dir: 'right', jumps: 11, season: 'winter' }),
  ire('cork', 'Cork', { dir: 'right', flat: 8, jumps: 10 }),
  ire('curragh', 'Curragh', { dir: 'right', flat: 20, grade: 1, max: 30 }),
  ire('down-royal', 'Down Royal', { dir: 'right', flat: 4, jumps: 6, grade: 2 }),
  ire('downpatrick', 'Downpatrick', { dir: 'right', jumps: 8 }),
  ire('dundalk', 'Dundalk', { dir: 'left', flat: 10, jumps: 4, open: [[START, '2001-12-31']] }),
  ire('dundalk-aw', 'Dundalk (AW)', {
    dir: 'left',
    flat: 40,
    variant: 'AW',
    bias: 0.1,
    max: 14,
    open: [['2007-08-26', null]],
    surfaces: [aw('2007-08-26', 'Polytrack')],
    evening: 0.8,
  }),
  ire('fairyhouse', 'Fairyhouse', { dir: 'right', flat: 3, jumps: 16, season: 'winter', grade: 1 }),
  ire('galway', 'Galway', { dir: 'right', flat: 6, jumps: 8, season: 'summer', grade: 2, evening: 0.4 }),
  ire('gowran-park', 'Gowran Park', { dir: 'right', flat: 8, jumps: 8 }),
  ire('kilbeggan', 'Kilbeggan', { dir: 'right', jumps: 8, season: 'summer', evening: 0.8 }),
  ire('killarney', 'Killarney', { dir: 'left', flat: 5, jumps: 4, season: 'summer', evening: 0.6 }),
  ire('laytown', 'Laytown', {
    dir: 'straight',
    flat: 1,
    max: 16,
    surfaces: [aw(START, 'Beach sand')],
    months: [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0],
  }),
  ire('leopardstown', 'Leopardstown', { dir: 'left', flat: 14, jumps: 10, season: 'winter', grade: 1, max: 24 }),
  ire('limerick', 'Limerick', { dir: 'right', flat: 4, jumps: 14 }),
  ire('listowel', 'Listowel', { dir: 'left', flat: 4, jumps: 5, season: 'summer' }),
  ire('naas', 'Naas', { dir: 'left', flat: 10, jumps: 8, season: 'winter' }),
  ire('navan', 'Navan', { dir: 'left', flat: 7, jumps: 10, season: 'winter' }),
  ire('punchestown', 'Punchestown', { dir: 'right', jumps: 16, season: 'winter', grade: 1, max: 24 }),
  ire('roscommon', 'Roscommon', { dir: 'right', flat: 6, jumps: 4, season: 'summer', evening: 0.6 }),
  ire('sligo', 'Sligo', { dir: 'right', flat: 4, jumps: 4, season: 'summer', evening: 0.5 }),
  ire('thurles', 'Thurles', { dir: 'right', flat: 2, jumps: 9, season: 'winter' }),
  ire('tipperary', 'Tipperary', { dir: 'left', flat: 8, jumps: 6, evening: 0.4 }),
  ire('tramore', 'Tramore', { dir: 'right', flat: 3, jumps: 7 }),
  ire('wexford', 'Wexford', { dir: 'right', jumps: 10 }),
];

const SUMMER = [0, 0, 0, 1, 1.2, 1.3, 1.2, 1.2, 1.2, 1, 0, 0];
const NORTH_ALL = [0.6, 0.6, 0.8, 1, 1.2, 1.3, 1.2, 1.1, 1.1, 1, 0.9, 0.8];

/** International tracks: flat turf (and AW where the track has one); dirt racing is not generated. */
const INT: CourseInfo[] = [
  make('longchamp', 'Longchamp', 'FR', 'INT', 'Europe/Paris', {
    dir: 'right',
    flat: 30,
    grade: 1,
    open: [
      [START, '2015-10-04'],
      ['2018-04-29', null],
    ],
    months: SUMMER,
    weekdays: [0, 4, 6],
  }),
  make('chantilly', 'Chantilly', 'FR', 'INT', 'Europe/Paris', {
    dir: 'right',
    flat: 25,
    grade: 1,
    surfaces: [...turf(), aw('2011-01-10', 'Polytrack')],
    months: NORTH_ALL,
    weekdays: [1, 2, 3, 4, 5],
  }),
  make('deauville', 'Deauville', 'FR', 'INT', 'Europe/Paris', {
    dir: 'right',
    flat: 20,
    grade: 1,
    surfaces: [...turf(), aw('2003-08-01', 'Polytrack')],
    months: [0.3, 0.2, 0.2, 0.3, 0.5, 0.6, 1.5, 4, 0.5, 0.5, 0.4, 0.6],
  }),
  make('saint-cloud', 'Saint-Cloud', 'FR', 'INT', 'Europe/Paris', {
    dir: 'left',
    flat: 22,
    grade: 2,
    months: [0, 0, 0.8, 1, 1.2, 1.2, 1.2, 0.3, 1, 1.2, 1, 0],
    weekdays: [1, 3, 4, 5],
  }),
  make('auteuil', 'Auteuil', 'FR', 'INT', 'Europe/Paris', {
    dir: 'left',
    jumps: 25,
    grade: 1,
    months: [0, 0, 1.2, 1.3, 1.4, 1.2, 0, 0, 1, 1.3, 1.3, 1.2],
    weekdays: [0, 2, 3, 5, 6],
  }),
  make('nad-al-sheba', 'Nad Al Sheba', 'UAE', 'INT', 'Asia/Dubai', {
    dir: 'left',
    flat: 12,
    grade: 2,
    open: [['1992-01-01', '2009-12-31']],
    months: [2, 2, 2, 0.5, 0, 0, 0, 0, 0, 0, 0.5, 1],
    weekdays: [4, 5],
  }),
  make('meydan', 'Meydan', 'UAE', 'INT', 'Asia/Dubai', {
    dir: 'left',
    flat: 14,
    grade: 1,
    open: [['2010-01-28', null]],
    surfaces: [...turf('2010-01-28'), aw('2010-01-28', 'Tapeta'), aw('2014-11-01', 'Dirt')],
    months: [2, 2, 2, 0.5, 0, 0, 0, 0, 0, 0, 0.5, 1],
    weekdays: [4, 5, 6],
    evening: 1,
  }),
  make('belmont-park', 'Belmont Park', 'USA', 'INT', 'America/New_York', {
    dir: 'left',
    flat: 12,
    grade: 1,
    months: [0, 0, 0, 0, 1.2, 1.5, 1, 0, 0.8, 1, 0, 0],
    weekdays: [0, 4, 5, 6],
  }),
  make('santa-anita', 'Santa Anita', 'USA', 'INT', 'America/Los_Angeles', {
    dir: 'left',
    flat: 10,
    grade: 1,
    months: [1.2, 1.2, 1.2, 1.2, 1, 0.8, 0, 0, 0, 1, 1.2, 1.2],
    weekdays: [0, 5, 6],
  }),
  make('flemington', 'Flemington', 'AUS', 'INT', 'Australia/Melbourne', {
    dir: 'left',
    flat: 12,
    grade: 1,
    months: [0.8, 1, 1, 0.8, 0.6, 0.6, 0.6, 0.6, 0.8, 1.2, 2.5, 0.8],
    weekdays: [2, 4, 6],
  }),
  make('randwick', 'Randwick', 'AUS', 'INT', 'Australia/Sydney', {
    dir: 'right',
    flat: 12,
    grade: 1,
    months: [0.8, 0.8, 1, 1.8, 1, 0.8, 0.6, 0.6, 0.8, 1.4, 0.8, 0.8],
    weekdays: [6],
  }),
  make('sha-tin', 'Sha Tin', 'HK', 'INT', 'Asia/Hong_Kong', {
    dir: 'right',
    flat: 10,
    grade: 1,
    max: 14,
    surfaces: [...turf(), aw('1989-10-01', 'All-weather (dirt)')],
    months: [1, 1, 1, 1, 1, 1, 0.5, 0, 1, 1, 1, 1.2],
    weekdays: [0, 6],
  }),
  make('happy-valley', 'Happy Valley', 'HK', 'INT', 'Asia/Hong_Kong', {
    dir: 'right',
    flat: 8,
    grade: 2,
    max: 12,
    months: [1, 1, 1, 1, 1, 1, 0.5, 0, 1, 1, 1, 1],
    weekdays: [3],
    evening: 1,
  }),
  make('tokyo', 'Tokyo', 'JPN', 'INT', 'Asia/Tokyo', {
    dir: 'left',
    flat: 8,
    grade: 1,
    max: 18,
    months: [0, 1.5, 0, 1, 2, 1.5, 0, 0, 0, 1.5, 2, 0],
    weekdays: [0, 6],
  }),
];

/** Every course the generator knows, in a fixed order. */
export const COURSES: readonly CourseInfo[] = Object.freeze([...GB, ...IRE, ...INT]);

const BY_CODE = new Map(COURSES.map((c) => [c.code, c]));

/** The course with that code, or undefined. */
export function courseByCode(code: string): CourseInfo | undefined {
  return BY_CODE.get(code);
}

/** The stable course id of a generator course. */
export function courseIdOf(code: string): string {
  return makeId('course', 'gen:course:' + code);
}

/** Disciplines a course stages (over its whole history). */
export function courseDisciplines(c: CourseInfo): Discipline[] {
  const out: Discipline[] = [];
  if (c.flat > 0) out.push('flat');
  if (c.jumps > 0) out.push('hurdle', 'chase');
  if (c.jumps > 0 && c.country !== 'FR') out.push('nh-flat');
  return out;
}

/** Flat only, jumps only or mixed. */
export function courseStaging(c: CourseInfo): 'flat' | 'jumps' | 'mixed' {
  if (c.flat > 0 && c.jumps > 0) return 'mixed';
  return c.flat > 0 ? 'flat' : 'jumps';
}
