/**
 * All six horse-history families of catalogue.md (C, D, E, F, G, N: 79 fields) from one pass over
 * the horse's visible history, into one object. This is the entry point for the engine; the
 * per-family functions in horse-form.ts and horse-changes.ts are the same writers over their own
 * scan, for callers (and tests) that want one family.
 */
import type { HorseRun, TodayContext } from './horse.js';
import {
  type ConfirmedVpr,
  HORSE_FORM_FIELDS,
  HORSE_MARKET_FIELDS,
  HORSE_RATING_FIELDS,
  type HorseFormFeatures,
  type HorseMarketFeatures,
  type HorseRatingFeatures,
  writeHorseForm,
  writeHorseMarket,
  writeHorseRatings,
} from './horse-form.js';
import {
  HORSE_CHANGE_FIELDS,
  HORSE_CONDITION_FIELDS,
  HORSE_EQUIPMENT_FIELDS,
  type HorseChangeFeatures,
  type HorseConditionFeatures,
  type HorseEquipmentFeatures,
  writeHorseChanges,
  writeHorseConditions,
  writeHorseEquipment,
} from './horse-changes.js';
import { scanHistory } from './horse-scan.js';

export type HorseCatalogue = HorseFormFeatures &
  HorseRatingFeatures &
  HorseChangeFeatures &
  HorseEquipmentFeatures &
  HorseConditionFeatures &
  HorseMarketFeatures;

/** The 79 field names in row order: C, D, E, F, G, N. */
export const HORSE_CATALOGUE_FIELDS = [
  ...HORSE_FORM_FIELDS,
  ...HORSE_RATING_FIELDS,
  ...HORSE_CHANGE_FIELDS,
  ...HORSE_EQUIPMENT_FIELDS,
  ...HORSE_CONDITION_FIELDS,
  ...HORSE_MARKET_FIELDS,
] as const;

/**
 * Families C, D, E, F, G and N for a race off at today.off.
 *
 * `runs` is the horse's full run list sorted by (off, raceId) ascending, as the engine stores it and
 * as horseFeatures takes it (NOT an already filtered newest-first history): the pass skips the runs
 * not visible at today.off itself. `confirmed` is horseFeatures' result for the same row (family D's
 * vprMinusOfficialRating reads its vpr and vprConfidence). `out` lets the caller reuse or provide
 * the target; by default a new object. Every field of the six families is written, always in the
 * same order, so the objects share one shape.
 */
export function horseCatalogue(
  runs: readonly HorseRun[],
  today: TodayContext,
  confirmed: ConfirmedVpr,
  out: HorseCatalogue = {} as HorseCatalogue,
): HorseCatalogue {
  const s = scanHistory(runs, today);
  writeHorseForm(out, s, today);
  writeHorseRatings(out, s, today, confirmed);
  writeHorseChanges(out, s, today);
  writeHorseEquipment(out, s, today);
  writeHorseConditions(out, s);
  writeHorseMarket(out, s);
  return out;
}
