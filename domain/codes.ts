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
  };
}
