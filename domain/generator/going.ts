/**
 * Going: a latent wetness per meeting (0 firm .. 1 heavy) from the month, the region and the day's
 * weather, read out on the official scale (Irish courses use the Yielding grades). AW tracks report the
 * Standard family. All strings are from the GOINGS table in domain/codes.ts.
 */
import type { CourseInfo } from '../courses.js';
import type { Rng } from './prng.js';

/** Mean turf wetness by month, Britain and Ireland. */
const SEASON_WET = [0.66, 0.66, 0.58, 0.47, 0.4, 0.33, 0.31, 0.35, 0.4, 0.5, 0.6, 0.65];

export function meetingWetness(rng: Rng, course: CourseInfo, month: number): number {
  let mean = SEASON_WET[month]!;
  if (course.region === 'IRE') mean += 0.05;
  if (course.region === 'INT') mean = ['UAE', 'AUS', 'HK', 'USA'].includes(course.country) ? 0.3 : mean - 0.05;
  return Math.min(1, Math.max(0, mean + 0.15 * rng.normal()));
}

const GB_SCALE: readonly [number, string][] = [
  [0.05, 'Hard'],
  [0.17, 'Firm'],
  [0.31, 'Good To Firm'],
  [0.45, 'Good'],
  [0.57, 'Good To Soft'],
  [0.7, 'Soft'],
  [0.8, 'Soft To Heavy'],
  [2, 'Heavy'],
];

const IRE_SCALE: readonly [number, string][] = [
  [0.05, 'Hard'],
  [0.17, 'Firm'],
  [0.3, 'Good To Firm'],
  [0.42, 'Good'],
  [0.5, 'Good To Yielding'],
  [0.58, 'Yielding'],
  [0.66, 'Yielding To Soft'],
  [0.76, 'Soft'],
  [0.85, 'Soft To Heavy'],
  [2, 'Heavy'],
];

/** The official turf going for a wetness. */
export function turfGoing(course: CourseInfo, wet: number): string {
  const scale = course.region === 'IRE' ? IRE_SCALE : GB_SCALE;
  for (const [upTo, going] of scale) if (wet < upTo) return going;
  return 'Heavy';
}

const AW_GOINGS = ['Standard', 'Standard To Slow', 'Standard To Fast', 'Slow', 'Fast'] as const;
const AW_WEIGHTS = [0.82, 0.1, 0.055, 0.02, 0.005];

/** An all-weather going (Standard most days). */
export function awGoing(rng: Rng): string {
  return AW_GOINGS[rng.weighted(AW_WEIGHTS)]!;
}

/** Pace effect of the going on winning times: heavy ground is about 8% slower than good. */
export function goingSlowdown(surface: string, wet: number, going: string): number {
  if (surface === 'aw') return going.includes('Slow') ? 1.02 : going.includes('Fast') ? 0.99 : 1;
  return 1 + 0.16 * (wet - 0.4);
}
