/**
 * A rolling aggregate for one entity key (a jockey, a trainer, a sire, a course snapshot key): its
 * events sorted by off time, each with a small numeric vector (e.g. [win] or [win, placed]) and the
 * instant it became visible. Cumulative sums over the vectors make "as of T" and "window [T - d, T)"
 * queries O(log n + k) instead of a rescan of the history, where k is the handful of events off before
 * T whose result was published at or after T (the point-in-time correction).
 *
 * `visibleAt` is max(result publishedAt, offTime): under features.md an event Q counts for a race off
 * at T iff Q.off < T and Q.published < T, which is exactly visibleAt < T.
 */

export interface WindowCounts {
  /** number of visible events in the window */
  n: number;
  /** sums of each vector dimension over those events */
  sums: number[];
  /** the latest visibleAt among all events visible at T (whole history), or 0 */
  latestVisible: number;
}

export interface EventIndexJson {
  w: number;
  k: string[];
  o: number[];
  v: number[];
  x: number[];
}

export class EventIndex {
  readonly width: number;
  private readonly keys: string[] = [];
  private readonly offs: number[] = [];
  private readonly visible: number[] = [];
  private readonly vecs: number[] = [];
  /** cum[(i) * width + d] = sum of dimension d over events [0, i) */
  private cum: number[];
  /** first event index whose cumulative sums are stale */
  private cumValidTo = 0;
  /** visibleAt values sorted ascending (for latestVisible) */
  private readonly visSorted: number[] = [];
  /** max(visibleAt - off) over events: bounds the point-in-time correction scan */
  private maxLag = 0;
  private readonly where = new Map<string, number>();

  constructor(width: number) {
    this.width = width;
    this.cum = new Array<number>(width).fill(0);
  }

  get size(): number {
    return this.keys.length;
  }

  /** Inserts or replaces the event with this key (e.g. a raceId). */
  upsert(key: string, off: number, visibleAt: number, vec: readonly number[]): void {
    if (this.where.has(key)) this.remove(key);
    const n = this.keys.length;
    const last = n - 1;
    // Replays arrive mostly in off order: append without a search when the event sorts last.
    const i =
      n === 0 || this.offs[last]! < off || (this.offs[last] === off && this.keys[last]! <= key)
        ? n
        : upperBound(this.offs, off, this.keys, key);
    if (i === n) {
      this.keys.push(key);
      this.offs.push(off);
      this.visible.push(visibleAt);
      for (let d = 0; d < this.width; d++) this.vecs.push(vec[d] ?? 0);
    } else {
      this.keys.splice(i, 0, key);
      this.offs.splice(i, 0, off);
      this.visible.splice(i, 0, visibleAt);
      this.vecs.splice(i * this.width, 0, ...vec.slice(0, this.width));
    }
    this.where.set(key, off);
    const vs = this.visSorted;
    if (vs.length === 0 || vs[vs.length - 1]! <= visibleAt) vs.push(visibleAt);
    else vs.splice(lowerBoundNum(vs, visibleAt), 0, visibleAt);
    if (visibleAt - off > this.maxLag) this.maxLag = visibleAt - off;
    if (i < this.cumValidTo) this.cumValidTo = i;
  }

  /** Removes the event with this key; no-op when absent. Returns whether it was present. */
  remove(key: string): boolean {
    const off = this.where.get(key);
    if (off === undefined) return false;
    let i = lowerBoundNum(this.offs, off);
    while (i < this.keys.length && this.keys[i] !== key) i++;
    const vis = this.visible[i]!;
    this.keys.splice(i, 1);
    this.offs.splice(i, 1);
    this.visible.splice(i, 1);
    this.vecs.splice(i * this.width, this.width);
    this.where.delete(key);
    this.visSorted.splice(lowerBoundNum(this.visSorted, vis), 1);
    if (i < this.cumValidTo) this.cumValidTo = i;
    return true;
  }

  has(key: string): boolean {
    return this.where.has(key);
  }

  /**
   * Counts and sums over events with off in [fromOff, T) visible at T (visibleAt < T).
   * `fromOff = -Infinity` gives the whole visible history.
   */
  window(fromOff: number, t: number): WindowCounts {
    this.ensureCum();
    const w = this.width;
    const lo = lowerBoundNum(this.offs, fromOff);
    const hi = lowerBoundNum(this.offs, t);
    const sums = new Array<number>(w);
    for (let d = 0; d < w; d++) sums[d] = this.cum[hi * w + d]! - this.cum[lo * w + d]!;
    let n = hi - lo;
    // Events off before T but published at or after T are not visible: subtract them.
    const scanFrom = Math.max(lo, lowerBoundNum(this.offs, t - this.maxLag));
    for (let i = scanFrom; i < hi; i++) {
      if (this.visible[i]! >= t) {
        n--;
        for (let d = 0; d < w; d++) sums[d]! -= this.vecs[i * w + d]!;
      }
    }
    const p = lowerBoundNum(this.visSorted, t);
    return { n, sums, latestVisible: p > 0 ? this.visSorted[p - 1]! : 0 };
  }

  /** Keys of events with off strictly after `t` (for late-data recomputes). */
  keysOffAfter(t: number): string[] {
    const out: string[] = [];
    for (let i = upperBoundNum(this.offs, t); i < this.keys.length; i++) out.push(this.keys[i]!);
    return out;
  }

  toJSON(): EventIndexJson {
    return { w: this.width, k: this.keys, o: this.offs, v: this.visible, x: this.vecs };
  }

  static fromJSON(j: EventIndexJson): EventIndex {
    const idx = new EventIndex(j.w);
    for (let i = 0; i < j.k.length; i++) {
      idx.upsert(j.k[i]!, j.o[i]!, j.v[i]!, j.x.slice(i * j.w, (i + 1) * j.w));
    }
    return idx;
  }

  private ensureCum(): void {
    const n = this.keys.length;
    const w = this.width;
    if (this.cumValidTo === n && this.cum.length === (n + 1) * w) return;
    this.cum.length = (n + 1) * w;
    for (let i = this.cumValidTo; i < n; i++) {
      for (let d = 0; d < w; d++) this.cum[(i + 1) * w + d] = this.cum[i * w + d]! + this.vecs[i * w + d]!;
    }
    this.cumValidTo = n;
  }
}

/** First index with a[i] >= x. */
export function lowerBoundNum(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index with a[i] > x. */
export function upperBoundNum(a: readonly number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Insertion point after every event with (off, key) <= (x, key): a total order so replays agree. */
function upperBound(offs: readonly number[], x: number, keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = offs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const o = offs[mid]!;
    if (o < x || (o === x && keys[mid]! <= key)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
