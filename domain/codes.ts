/**
 * Enum code tables of the analytics row. 0 always means unknown. Published by the API's data dictionary;
 * codes are never reused or renumbered (new values get new codes).
 */

export const DISCIPLINES = ['flat', 'hurdle', 'chase', 'nh-flat'] as const;
export type Discipline = (typeof DISCIPLINES)[number];

export const SURFACES = ['turf', 'aw'] as const;
export type Surface = (typeof SURFACES)[number];

export const DISTANCE_BUCKETS = ['sprint', 'mile', 'middle', 'staying'] as const;
export type DistanceBucket = (typeof DISTANCE_BUCKETS)[number];

/** Going descriptions, turf then all-weather, each with its code. */
export const GOINGS = [
  'Hard',
  'Firm',
  'Good To Firm',
  'Good',
  'Good To Yielding',
  'Good To Soft',
  'Yielding',
  'Yielding To Soft',
  'Soft',
  'Soft To Heavy',
  'Heavy',
  'Fast',
  'Standard To Fast',
  'Standard',
  'Standard To Slow',
  'Slow',
] as const;

function codeOf<T extends string>(table: readonly T[], value: string): number {
  const i = table.indexOf(value as T);
  return i < 0 ? 0 : i + 1;
}

export const disciplineCode = (d: string): number => codeOf(DISCIPLINES, d);
export const surfaceCode = (s: string): number => codeOf(SURFACES, s);
export const distanceBucketCode = (b: string): number => codeOf(DISTANCE_BUCKETS, b);

/** Going code, matched case-insensitively; 0 for anything not in the table. */
export function goingCode(going: string): number {
  const g = going.trim().toLowerCase();
  const i = GOINGS.findIndex((x) => x.toLowerCase() === g);
  return i < 0 ? 0 : i + 1;
}

/** features.md distance buckets (yards): sprint < 1540; mile 1540..2199; middle 2200..2859; staying >= 2860. */
export function distanceBucket(yards: number): DistanceBucket {
  if (yards < 1540) return 'sprint';
  if (yards < 2200) return 'mile';
  if (yards < 2860) return 'middle';
  return 'staying';
}

/** The code tables as published by the data dictionary. */
export function codeTables(): Record<string, Record<string, string>> {
  const table = (values: readonly string[]) =>
    Object.fromEntries([['0', 'unknown'], ...values.map((v, i) => [String(i + 1), v])]);
  return {
    disciplineCode: table(DISCIPLINES),
    surfaceCode: table(SURFACES),
    distanceBucketCode: table(DISTANCE_BUCKETS),
    goingCode: table(GOINGS),
    goingGroupCode: table(GOING_GROUPS),
    patternCode: Object.fromEntries([
      ['0', 'unknown'],
      ['1', 'not black type'],
      ['2', 'listed'],
      ['3', 'group 3 / grade 3'],
      ['4', 'group 2 / grade 2'],
      ['5', 'group 1 / grade 1'],
    ]),
    sexCode: table(SEXES.map((x) => `${x} (${SEX_NAMES[x]})`)),
    courseDirectionCode: table(['left-handed', 'right-handed', 'straight only', 'figure of eight']),
    drawThirdCode: table(['low', 'middle', 'high']),
  };
}

// ---- catalogue.md code tables ----

/** catalogue.md "Going group": 1 firm, 2 good, 3 soft, 4 heavy, 5 AW standard or faster, 6 AW slow. */
export const GOING_GROUPS = ['firm', 'good', 'soft', 'heavy', 'aw-standard-or-faster', 'aw-slow'] as const;
const GOING_GROUP_OF: Readonly<Record<string, number>> = {
  hard: 1,
  firm: 1,
  'good to firm': 1,
  good: 2,
  'good to yielding': 2,
  'good to soft': 3,
  yielding: 3,
  'yielding to soft': 3,
  soft: 3,
  'soft to heavy': 4,
  heavy: 4,
  fast: 5,
  'standard to fast': 5,
  standard: 5,
  'standard to slow': 6,
  slow: 6,
};

/** Going group code of a going description (case-insensitive); 0 unknown. */
export function goingGroupCode(going: string): number {
  return GOING_GROUP_OF[going.trim().toLowerCase()] ?? 0;
}

/** Card `pattern` values and their patternCode (catalogue.md A): '' unknown = 0. */
export const PATTERNS = ['none', 'listed', 'group3', 'group2', 'group1'] as const;
export type Pattern = (typeof PATTERNS)[number] | '';
export const patternCode = (p: string): number => codeOf(PATTERNS, p);

/** Runner `sex` values and their sexCode (catalogue.md B): '' unknown = 0. */
export const SEXES = ['c', 'f', 'g', 'm', 'h', 'r'] as const;
export type Sex = (typeof SEXES)[number] | '';
export const SEX_NAMES: Readonly<Record<(typeof SEXES)[number], string>> = {
  c: 'colt',
  f: 'filly',
  g: 'gelding',
  m: 'mare',
  h: 'horse (entire, 4yo+)',
  r: 'rig',
};
export const sexCode = (s: string): number => codeOf(SEXES, s);

/** Course direction code of the course record (catalogue.md A): 0 unknown. */
export const DIRECTIONS = ['left', 'right', 'straight', 'figure-of-eight'] as const;
export const courseDirectionCode = (d: string): number => codeOf(DIRECTIONS, d);

/** Headgear codes in canonical order (catalogue.md "Headgear"). */
export const HEADGEAR_CODES = ['b', 'v', 'h', 'p', 't', 'e'] as const;
export const HEADGEAR_NAMES: Readonly<Record<(typeof HEADGEAR_CODES)[number], string>> = {
  b: 'blinkers',
  v: 'visor',
  h: 'hood',
  p: 'cheekpieces',
  t: 'tongue strap',
  e: 'eye shield or eye cover',
};

/**
 * Canonical headgear text: the distinct known codes in the order b, v, h, p, t, e. Accepts the results
 * files' spellings: 'e/s' is e, a first-time marker digit ('t1') is dropped, separators and case are
 * ignored; unknown letters are dropped.
 */
export function canonicalHeadgear(raw: string): string {
  const s = raw.toLowerCase().replace(/e\/s/g, 'e');
  let out = '';
  for (const c of HEADGEAR_CODES) if (s.includes(c)) out += c;
  return out;
}

/** Draw third (catalogue.md): 0 low, 1 middle, 2 high for rank r (1-based) of n drawn runners. */
export function drawThird(r: number, n: number): number {
  return Math.floor(((r - 1) * 3) / n);
}
