/**
 * What a feature reads from one entity key's rolling aggregate: counts and sums over a window of its
 * events as visible at an instant. Implemented in state/ (EventIndex, ChunkedIndex); defined here so
 * that features depend on nothing above domain/.
 */

export interface WindowCounts {
  /** number of visible events in the window */
  n: number;
  /** sums of each vector dimension over those events */
  sums: number[];
  /** the latest visibleAt among all events visible at T (whole history), or 0 */
  latestVisible: number;
}

const ZEROS: readonly number[] = new Array<number>(64).fill(0);

/**
 * The history of a key that is known (the card names it) but has no visible event yet: every window is
 * empty. Distinct from no key at all (undefined), which gets the family's unknown values.
 */
export const EMPTY_HISTORY: WindowSource = {
  window: () => ({ n: 0, sums: ZEROS as number[], latestVisible: 0 }),
  lastOffWith: () => undefined,
};

/** Anything answering window queries: an EventIndex or a ChunkedIndex. */
export interface WindowSource {
  window(fromOff: number, t: number): WindowCounts;
  /**
   * The off of the latest event off before t and visible at t whose vector has dimension `dim` > 0
   * (e.g. the last winner); -Infinity when it is off before `horizon` (the exact off is not needed
   * there); undefined when there is none.
   */
  lastOffWith?(dim: number, t: number, horizon: number): number | undefined;
}
