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
 * A WindowCounts to pass as `out` to `WindowSource.window`, with room for `width` sums: a feature keeps
 * one per window it reads and every row reuses it, so the ~15 queries of a row allocate nothing (9%
 * fewer scavenges in the engine bench, docs/performance-history.md).
 */
export function windowCounts(width: number): WindowCounts {
  return { n: 0, sums: new Array<number>(width).fill(0), latestVisible: 0 };
}

/** Zeroes the count, the first `width` sums and latestVisible of a caller's WindowCounts; returns it. */
export function resetCounts(out: WindowCounts, width: number): WindowCounts {
  out.n = 0;
  const sums = out.sums;
  for (let d = 0; d < width; d++) sums[d] = 0;
  out.latestVisible = 0;
  return out;
}

/**
 * The history of a key that is known (the card names it) but has no visible event yet: every window is
 * empty. Distinct from no key at all (undefined), which gets the family's unknown values.
 */
export const EMPTY_HISTORY: WindowSource = {
  window: (_from, _t, out) => {
    if (!out) return { n: 0, sums: ZEROS as number[], latestVisible: 0 };
    return resetCounts(out, out.sums.length);
  },
  lastOffWith: () => undefined,
  windowTagged: (_from, _t, _space, _a, _b, out) => {
    if (!out) return { n: 0, sums: ZEROS as number[], latestVisible: 0 };
    return resetCounts(out, out.sums.length);
  },
};

/**
 * How much of the calendar one stored chunk of an entity's index holds (`ChunkedIndex`'s `period`): a UTC
 * month, or a UTC year for a kind whose keys are sparse.
 */
export type ChunkPeriod = 'month' | 'year';

/**
 * A second key's tag carried in every event of a parent key's index (tags.ts), so that the composite
 * key (parent, second key) is answered from the parent's own index: the jockey's events carry their
 * course's tag (jockey+course), the trainer's their course's and their jockey's (trainer+course,
 * trainer+jockey). An index may carry several (one per composite).
 */
export interface TagSpace {
  /** the first of the two vector dimensions holding the tag */
  readonly dim: number;
  /** the vector dimensions a tagged window sums, in this order (its `sums[0]`, `sums[1]`, ...) */
  readonly dims: readonly number[];
}

/** Anything answering window queries: an EventIndex or a ChunkedIndex. */
export interface WindowSource {
  /**
   * The counts over [fromOff, t) visible at t. With `out` (sums long enough for the source's width),
   * writes them into it and returns it: valid until `out` is passed again.
   */
  window(fromOff: number, t: number, out?: WindowCounts): WindowCounts;
  /**
   * The off of the latest event off before t and visible at t whose vector has dimension `dim` > 0
   * (e.g. the last winner); -Infinity when it is off before `horizon` (the exact off is not needed
   * there); undefined when there is none.
   */
  lastOffWith?(dim: number, t: number, horizon: number): number | undefined;
  /**
   * The counts over [fromOff, t) visible at t of the events whose tag in `space` is (a, b) (a composite
   * key answered from its parent's index: tags.ts); `out.sums` gets the space's dimensions, in its order,
   * and latestVisible is the latest visibleAt among the events counted. The source must carry the space.
   */
  windowTagged?(fromOff: number, t: number, space: TagSpace, a: number, b: number, out?: WindowCounts): WindowCounts;
}
