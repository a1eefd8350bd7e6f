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
import { fmix32 } from '../../domain/hash.js';
import { TAG_TOTAL_HEAD } from './event-index.js';

/** A month's totals per tag of one space: [a, b, count, latest visibleAt, sums] per tag (`EventIndex.tagTotals`). */
export type MonthTags = ArrayLike<number>;

// Each entry of a tag's array: the month's first instant, the tag's count and latest visibleAt in it,
// then its sums.
const START = 0;
const N = 1;
const LATEST = 2;
const SUMS = 3;

/** The table's slots when empty; it is at most half full (then it doubles). */
const MIN_SLOTS = 16;

export class TagSeries {
  /** doubles per entry */
  private readonly stride: number;
  /**
   * The tags held, in an open-addressed table (linear probing): each slot holds its tag's position + 1
   * in `lists` (0: an empty slot), and the tag's two doubles are `tagA` and `tagB` at that position. A
   * tag is two doubles of up to 50 bits, never a small integer, so a `Map` of `Map`s boxed and hashed
   * both at every lookup (docs/performance-history.md, the thirty-first session).
   */
  private slotList = new Int32Array(MIN_SLOTS);
  /** each tag's entries, in month order; a tag whose months were all dropped keeps an empty list */
  private lists: number[][] = [];
  /** each list's tag: its two doubles */
  private tagA: number[] = [];
  private tagB: number[] = [];
  /** how many of `lists` are empty: the table is made again without them when they are half of it */
  private emptyLists = 0;
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
    this.clearTags(MIN_SLOTS);
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
    for (const e of this.lists) {
      if (e.length === 0) continue;
      let len = e.length;
      while (len > 0 && e[len - S + START]! >= stale) len -= S;
      e.length = len;
      if (len === 0) this.emptyLists++;
    }
    this.compact();
    this.upTo = Math.min(this.upTo, stale);
  }

  /** Drops the months starting before `start` (the windows asked no longer reach them). */
  trimBefore(start: number): void {
    if (start <= this.from) return;
    const S = this.stride;
    for (const e of this.lists) {
      if (e.length === 0) continue;
      let k = 0;
      while (k < e.length && e[k + START]! < start) k += S;
      if (k === e.length) {
        e.length = 0;
        this.emptyLists++;
      } else if (k > 0) e.splice(0, k);
    }
    this.compact();
    this.from = start;
  }

  /** Appends a month (later than every month held) with its totals per tag; `end` is its month's end. */
  append(start: number, end: number, tags: MonthTags): void {
    const k = this.sums;
    const T = TAG_TOTAL_HEAD + k;
    for (let q = 0; q < tags.length; q += T) {
      const e = this.listOf(tags[q]!, tags[q + 1]!);
      if (e.length === 0) this.emptyLists--;
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
    const at = this.find(a, b);
    if (at < 0) return out;
    const e = this.lists[at]!;
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

  /** The first slot of tag (a, b)'s probe sequence. */
  private home(a: number, b: number): number {
    // (each double's low 32 bits: exact for integers below 2^53)
    return fmix32((a | 0) ^ Math.imul(b | 0, 0x9e3779b1)) & (this.slotList.length - 1);
  }

  /** The slot holding tag (a, b), or the empty slot where its probe sequence ends when it is not held. */
  private probe(a: number, b: number): number {
    const slots = this.slotList;
    const { tagA, tagB } = this;
    const mask = slots.length - 1;
    let i = this.home(a, b);
    for (let at = slots[i]!; at !== 0 && (tagA[at - 1] !== a || tagB[at - 1] !== b); at = slots[i]!) i = (i + 1) & mask;
    return i;
  }

  /** The position in `lists` of tag (a, b), -1 when it is not held. */
  private find(a: number, b: number): number {
    return this.slotList[this.probe(a, b)]! - 1;
  }

  /** The list of tag (a, b), made (empty, and counted so) when it is not held. */
  private listOf(a: number, b: number): number[] {
    let i = this.probe(a, b);
    if (this.slotList[i] !== 0) return this.lists[this.slotList[i]! - 1]!;
    if (2 * (this.lists.length + 1) > this.slotList.length) {
      this.rehash(2 * this.slotList.length);
      i = this.probe(a, b);
    }
    const e: number[] = [];
    this.add(a, b, e, i);
    this.emptyLists++;
    return e;
  }

  /** Appends list `e` of tag (a, b) and puts the tag in slot `i` (free, where its probe sequence ends). */
  private add(a: number, b: number, e: number[], i: number): void {
    this.lists.push(e);
    this.tagA.push(a);
    this.tagB.push(b);
    this.slotList[i] = this.lists.length;
  }

  /** Makes the table again with `slots` slots for the tags held (without the empty lists when `dropEmpty`). */
  private rehash(slots: number, dropEmpty = false): void {
    const { lists, tagA, tagB } = this;
    this.clearTags(slots);
    for (let j = 0; j < lists.length; j++) {
      const e = lists[j]!;
      if (e.length === 0) {
        if (dropEmpty) continue;
        this.emptyLists++;
      }
      this.add(tagA[j]!, tagB[j]!, e, this.probe(tagA[j]!, tagB[j]!));
    }
  }

  /** Forgets the tags whose lists are empty once they are half of those held. */
  private compact(): void {
    if (this.emptyLists === 0 || 2 * this.emptyLists < this.lists.length) return;
    let slots = MIN_SLOTS;
    while (2 * (this.lists.length - this.emptyLists) > slots) slots *= 2;
    this.rehash(slots, true);
  }

  /** An empty table of `slots` slots (the same arrays when they have as many) and no lists. */
  private clearTags(slots: number): void {
    if (this.slotList.length === slots) this.slotList.fill(0);
    else this.slotList = new Int32Array(slots);
    this.lists = [];
    this.tagA = [];
    this.tagB = [];
    this.emptyLists = 0;
  }
}
