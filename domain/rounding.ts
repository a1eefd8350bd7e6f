/**
 * Rounds half away from zero to `dp` decimal places (features.md, "Rounding and number format").
 *
 * Binary floating point puts some exact halves just below the half (19.85 is computed as
 * 19.849999999999998), which plain rounding would send down. Every value rounded here is a rational
 * whose distance from a true half, once scaled, is either 0 or far above 1e-9 (run figures and rates
 * have small denominators), while float noise is far below it, so nudging by 1e-9 restores the exact
 * decimal result.
 */
export function roundHalfAway(x: number, dp: number): number {
  const f = 10 ** dp;
  const r = Math.round(Math.abs(x) * f + 1e-9) / f;
  return x < 0 ? -r || 0 : r;
}

/** Rates and scores: 4 decimal places. */
export const round4 = (x: number): number => roundHalfAway(x, 4);
/** Run figures and vpr: 0.1. */
export const round1 = (x: number): number => roundHalfAway(x, 1);
/** Starting prices, level stakes and beaten lengths (catalogue.md): 2 decimal places. */
export const round2 = (x: number): number => roundHalfAway(x, 2);
