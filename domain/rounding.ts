/** Rounds half away from zero to `dp` decimal places (features.md, "Rounding and number format"). */
export function roundHalfAway(x: number, dp: number): number {
  const f = 10 ** dp;
  const r = Math.round(Math.abs(x) * f) / f;
  return x < 0 ? -r || 0 : r;
}

/** Rates and scores: 4 decimal places. */
export const round4 = (x: number): number => roundHalfAway(x, 4);
/** Run figures and vpr: 0.1. */
export const round1 = (x: number): number => roundHalfAway(x, 1);
