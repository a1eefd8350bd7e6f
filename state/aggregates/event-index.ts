/**
 * A rolling aggregate for one entity key (a jockey, a trainer, a sire, a course snapshot key): its
 * events sorted by off time, each with a small numeric vector (e.g. [win] or [win, placed]) and the
 * instant it became visible. Cumulative sums over the vectors make "as of T" and "window [T - d, T)"
 * queries O(log n + k) instead of a rescan of the history, where k is the handful of events off before
 * T whose result was published at or after T (the point-in-time correction).
 *
 * `visibleAt` is max(result publishedAt, offTime): under features.md an event Q counts for a race off
 * at T iff Q.off < T and Q.published < T, which is exactly visibleAt < T.
 *
 * Layout (the service holds ~16M events across these indexes, so bytes per event matter):
 * - `rec`: one array of unboxed doubles holding the records [off, visibleAt, vec[0], .., vec[width - 1]],
 *   sorted by (off, key);
 * - `keys`: the event keys, a plain array parallel to `rec` (the strings are shared with the caller);
 * - `cum`: the cumulative vector sums (unboxed doubles), rebuilt lazily from the first stale row;
 * - `slots`: an open-addressing (linear probing) hash table in an Int32Array mapping a key to its
 *   position + 1 (0 = empty), at most 3/4 full. upsert() must know whether the key is already present
 *   (it replaces), so without a lookup every append of a new key would scan the whole index; this table
 *   costs 5-11 bytes per event against ~50 for the Map<string, number> it replaces (entry + boxed
 *   HeapNumber off). Inserting or removing anywhere but the end renumbers the later positions: one by
 *   one when they are few (reconcile unlinks and relinks recent races), else in one pass over the table,
 *   the same O(n) as the shift of the records.
 * - A small index (at most SMALL events: most months of most keys hold one or two) has neither: its
 *   keys are searched in place, and its window sums are added up from the records in the order the
 *   cumulative sums would have been (so every answer has the same bits either way). Both are made when
 *   the index outgrows SMALL (the key table of an index read back from the store at its first lookup:
 *   one read only for windows never makes it). A month chunk with one event then holds its records and
 *   keys only: no typed array (with its buffer) and no second array of doubles.
 * All capacities double when full, so appends (the common case: replays arrive mostly in off order)
 * are O(1) amortised; out-of-order inserts and removals are O(n).
 *
 * `rec` and `cum` are plain arrays of doubles (V8's unboxed double elements), not Float64Arrays: an
 * index is one month of one entity, mostly one to a few events, and millions are made over a long
 * replay. A typed array's buffer lives outside the JavaScript heap, and making an index took longer the
 * more were alive (7 us with 0.3M alive, 35 us with 1.5M: `node --import tsx bench/event-index.bench.ts --alloc`); with
 * heap arrays it stays at a few us, and the memory is collected with its index. Every value
 * written is a number, so the arrays never leave the double elements kind.
 *
 * There is no sorted copy of the visibleAt values: latestVisible is found by scanning outwards from
 * the insertion point of T, bounded by the extreme lags visibleAt - off seen (see latestVisibleAt).
 *
 * off and visibleAt must not be NaN (as before, the order is then undefined); ±Infinity is fine.
 */
import {
  resetCounts,
  type TagSpace,
  windowCounts,
  type WindowCounts,
  type WindowSource,
} from '../../domain/features/window-source.js';
import { fmix32 } from '../../domain/hash.js';

export type { TagSpace, WindowCounts, WindowSource };

export interface EventIndexJson {
  w: number;
  k: string[];
  o: number[];
  v: number[];
  x: number[];
}

const MIN_CAPACITY = 2;
const MIN_SLOTS = 16;
/** Up to this many events an index keeps neither a key table nor cumulative sums (see the layout above). */
const SMALL = 8;

/** What `keysOffAfter` answers when no event is off after the instant (ChunkedIndex's too). */
export const NO_KEYS: readonly string[] = Object.freeze([]);

/** Doubles before the sums in each tag's entry of `EventIndex.tagTotals`: the tag (a, b), its count and latest visibleAt. */
export const TAG_TOTAL_HEAD = 4;

/**
 * `len` zeros in an array of unboxed doubles. Filled with a double first, so the array takes the
 * double elements kind at once rather than starting as small integers and converting on the first
 * fractional value.
 */
function zeros(len: number): number[] {
  const a = new Array<number>(len);
  a.fill(0.5);
  a.fill(0);
  return a;
}

let scratch = new Float64Array(1024);

/**
 * A shared array of at least `len` doubles that `fromRecords` copies a chunk's bytes into before reading
 * them (the bytes may not be aligned for doubles). One buffer for every load, grown by doubling, instead
 * of a buffer outside the heap per loaded month: its contents last until the next call.
 */
function loadScratch(len: number): Float64Array {
  if (scratch.length < len) {
    let n = scratch.length;
    while (n < len) n *= 2;
    scratch = new Float64Array(n);
  }
  return scratch;
}

export class EventIndex {
  readonly width: number;
  /** doubles per record: off, visibleAt, then the vector */
  private readonly stride: number;
  private n = 0;
  /** records `rec` (and rows of `cum`, minus one) can hold */
  private cap: number;
  private rec: number[];
  private readonly keys: string[] = [];
  /** cum[i * width + d] = sum of dimension d over events [0, i); null while the index is small */
  private cum: number[] | null = null;
  /** first event index whose cumulative sums are stale (rows 0..cumValidTo are valid) */
  private cumValidTo = 0;
  /**
   * max(0, visibleAt - off) over every event ever inserted: bounds the point-in-time correction scan.
   * Never lowered by a removal (a stale bound only widens the scan); recomputed by fromJSON.
   */
  private maxLag = 0;
  /** lagHi >= 0 with off + lagHi >= visibleAt in floating point for every event (rounding-safe) */
  private lagHi = 0;
  /** lagLo <= 0 with off + lagLo <= visibleAt in floating point for every event (rounding-safe) */
  private lagLo = 0;
  /** key -> position + 1 (0 = empty); length is a power of two; null while the index is small */
  private slots: Int32Array | null = null;

  /** `capacity`: events to make room for up front (a month of a busy entity: fewer doublings) */
  constructor(width: number, capacity = MIN_CAPACITY) {
    this.width = width;
    this.stride = 2 + width;
    this.cap = Math.max(MIN_CAPACITY, capacity);
    this.rec = zeros(this.cap * this.stride);
  }

  get size(): number {
    return this.n;
  }

  /** Inserts or replaces the event with this key (e.g. a raceId). */
  upsert(key: string, off: number, visibleAt: number, vec: ArrayLike<number>): void {
    const h = this.hashFor(key);
    const found = this.find(key, h);
    if (found >= 0) this.removeAt(found, h);
    const n = this.n;
    const S = this.stride;
    const r = this.rec;
    const last = n - 1;
    // Replays arrive mostly in off order: append without a search when the event sorts last.
    const i =
      n === 0 || r[last * S]! < off || (r[last * S] === off && this.keys[last]! <= key) ? n : this.upperBound(off, key);
    if (n === this.cap) this.grow(n * 2);
    const rec = this.rec;
    if (i < n) {
      for (let j = n * S - 1; j >= i * S; j--) rec[j + S] = rec[j]!;
      if (this.slots) this.renumber(i, 1);
      this.keys.splice(i, 0, key);
    } else {
      this.keys.push(key);
    }
    const b = i * S;
    rec[b] = off;
    rec[b + 1] = visibleAt;
    for (let d = 0; d < this.width; d++) rec[b + 2 + d] = vec[d] ?? 0;
    this.n = n + 1;
    if (this.slots) {
      if ((n + 1) * 4 > this.slots.length * 3) this.rehash(this.slots.length * 2);
      else this.slots[~this.findSlot(key, h)] = i + 1;
    } else if (n + 1 > SMALL) {
      this.rehash(slotsFor(n + 1));
    }
    if (this.cum === null && n + 1 > SMALL) {
      this.cum = zeros((this.cap + 1) * this.width);
      this.cumValidTo = 0;
    }
    this.noteLag(off, visibleAt);
    if (i < this.cumValidTo) this.cumValidTo = i;
  }

  /**
   * The key's hash when the index has a key table or is to have one (more than SMALL events), else 0
   * (a small index searches its keys in place): what `find` and `removeAt` take, so a key is hashed once.
   */
  private hashFor(key: string): number {
    return this.slots !== null || this.n > SMALL ? hashKey(key) : 0;
  }

  /**
   * The position of the event with this key, or -1; `h` is `hashFor(key)`. The key table of an index
   * read back from the store is made here, at its first lookup: one only read for windows never needs it.
   */
  private find(key: string, h: number): number {
    // (sized for one more key: the lookup of an upsert is followed by its insertion)
    if (this.slots === null && this.n > SMALL) this.rehash(slotsFor(this.n + 1));
    if (this.slots) {
      const slot = this.findSlot(key, h);
      return slot >= 0 ? this.slots[slot]! - 1 : -1;
    }
    const keys = this.keys;
    for (let p = 0; p < this.n; p++) if (keys[p] === key) return p;
    return -1;
  }

  /** Widens the lag bounds (maxLag, lagHi, lagLo) to cover an event. */
  private noteLag(off: number, visibleAt: number): void {
    const lag = visibleAt - off;
    if (lag > this.maxLag) this.maxLag = lag;
    let hi = lag;
    while (off + hi < visibleAt) hi = nextUp(hi);
    if (hi > this.lagHi) this.lagHi = hi;
    let lo = lag;
    while (off + lo > visibleAt) lo = -nextUp(-lo);
    if (lo < this.lagLo) this.lagLo = lo;
  }

  /**
   * Removes the event with this key; no-op when absent. Returns whether it was present.
   * O(1) to find (hash table, or a look at each of at most SMALL keys); O(1) to drop the newest event,
   * O(n) for an older one.
   */
  remove(key: string): boolean {
    const h = this.hashFor(key);
    const p = this.find(key, h);
    if (p < 0) return false;
    this.removeAt(p, h);
    return true;
  }

  has(key: string): boolean {
    return this.find(key, this.hashFor(key)) >= 0;
  }

  /**
   * Counts and sums over events with off in [fromOff, T) visible at T (visibleAt < T).
   * `fromOff = -Infinity` gives the whole visible history. With `into`, the answer is written there
   * (see WindowSource.window).
   */
  window(fromOff: number, t: number, into?: WindowCounts): WindowCounts {
    const out = into ? resetCounts(into, this.width) : windowCounts(this.width);
    out.latestVisible = this.addWindow(fromOff, t, out);
    return out;
  }

  /**
   * Adds the counts and sums of `window(fromOff, t)` to `acc` (no allocation: the chunked index sums
   * its months' detail this way) and returns the window's latestVisible (0 when none). With
   * `fromOff = +Infinity` nothing is counted: only latestVisible is computed. With `latest` false the
   * latestVisible is not looked for (0 is returned): the caller knows a bound at least as late.
   */
  addWindow(fromOff: number, t: number, acc: { n: number; sums: number[] }, latest = true): number {
    const w = this.width;
    const S = this.stride;
    const r = this.rec;
    const hi = this.lowerBoundBefore(t, this.n);
    const lo = fromOff === Number.POSITIVE_INFINITY ? hi : this.lowerBound(fromOff);
    if (lo !== hi) {
      // (an inverted window, fromOff > t, keeps its old answer: a negative count)
      const sums = acc.sums;
      const cum = this.cum;
      if (cum) {
        this.ensureCum(Math.max(lo, hi));
        for (let d = 0; d < w; d++) sums[d]! += cum[hi * w + d]! - cum[lo * w + d]!;
      } else {
        // the two cumulative sums, added up in the order ensureCum would have
        const top = Math.max(lo, hi);
        for (let d = 0; d < w; d++) {
          let cLo = 0;
          let cHi = 0;
          let c = 0;
          for (let i = 0; i <= top; i++) {
            if (i === lo) cLo = c;
            if (i === hi) cHi = c;
            if (i < top) c += r[i * S + 2 + d]!;
          }
          sums[d]! += cHi - cLo;
        }
      }
      let n = hi - lo;
      // Events off before T but published at or after T are not visible: subtract them.
      // (t - maxLag <= t: the position is at most hi)
      const scanFrom = Math.max(lo, this.lowerBoundBefore(t - this.maxLag, hi));
      for (let i = scanFrom; i < hi; i++) {
        if (r[i * S + 1]! >= t) {
          n--;
          for (let d = 0; d < w; d++) sums[d]! -= r[i * S + 2 + d]!;
        }
      }
      acc.n += n;
    }
    return latest ? this.latestVisibleAt(t, hi) : 0;
  }

  /**
   * The counts over [fromOff, t) visible at t of the events whose tag in `space` (tags.ts) is (a, b);
   * `out.sums` gets the space's dimensions, in its order, and latestVisible is the latest visibleAt among
   * the events counted (0 when none). See ChunkedIndex.windowTagged.
   */
  windowTagged(fromOff: number, t: number, space: TagSpace, a: number, b: number, out?: WindowCounts): WindowCounts {
    const res = out ? resetCounts(out, space.dims.length) : windowCounts(space.dims.length);
    res.latestVisible = this.addTagged(fromOff, t, space, a, b, res);
    return res;
  }

  /**
   * Adds the counts and sums of `windowTagged(fromOff, t, space, a, b)` to `acc`, event by event in
   * (off, key) order (no allocation: the chunked index adds its months' detail this way), and returns the
   * latest visibleAt among the events counted (0 when none).
   */
  addTagged(
    fromOff: number,
    t: number,
    space: TagSpace,
    a: number,
    b: number,
    acc: { n: number; sums: number[] },
  ): number {
    const S = this.stride;
    const r = this.rec;
    const sums = acc.sums;
    const at = 2 + space.dim;
    const dims = space.dims;
    let latest = 0;
    for (let i = this.lowerBound(fromOff), hi = this.lowerBoundBefore(t, this.n); i < hi; i++) {
      const o = i * S;
      if (r[o + at] !== a || r[o + at + 1] !== b) continue;
      const vis = r[o + 1]!;
      if (vis >= t) continue;
      acc.n++;
      for (let k = 0; k < dims.length; k++) sums[k]! += r[o + 2 + dims[k]!]!;
      if (vis > latest) latest = vis;
    }
    return latest;
  }

  /**
   * The totals of each tag of `space` over every event: `TAG_TOTAL_HEAD + space.dims.length` doubles a
   * tag, [a, b, count, latest visibleAt, sums of the space's dimensions], the tags in the order of their
   * first event and each tag's sums added event by event in (off, key) order, so the totals depend only
   * on the set of events (ChunkedIndex keeps them per month: a tagged window reads whole months from
   * them).
   */
  tagTotals(space: TagSpace): number[] {
    const S = this.stride;
    const dims = space.dims;
    const T = TAG_TOTAL_HEAD + dims.length;
    const at = 2 + space.dim;
    const r = this.rec;
    const out: number[] = [];
    for (let i = 0; i < this.n; i++) {
      const o = i * S;
      const a = r[o + at]!;
      const b = r[o + at + 1]!;
      let q = 0;
      while (q < out.length && (out[q] !== a || out[q + 1] !== b)) q += T;
      if (q === out.length) {
        out.push(a, b, 0, Number.NEGATIVE_INFINITY);
        for (let k = 0; k < dims.length; k++) out.push(0);
      }
      out[q + 2]!++;
      if (r[o + 1]! > out[q + 3]!) out[q + 3] = r[o + 1]!;
      for (let k = 0; k < dims.length; k++) out[q + TAG_TOTAL_HEAD + k]! += r[o + 2 + dims[k]!]!;
    }
    return out;
  }

  /** Writes the sums over every event into `sums` from position `at` and returns the count. */
  totalsInto(sums: number[], at = 0): number {
    const w = this.width;
    const n = this.n;
    const cum = this.cum;
    if (cum) {
      this.ensureCum(n);
      for (let d = 0; d < w; d++) sums[at + d] = cum[n * w + d]!;
      return n;
    }
    const S = this.stride;
    const r = this.rec;
    for (let d = 0; d < w; d++) {
      let c = 0;
      for (let i = 0; i < n; i++) c += r[i * S + 2 + d]!;
      sums[at + d] = c;
    }
    return n;
  }

  /** The latest visibleAt of any event, -Infinity when empty. */
  maxVisible(): number {
    return this.n > 0 ? this.latestVisibleAt(Number.POSITIVE_INFINITY, this.n) : Number.NEGATIVE_INFINITY;
  }

  /** Keys of events with off strictly after `t` (for late-data recomputes). */
  /**
   * The off of the latest event off before t, visible at t, whose vector has dimension `dim` > 0;
   * undefined when there is none. Scans back from t: the events sought (wins) are common.
   */
  lastOffWith(dim: number, t: number, _horizon?: number): number | undefined {
    const S = this.stride;
    const r = this.rec;
    for (let i = this.lowerBoundBefore(t, this.n) - 1; i >= 0; i--) {
      if (r[i * S + 1]! < t && r[i * S + 2 + dim]! > 0) return r[i * S]!;
    }
    return undefined;
  }

  /** The visibleAt of every event visible at or after t0 (unsorted). */
  visibleAtsFrom(t0: number): number[] {
    const S = this.stride;
    const r = this.rec;
    const out: number[] = [];
    for (let i = 0; i < this.n; i++) if (r[i * S + 1]! >= t0) out.push(r[i * S + 1]!);
    return out;
  }

  /** Keys of the events off strictly after t, in (off, key) order (one shared empty list when none). */
  keysOffAfter(t: number): readonly string[] {
    const from = this.upperBoundOff(t);
    return from >= this.n ? NO_KEYS : this.keys.slice(from, this.n);
  }

  /**
   * Releases the spare capacity left by doubling (up to half of every array). Worth calling once an
   * index stops growing, e.g. after a restore; the next upsert grows it again as needed.
   */
  compact(): void {
    this.grow(Math.max(this.n, MIN_CAPACITY));
    if (this.slots) {
      const size = slotsFor(this.n);
      if (size !== this.slots.length) this.rehash(size);
    }
  }

  toJSON(): EventIndexJson {
    const n = this.n;
    const w = this.width;
    const S = this.stride;
    const r = this.rec;
    const o = new Array<number>(n);
    const v = new Array<number>(n);
    const x = new Array<number>(n * w);
    for (let i = 0; i < n; i++) {
      o[i] = r[i * S]!;
      v[i] = r[i * S + 1]!;
      for (let d = 0; d < w; d++) x[i * w + d] = r[i * S + 2 + d]!;
    }
    return { w, k: this.keys.slice(0, n), o, v, x };
  }

  /** The events as records in order: per event [off, visibleAt, vec[0], .., vec[width - 1]], and their keys. */
  records(): { keys: string[]; rec: Float64Array } {
    const out = new Float64Array(this.recordLength);
    this.recordsInto(out);
    return { keys: this.keys.slice(0, this.n), rec: out };
  }

  /** The number of doubles `records()` holds. */
  get recordLength(): number {
    return this.n * this.stride;
  }

  /** The event keys in record order (the index's own array: read it, do not keep or change it). */
  get keyList(): readonly string[] {
    return this.keys;
  }

  /** Writes `records()`'s doubles into `out` from position 0 (an encoder's scratch: no array per call). */
  recordsInto(out: Float64Array): void {
    const r = this.rec;
    for (let i = 0, len = this.n * this.stride; i < len; i++) out[i] = r[i]!;
  }

  /**
   * The index of `records()` (the bytes of its Float64Array, in this host's byte order): the same index
   * as upserting each event, built without a search or a per-event allocation when the records are in
   * (off, key) order with distinct keys, as `records()` gives them; otherwise event by event.
   */
  static fromRecords(width: number, keys: readonly string[], bytes: Uint8Array): EventIndex {
    const S = width + 2;
    const m = keys.length;
    if (bytes.byteLength !== m * S * 8) {
      throw new Error(`index records: ${bytes.byteLength} bytes for ${m} events of width ${width}`);
    }
    const idx = new EventIndex(width, m);
    const f = loadScratch(m * S);
    new Uint8Array(f.buffer, 0, bytes.byteLength).set(bytes);
    const r = idx.rec;
    for (let i = 0; i < m * S; i++) r[i] = f[i]!;
    let ordered = true;
    for (let i = 1; i < m && ordered; i++) {
      const a = r[(i - 1) * S]!;
      const b = r[i * S]!;
      ordered = a < b || (a === b && keys[i - 1]! < keys[i]!);
    }
    if (!ordered) {
      r.fill(0);
      for (let i = 0; i < m; i++) idx.upsert(keys[i]!, f[i * S]!, f[i * S + 1]!, f.subarray(i * S + 2, (i + 1) * S));
      return idx;
    }
    for (let i = 0; i < m; i++) {
      idx.keys.push(keys[i]!);
      idx.noteLag(r[i * S]!, r[i * S + 1]!);
    }
    idx.n = m;
    // (the key table is made at the first lookup: see find)
    if (m > SMALL) idx.cum = zeros((idx.cap + 1) * width);
    return idx;
  }

  static fromJSON(j: EventIndexJson): EventIndex {
    const idx = new EventIndex(j.w);
    const m = j.k.length;
    if (m > idx.cap) idx.grow(m);
    for (let i = 0; i < m; i++) {
      idx.upsert(j.k[i]!, j.o[i]!, j.v[i]!, j.x.slice(i * j.w, (i + 1) * j.w));
    }
    return idx;
  }

  /**
   * The latest visibleAt < T over the whole history, or 0. Scans back from `hi` (the first event off
   * at or after T): every event has visibleAt <= off + lagHi, so once off + lagHi < best no earlier
   * event can beat `best`. Then forward over events off at or after T, which can only be visible when
   * visibleAt < off (never with visibleAt = max(published, off)): stops once off + lagLo >= T.
   * The comparisons are written so that a NaN from ±Infinity arithmetic keeps scanning.
   */
  private latestVisibleAt(t: number, hi: number): number {
    const S = this.stride;
    const r = this.rec;
    const lagHi = this.lagHi;
    let best = 0;
    let found = false;
    for (let i = hi - 1; i >= 0; i--) {
      if (found && r[i * S]! + lagHi < best) break;
      const v = r[i * S + 1]!;
      if (v < t && (!found || v > best)) {
        best = v;
        found = true;
      }
    }
    if (this.lagLo < 0) {
      const lagLo = this.lagLo;
      for (let i = hi; i < this.n; i++) {
        if (r[i * S]! + lagLo >= t) break;
        const v = r[i * S + 1]!;
        if (v < t && (!found || v > best)) {
          best = v;
          found = true;
        }
      }
    }
    return found ? best : 0;
  }

  /** Drops the event at position i, whose key's `hashFor` is h. */
  private removeAt(i: number, h: number): void {
    if (this.slots) this.deleteSlot(this.findSlot(this.keys[i]!, h));
    const n = this.n;
    const S = this.stride;
    if (i < n - 1) {
      const rec = this.rec;
      for (let j = i * S; j < (n - 1) * S; j++) rec[j] = rec[j + S]!;
      if (this.slots) this.renumber(i + 1, -1);
      this.keys.splice(i, 1);
    } else {
      this.keys.pop();
    }
    this.n = n - 1;
    if (i < this.cumValidTo) this.cumValidTo = i;
  }

  private ensureCum(upTo: number): void {
    if (this.cumValidTo >= upTo) return;
    const w = this.width;
    const S = this.stride;
    const r = this.rec;
    const cum = this.cum!;
    for (let i = this.cumValidTo; i < upTo; i++) {
      for (let d = 0; d < w; d++) cum[(i + 1) * w + d] = cum[i * w + d]! + r[i * S + 2 + d]!;
    }
    this.cumValidTo = upTo;
  }

  /** Reallocates the records and cumulative sums for `cap` events (cap >= n). */
  private grow(cap: number): void {
    if (cap === this.cap) return;
    const rec = zeros(cap * this.stride);
    const r = this.rec;
    for (let i = 0, len = this.n * this.stride; i < len; i++) rec[i] = r[i]!;
    const c = this.cum;
    if (c) {
      const cum = zeros((cap + 1) * this.width);
      for (let i = 0, len = (this.cumValidTo + 1) * this.width; i < len; i++) cum[i] = c[i]!;
      this.cum = cum;
    }
    this.rec = rec;
    this.cap = cap;
  }

  /** Rebuilds the key table with `size` slots (a power of two). */
  private rehash(size: number): void {
    const t = new Int32Array(size);
    const mask = size - 1;
    for (let p = 0; p < this.n; p++) {
      let s = hashKey(this.keys[p]!) & mask;
      while (t[s] !== 0) s = (s + 1) & mask;
      t[s] = p + 1;
    }
    this.slots = t;
  }

  /** The slot holding `key`, or ~(the empty slot where it would go). */
  private findSlot(key: string, h: number): number {
    const t = this.slots!;
    const mask = t.length - 1;
    let s = h & mask;
    for (;;) {
      const e = t[s]!;
      if (e === 0) return ~s;
      if (this.keys[e - 1] === key) return s;
      s = (s + 1) & mask;
    }
  }

  /** Empties a slot, moving later entries of its probe run back (linear-probing deletion). */
  private deleteSlot(slot: number): void {
    const t = this.slots!;
    const mask = t.length - 1;
    let hole = slot;
    t[hole] = 0;
    for (let j = (slot + 1) & mask; ; j = (j + 1) & mask) {
      const e = t[j]!;
      if (e === 0) return;
      const home = hashKey(this.keys[e - 1]!) & mask;
      // The entry may move into the hole iff the hole lies on its probe path [home, j).
      if (((hole - home) & mask) < ((j - home) & mask)) {
        t[hole] = e;
        t[j] = 0;
        hole = j;
      }
    }
  }

  /**
   * Adds `delta` (±1) to the table entries of positions [from, n), before `keys` is spliced. A few
   * positions (an event near the end: the usual reconcile) are looked up one by one; more, by one pass
   * over the table. The lookups run in the order where an entry already moved never names the key
   * being looked up (upwards for -1, downwards for +1), so a key only ever matches its own entry.
   */
  private renumber(from: number, delta: 1 | -1): void {
    const t = this.slots!;
    const n = this.n;
    if ((n - from) * 32 < t.length) {
      const keys = this.keys;
      if (delta < 0) {
        for (let p = from; p < n; p++) t[this.findSlot(keys[p]!, hashKey(keys[p]!))]! -= 1;
      } else {
        for (let p = n - 1; p >= from; p--) t[this.findSlot(keys[p]!, hashKey(keys[p]!))]! += 1;
      }
      return;
    }
    for (let s = 0; s < t.length; s++) if (t[s]! > from) t[s]! += delta;
  }

  /** First position with off >= x. */
  private lowerBound(x: number): number {
    const r = this.rec;
    const S = this.stride;
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (r[mid * S]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * lowerBound(x) when every position from `end` on has off >= x (end = n: always): galloping back
   * from end - 1 (1, 2, 4, ... back), then bisecting the span left. A window's end (a race's off) is
   * mostly among a month's last events, and each record a search reads is a cache line or more of its
   * own: a few reads near the end instead of a bisection's log2(n) spread over the month.
   */
  private lowerBoundBefore(x: number, end: number): number {
    return firstFromEnd(this.rec, this.stride, 0, end, x, false);
  }

  /** First position with off > x. */
  private upperBoundOff(x: number): number {
    const r = this.rec;
    const S = this.stride;
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (r[mid * S]! <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Insertion point after every event with (off, key) <= (x, key): a total order so replays agree. */
  private upperBound(x: number, key: string): number {
    const r = this.rec;
    const S = this.stride;
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const o = r[mid * S]!;
      if (o < x || (o === x && this.keys[mid]! <= key)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** Slots for a table holding n keys at most 3/4 full. */
function slotsFor(n: number): number {
  let size = MIN_SLOTS;
  while (n * 4 > size * 3) size *= 2;
  return size;
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

/** FNV-1a over the UTF-16 code units, then the murmur3 finaliser (the table masks the low bits). */
function hashKey(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return fmix32(h);
}

const bits = new Float64Array(1);
const bitsI = new BigInt64Array(bits.buffer);

/** The next double above x (x itself for NaN and +Infinity). */
function nextUp(x: number): number {
  if (x !== x || x === Number.POSITIVE_INFINITY) return x;
  if (x === 0) return Number.MIN_VALUE;
  bits[0] = x;
  bitsI[0]! += x > 0 ? 1n : -1n;
  return bits[0]!;
}

/**
 * The first position i < len whose value a[i * S + f] is not below x (`above`: is not at or below x), or
 * len; the values rise with i (the tests of a bisection's `<` or `<=` exactly, NaN included). Gallops back
 * from the last position (1, 2, 4, ... back), then bisects the span left: for an x among the last few
 * positions a few reads, for any x at most about twice a bisection's. The chunked index finds its months
 * this way too.
 */
export function firstFromEnd(
  a: readonly number[],
  S: number,
  f: number,
  len: number,
  x: number,
  above: boolean,
): number {
  // invariant: every position from hi on qualifies
  let hi = len;
  let step = 1;
  let q = len - 1;
  while (q >= 0) {
    const v = a[q * S + f]!;
    if (above ? v <= x : v < x) break;
    hi = q;
    q -= step;
    step += step;
  }
  // every position up to q does not qualify (none when q < 0)
  let lo = q < 0 ? 0 : q + 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const v = a[mid * S + f]!;
    if (above ? v <= x : v < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
