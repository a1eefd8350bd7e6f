/**
 * One tag space's whole-month totals of an index, transposed: for each tag, the totals of the months
 * that hold it, in month order, in one array. A tagged window adds its whole months' totals (ChunkedIndex
 * `windowTagged`); read from each month's list of tags, a five-year window walked sixty lists of up to a
 * hundred tags each, scattered over the heap, to find one tag in each. Here it binary-searches one
 * short array and adds the entries between the window's first and last whole month, the same additions
 * in the same order as the walk (a month without the tag adds nothing), so the same bits.
 *
 * The series holds the months that start in [from, upTo), appended as queries reach them; a change to a
 * month it holds (`changed`) drops that month and every later one from it at the next query, and the
 * months before the windows asked lately are dropped as the windows move on (`trimBefore`), so it holds
 * about as many months as the space's window reaches.
 */
import { TAG_TOTAL_HEAD } from './event-index.js';

/** A month's totals per tag of one space: [a, b, count, latest visibleAt, sums] per tag (`EventIndex.tagTotals`). */
export type MonthTags = ArrayLike<number>;

// Each entry of a tag's array: the month's first instant, the tag's count and latest visibleAt in it,
// then its sums.
const START = 0;
const N = 1;
const LATEST = 2;
const SUMS = 3;

export class TagSeries {
  /** doubles per entry */
  private readonly stride: number;
  /** entries per tag: by the tag's first double, then its second */
  private readonly byTag = new Map<number, Map<number, number[]>>();
  /** the months held start in [from, upTo); none when from >= upTo */
  from = Number.POSITIVE_INFINITY;
  upTo = Number.NEGATIVE_INFINITY;
  /** the first instant of the earliest month held that changed since (+Infinity: none) */
  private stale = Number.POSITIVE_INFINITY;

  constructor(
    /** the space's sums per tag */
    readonly sums: number,
  ) {
    this.stride = SUMS + sums;
  }

  /** Whether it holds every month starting in [start, lastStart]. */
  holds(start: number, lastStart: number): boolean {
    return this.from <= start && lastStart < this.upTo && this.stale > lastStart;
  }

  /** The totals of the month starting at `start` changed (or it was added): it is read again when needed. */
  changed(start: number): void {
    if (start < this.upTo && start < this.stale) this.stale = start;
  }

  /** Empties it and makes it hold the months from `start` on (none yet). */
  reset(start: number): void {
    this.byTag.clear();
    this.from = start;
    this.upTo = start;
    this.stale = Number.POSITIVE_INFINITY;
  }

  /** Drops the months that changed and every later one (see `changed`), so they are appended again. */
  dropStale(): void {
    const stale = this.stale;
    if (stale === Number.POSITIVE_INFINITY) return;
    this.stale = Number.POSITIVE_INFINITY;
    if (stale <= this.from) {
      this.reset(this.from);
      return;
    }
    const S = this.stride;
    for (const inner of this.byTag.values()) {
      for (const [b, e] of inner) {
        let len = e.length;
        while (len > 0 && e[len - S + START]! >= stale) len -= S;
        if (len === 0) inner.delete(b);
        else e.length = len;
      }
    }
    this.upTo = Math.min(this.upTo, stale);
  }

  /** Drops the months starting before `start` (the windows asked no longer reach them). */
  trimBefore(start: number): void {
    if (start <= this.from) return;
    const S = this.stride;
    for (const [a, inner] of this.byTag) {
      for (const [b, e] of inner) {
        let k = 0;
        while (k < e.length && e[k + START]! < start) k += S;
        if (k === e.length) inner.delete(b);
        else if (k > 0) e.splice(0, k);
      }
      if (inner.size === 0) this.byTag.delete(a);
    }
    this.from = start;
  }

  /** Appends a month (later than every month held) with its totals per tag; `end` is its month's end. */
  append(start: number, end: number, tags: MonthTags): void {
    const k = this.sums;
    const T = TAG_TOTAL_HEAD + k;
    for (let q = 0; q < tags.length; q += T) {
      const a = tags[q]!;
      const b = tags[q + 1]!;
      let inner = this.byTag.get(a);
      if (!inner) this.byTag.set(a, (inner = new Map()));
      let e = inner.get(b);
      if (!e) inner.set(b, (e = []));
      e.push(start, tags[q + 2]!, tags[q + 3]!);
      for (let d = 0; d < k; d++) e.push(tags[q + TAG_TOTAL_HEAD + d]!);
    }
    this.upTo = end;
  }

  /**
   * The totals of tag (a, b) over the months held starting in [start, lastStart], added from zero in
   * month order: written into `out` ([n, latest, sums...]), which it returns.
   */
  sum(a: number, b: number, start: number, lastStart: number, out: number[]): number[] {
    out.fill(0);
    out[1] = Number.NEGATIVE_INFINITY;
    const e = this.byTag.get(a)?.get(b);
    if (!e) return out;
    const S = this.stride;
    // the first entry starting at or after `start`
    let lo = 0;
    let hi = e.length / S;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (e[mid * S + START]! < start) lo = mid + 1;
      else hi = mid;
    }
    const k = this.sums;
    for (let o = lo * S; o < e.length && e[o + START]! <= lastStart; o += S) {
      out[0]! += e[o + N]!;
      if (e[o + LATEST]! > out[1]!) out[1] = e[o + LATEST]!;
      for (let d = 0; d < k; d++) out[2 + d]! += e[o + SUMS + d]!;
    }
    return out;
  }
}
