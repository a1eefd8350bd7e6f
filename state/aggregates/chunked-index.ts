/**
 * An entity's rolling aggregate split into monthly chunks (by the UTC month of each event's off), so
 * that the processor keeps in memory, loads and checkpoints only the months it works on, while the
 * whole history stays queryable.
 *
 * - Each chunk is an EventIndex (events sorted by (off, key), cumulative sums).
 * - The head holds, for every chunk, its month, event count, vector sums and latest visibleAt, plus
 *   prefix sums / prefix maxima over chunks. A query "as of T" uses the summaries for every whole
 *   month before T whose events were all visible before T, and the detail of the rest: the month of T,
 *   the month a window starts in, and months holding an event published at or after T (late results).
 *   In a replay that is one or two chunks per query whatever the length of the history.
 * - A chunk may be absent from memory (evicted, or not yet loaded): `missing(from, t)` names the chunks
 *   a query needs, `load()` fetches them through the loader, and the synchronous queries throw if
 *   called without them (a programming error, never a silent wrong answer).
 *
 * Requires visibleAt >= off for every event (true of visibleAt = max(published, off)): an event off at
 * or after T is then never visible at T, so chunks of later months never contribute.
 *
 * The summaries are recomputed from the chunk's own cumulative sums after every change, so they (and
 * every query) depend only on the set of events, never on the order they arrived or on what was
 * evicted and reloaded in between.
 */
import { EventIndex, type WindowCounts } from './event-index.js';

/** Loads a chunk's events by month start; undefined when the store has none. */
/** Room for this many events in a new month's chunk: most keys (owners, dams, the composite keys) have one or two a month; busy ones grow by doubling. */
const NEW_CHUNK_CAPACITY = 4;

export type ChunkLoader = (monthStart: number) => Promise<EventIndex | undefined>;

export interface ChunkMeta {
  /** first instant of the month (UTC ms) */
  start: number;
  n: number;
  maxVisible: number;
  sums: number[];
  /** null = not resident */
  chunk: EventIndex | null;
  dirty: boolean;
  /** stream time (the index's `touched`) a query last needed this chunk in detail, or it was loaded */
  used: number;
}

/**
 * What is stored of an index apart from its month chunks, in two kinds of record, so that a checkpoint
 * rewrites what changed rather than the whole history: the head (pending races and which years have
 * months) and one summary block per year (its months' counts, latest visibleAt and sums). A busy
 * entity's change rewrites the block of the year it changed in, whatever the length of its history.
 */
export interface ChunkedIndexHead {
  /** first instants (UTC) of the years that have at least one month, ascending */
  years: number[];
  pendingRaces: string[];
  pendingOffs: number[];
}

/**
 * The summaries of one year's k months, as stored: [k, then start, n, maxVisible per month, then the
 * k x width sums], in one array of doubles (so a block checks its own length).
 */
export type YearBlock = Float64Array;

export class MissingChunkError extends Error {
  constructor(start: number) {
    super(`chunk ${new Date(start).toISOString().slice(0, 7)} is not loaded`);
  }
}

export class ChunkedIndex {
  readonly metas: ChunkMeta[] = [];
  /**
   * The months' first and next-month instants, parallel to `metas`, as arrays of unboxed doubles: the
   * binary searches of every query read them rather than one month object (and its boxed numbers) per
   * step. (A month's end is kept only here.)
   */
  private readonly starts: number[] = [];
  private readonly ends: number[] = [];
  /** declared races of this entity without a result: raceId -> off */
  readonly pending = new Map<string, number>();
  headDirty = false;
  /** stream time this index was last used (eviction) */
  touched = 0;
  /** the owner's checkpoint count when it last queued this index as changed (EngineState.touchIndex) */
  checkpointEpoch = -1;
  /** prefix arrays over metas: pn[i] = sum of n over metas [0, i), ps likewise per dimension, pmax = max maxVisible */
  private pn: number[] = [0];
  private ps: number[];
  private pmax: number[] = [Number.NEGATIVE_INFINITY];
  private prefixValid = 0;
  /** how many of `metas` have no chunk in memory (0: every query is answerable, no residency check) */
  private absent = 0;
  /** how many of `metas` are dirty (changed since the last takeDirty) */
  private dirtyChunks = 0;
  /**
   * No position below this has a chunk in memory, so the eviction and checkpoint walks start here, not
   * at the first month of a history decades long (most old months are not resident).
   */
  private residentFrom = 0;

  constructor(
    readonly width: number,
    private readonly loader?: ChunkLoader,
  ) {
    this.ps = new Array<number>(width).fill(0);
  }

  /** The index as stored: its head and the summary block of each of the head's years, in order. */
  static fromHead(
    width: number,
    head: ChunkedIndexHead,
    blocks: readonly YearBlock[],
    loader?: ChunkLoader,
  ): ChunkedIndex {
    const idx = new ChunkedIndex(width, loader);
    if (blocks.length !== head.years.length) {
      throw new Error(`index head names ${head.years.length} years, ${blocks.length} summary blocks given`);
    }
    for (const b of blocks) {
      const k = b[0]!;
      if (!Number.isInteger(k) || k < 0 || b.length !== 1 + k * (3 + width)) {
        throw new Error(`a year block of ${b.length} doubles does not hold ${k} months of width ${width}`);
      }
      const at = 1 + 3 * k;
      for (let i = 0; i < k; i++) {
        const start = b[1 + 3 * i]!;
        const sums = new Array<number>(width);
        for (let d = 0; d < width; d++) sums[d] = b[at + i * width + d]!;
        idx.starts.push(start);
        idx.ends.push(nextMonth(start));
        idx.metas.push({
          start,
          n: b[2 + 3 * i]!,
          maxVisible: b[3 + 3 * i]!,
          sums,
          chunk: null,
          dirty: false,
          used: Number.NEGATIVE_INFINITY,
        });
      }
    }
    idx.absent = idx.metas.length;
    idx.residentFrom = idx.metas.length;
    for (let i = 0; i < head.pendingRaces.length; i++) idx.pending.set(head.pendingRaces[i]!, head.pendingOffs[i]!);
    return idx;
  }

  toHead(): ChunkedIndexHead {
    const years: number[] = [];
    for (const m of this.metas) {
      const y = yearStart(m.start);
      if (years[years.length - 1] !== y) years.push(y);
    }
    return { years, pendingRaces: [...this.pending.keys()], pendingOffs: [...this.pending.values()] };
  }

  /** The summary block of the year starting at `year` (its months as they are now). */
  yearBlock(year: number): YearBlock {
    const out = new Float64Array(this.yearBlockLength(year));
    this.yearBlockInto(year, out);
    return out;
  }

  /** The number of doubles `yearBlock(year)` holds. */
  yearBlockLength(year: number): number {
    const k = this.firstStartAtOrAfter(nextYear(year)) - this.firstStartAtOrAfter(year);
    return 1 + k * (3 + this.width);
  }

  /** Writes `yearBlock(year)` into `out` (at least `yearBlockLength(year)` long) from position 0. */
  yearBlockInto(year: number, out: Float64Array): void {
    const w = this.width;
    const a = this.firstStartAtOrAfter(year);
    const k = this.firstStartAtOrAfter(nextYear(year)) - a;
    out[0] = k;
    const at = 1 + 3 * k;
    for (let i = 0; i < k; i++) {
      const m = this.metas[a + i]!;
      out[1 + 3 * i] = m.start;
      out[2 + 3 * i] = m.n;
      out[3 + 3 * i] = m.maxVisible;
      for (let d = 0; d < w; d++) out[at + i * w + d] = m.sums[d]!;
    }
  }

  get size(): number {
    let n = 0;
    for (const m of this.metas) n += m.n;
    return n;
  }

  setPending(raceId: string, off: number): void {
    if (this.pending.get(raceId) === off) return;
    this.pending.set(raceId, off);
    this.headDirty = true;
  }

  deletePending(raceId: string): void {
    if (this.pending.delete(raceId)) this.headDirty = true;
  }

  // ---- residency ----

  /** Positions of the chunks `window(from, t)` needs that are not in memory. */
  missing(from: number, t: number): number[] {
    const out: number[] = [];
    this.scan(from, t, out);
    return out;
  }

  /** Positions of chunks holding events off after `off` (or the chunk of `off` itself) that are not in memory. */
  missingFrom(off: number): number[] {
    const out: number[] = [];
    if (this.absent === 0) return out;
    for (let i = this.firstEndAfter(off); i < this.metas.length; i++) if (!this.metas[i]!.chunk) out.push(i);
    return out;
  }

  /** Loads the chunks at these positions. */
  async load(positions: readonly number[]): Promise<void> {
    for (const i of positions) {
      const m = this.metas[i]!;
      if (m.chunk) continue;
      if (i < this.residentFrom) this.residentFrom = i;
      m.used = this.touched;
      const c = this.loader ? await this.loader(m.start) : undefined;
      if (!c) {
        if (m.n > 0) throw new Error(`state is missing the chunk ${new Date(m.start).toISOString().slice(0, 7)}`);
        m.chunk = new EventIndex(this.width);
      } else {
        m.chunk = c;
      }
      this.absent--;
    }
  }

  /** Makes `window(from, t)` answerable; undefined when nothing had to be loaded. */
  ensure(from: number, t: number): Promise<void> | undefined {
    if (this.absent === 0) return undefined; // the query itself marks the chunks it reads as used
    const miss = this.missing(from, t);
    return miss.length > 0 ? this.load(miss) : undefined;
  }

  /** Makes `keysOffAfter(off)` and changes at `off` answerable. */
  ensureFrom(off: number): Promise<void> | undefined {
    const miss = this.missingFrom(off);
    return miss.length > 0 ? this.load(miss) : undefined;
  }

  /**
   * Drops from memory the clean chunks of months ending at or before `before` that no query needed
   * since `idleBefore` (a window's first month is read in detail by every row until the window moves
   * on: evicting it at every checkpoint would reload it for every batch); returns how many.
   */
  evictChunksBefore(before: number, idleBefore = Number.POSITIVE_INFINITY): number {
    let dropped = 0;
    const metas = this.metas;
    for (let i = this.residentFrom; i < metas.length; i++) {
      const m = metas[i]!;
      if (this.ends[i]! > before) break;
      if (m.chunk && !m.dirty && m.used < idleBefore) {
        m.chunk = null;
        dropped++;
      }
    }
    this.absent += dropped;
    while (this.residentFrom < metas.length && !metas[this.residentFrom]!.chunk) this.residentFrom++;
    return dropped;
  }

  // ---- changes (the chunk of the event's month must be resident) ----

  upsert(key: string, off: number, visibleAt: number, vec: readonly number[]): void {
    const start = monthStart(off);
    let i = this.positionOf(start);
    if (i < 0) {
      i = ~i;
      const year = yearStart(start);
      const prev = this.metas[i - 1];
      const next = this.metas[i];
      if ((!prev || yearStart(prev.start) !== year) && (!next || yearStart(next.start) !== year)) this.headDirty = true;
      if (i < this.residentFrom) this.residentFrom = i; // (later positions shift up: still none resident below)
      this.starts.splice(i, 0, start);
      this.ends.splice(i, 0, nextMonth(start));
      this.metas.splice(i, 0, {
        start,
        n: 0,
        maxVisible: Number.NEGATIVE_INFINITY,
        sums: new Array<number>(this.width).fill(0),
        chunk: new EventIndex(this.width, NEW_CHUNK_CAPACITY),
        dirty: false,
        used: this.touched,
      });
      this.invalidate(i);
    }
    const m = this.metas[i]!;
    if (!m.chunk) throw new MissingChunkError(m.start);
    m.chunk.upsert(key, off, visibleAt, vec);
    this.summarise(i);
  }

  /** Removes the event with this key from the month of `off`; returns whether it was there. */
  remove(key: string, off: number): boolean {
    const i = this.positionOf(monthStart(off));
    if (i < 0) return false;
    const m = this.metas[i]!;
    if (!m.chunk) throw new MissingChunkError(m.start);
    if (!m.chunk.remove(key)) return false;
    this.summarise(i);
    return true;
  }

  /**
   * The chunks changed since the last call, the years whose summary block changed with them (a chunk's
   * summary changes exactly when its events do) and whether the head changed; marks them clean.
   */
  takeDirty(): { head: boolean; chunks: ChunkMeta[]; years: number[] } {
    const chunks: ChunkMeta[] = [];
    const years: number[] = [];
    if (this.dirtyChunks > 0) {
      // a dirty chunk is in memory: none lies below residentFrom
      for (let i = this.residentFrom; i < this.metas.length; i++) {
        const m = this.metas[i]!;
        if (!m.dirty) continue;
        m.dirty = false;
        chunks.push(m);
        const y = yearStart(m.start);
        if (years[years.length - 1] !== y) years.push(y);
      }
      this.dirtyChunks = 0;
    }
    const head = this.headDirty;
    this.headDirty = false;
    return { head, chunks, years };
  }

  get isDirty(): boolean {
    return this.headDirty || this.dirtyChunks > 0;
  }

  // ---- queries ----

  /**
   * Counts and sums over events with off in [from, t) visible at t (visibleAt < t); latestVisible is
   * the latest visibleAt < t over the whole history (as EventIndex.window).
   */
  window(from: number, t: number): WindowCounts {
    return this.scan(from, t, null)!;
  }

  /**
   * The off of the latest event off before t, visible at t, with vector dimension `dim` > 0 (e.g. the
   * last win): a number; `-Infinity` when the latest such event is off before `horizon` (its exact off
   * is not needed, so old months are answered from their summaries); undefined when there is none.
   * Every chunk it reads in detail must be resident: `ensureLast` loads them.
   */
  lastOffWith(dim: number, t: number, horizon: number): number | undefined {
    return this.walkLast(dim, t, horizon, null);
  }

  /** Makes `lastOffWith(dim, t, horizon)` answerable, loading chunks one at a time as the walk needs them. */
  ensureLast(dim: number, t: number, horizon: number): Promise<void> | undefined {
    if (this.absent === 0) return undefined;
    const miss: number[] = [];
    this.walkLast(dim, t, horizon, miss);
    if (miss.length === 0) return undefined;
    return (async () => {
      do {
        await this.load(miss);
        miss.length = 0;
        this.walkLast(dim, t, horizon, miss);
      } while (miss.length > 0);
    })();
  }

  /** Walks months back from t; with `missing`, stops at the first non-resident chunk it must read and names it. */
  private walkLast(dim: number, t: number, horizon: number, missing: number[] | null): number | undefined {
    this.ensurePrefix();
    const iT = this.firstStartAtOrAfter(t);
    const j = this.prefixVisibleBefore(t, iT);
    const w = this.width;
    for (let i = iT - 1; i >= 0; i--) {
      const m = this.metas[i]!;
      if (i < j && this.ends[i]! <= horizon) {
        // This month and every earlier one are wholly visible and before the horizon: whether any of
        // them holds such an event is in the prefix sums, without walking back through decades.
        return this.ps[(i + 1) * w + dim]! > 0 ? Number.NEGATIVE_INFINITY : undefined;
      }
      if (!(m.sums[dim]! > 0)) continue; // no such event in the month at all
      if (!m.chunk) {
        if (missing) {
          missing.push(i);
          return undefined;
        }
        throw new MissingChunkError(m.start);
      }
      const off = m.chunk.lastOffWith(dim, t);
      if (off !== undefined) return off;
    }
    return undefined;
  }

  /** The visibleAt of every event visible at or after t0 (every chunk holding one must be resident: ensureVisibleFrom). */
  visibleAtsFrom(t0: number): number[] {
    const out: number[] = [];
    for (const m of this.metas) {
      if (m.n === 0 || m.maxVisible < t0) continue;
      if (!m.chunk) throw new MissingChunkError(m.start);
      for (const v of m.chunk.visibleAtsFrom(t0)) out.push(v);
    }
    return out;
  }

  /** Makes `visibleAtsFrom(t0)` answerable. */
  ensureVisibleFrom(t0: number): Promise<void> | undefined {
    const miss: number[] = [];
    this.metas.forEach((m, i) => {
      if (m.n > 0 && m.maxVisible >= t0 && !m.chunk) miss.push(i);
    });
    return miss.length > 0 ? this.load(miss) : undefined;
  }

  /** Keys of events off strictly after `off` (every later chunk must be resident). */
  keysOffAfter(off: number): string[] {
    const out: string[] = [];
    for (let i = this.firstEndAfter(off); i < this.metas.length; i++) {
      const m = this.metas[i]!;
      if (!m.chunk) throw new MissingChunkError(m.start);
      for (const k of m.chunk.keysOffAfter(off)) out.push(k);
    }
    return out;
  }

  /**
   * The query, or (with `missing`) the positions of the non-resident chunks it would need.
   *
   * Chunks [0, j) have every event visible at t (prefix max of maxVisible < t); chunks from iT on are
   * off at or after t. Chunks in [a, b) lie wholly inside [from, t) with every event visible: their
   * summaries are added from the prefix sums. Every other chunk in [iFrom, iT) is read in detail, and
   * so are chunks before the window that hold an event visible only at or after t (for latestVisible).
   */
  private scan(from: number, t: number, missing: number[] | null): WindowCounts | undefined {
    const w = this.width;
    const metas = this.metas;
    this.ensurePrefix();
    const iT = this.firstStartAtOrAfter(t);
    const iFrom = from === Number.NEGATIVE_INFINITY ? 0 : this.firstEndAfter(from);
    const j = this.prefixVisibleBefore(t, iT);
    const a = from === Number.NEGATIVE_INFINITY ? 0 : this.firstStartAtOrAfter(from);
    const b = Math.min(j, this.firstEndAfter(t));
    const out: WindowCounts | undefined = missing
      ? undefined
      : { n: 0, sums: new Array<number>(w).fill(0), latestVisible: 0 };
    const pm = this.pmax[j]!;
    let found = pm !== Number.NEGATIVE_INFINITY;
    let latest = found ? pm : 0;
    if (out && a < b) {
      out.n = this.pn[b]! - this.pn[a]!;
      const ps = this.ps;
      const sums = out.sums;
      for (let d = 0; d < w; d++) sums[d] = ps[b * w + d]! - ps[a * w + d]!;
    }
    const touched = this.touched;
    // Before the window only chunks from j on (holding an event visible at or after t) need a look,
    // for latestVisible; in the window, every chunk the prefix sums [a, b) do not cover. The covered
    // positions are jumped over, not walked: a window over decades covers hundreds of months.
    const skipFrom = Math.max(iFrom, a);
    for (let i = Math.min(j, iFrom); i < iT; i++) {
      if (i === skipFrom && b > skipFrom) {
        i = b - 1;
        continue;
      }
      const m = metas[i]!;
      const c = m.chunk;
      if (!c) {
        if (missing) missing.push(i);
        else throw new MissingChunkError(m.start);
        continue;
      }
      m.used = touched;
      if (!out) continue;
      // a month before j has every event visible at t: its latest is at most pmax[j], already counted
      const lv = c.addWindow(i < iFrom ? Number.POSITIVE_INFINITY : from, t, out, i >= j);
      if (lv !== 0 && (!found || lv > latest)) {
        latest = lv;
        found = true;
      }
    }
    if (!out) return undefined;
    out.latestVisible = found ? latest : 0;
    return out;
  }

  private summarise(i: number): void {
    const m = this.metas[i]!;
    const c = m.chunk!;
    m.n = c.totalsInto(m.sums);
    m.maxVisible = c.maxVisible();
    if (!m.dirty) {
      m.dirty = true;
      this.dirtyChunks++;
    }
    this.invalidate(i);
  }

  private invalidate(i: number): void {
    if (i < this.prefixValid) this.prefixValid = i;
  }

  private ensurePrefix(): void {
    const m = this.metas.length;
    if (this.prefixValid >= m && this.pn.length === m + 1) return;
    const w = this.width;
    this.pn.length = m + 1;
    this.pmax.length = m + 1;
    this.ps.length = (m + 1) * w;
    for (let i = this.prefixValid; i < m; i++) {
      const x = this.metas[i]!;
      this.pn[i + 1] = this.pn[i]! + x.n;
      this.pmax[i + 1] = Math.max(this.pmax[i]!, x.maxVisible);
      for (let d = 0; d < w; d++) this.ps[(i + 1) * w + d] = this.ps[i * w + d]! + x.sums[d]!;
    }
    this.prefixValid = m;
  }

  /** Largest k <= limit with pmax[k] < t (pmax is non-decreasing). */
  private prefixVisibleBefore(t: number, limit: number): number {
    let lo = 0;
    let hi = limit;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (this.pmax[mid]! < t) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** First position whose month starts at or after x. */
  private firstStartAtOrAfter(x: number): number {
    let lo = 0;
    let hi = this.metas.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.starts[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First position whose month ends after x (i.e. holds or follows instant x). */
  private firstEndAfter(x: number): number {
    let lo = 0;
    let hi = this.metas.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ends[mid]! <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Position of the chunk starting at `start`, or ~(insertion point). */
  private positionOf(start: number): number {
    const starts = this.starts;
    const last = starts.length - 1;
    if (last >= 0 && starts[last] === start) return last;
    let lo = 0;
    let hi = starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const s = starts[mid]!;
      if (s === start) return mid;
      if (s < start) lo = mid + 1;
      else hi = mid;
    }
    return ~lo;
  }
}

/** First instant of the UTC month holding `ms` (±Infinity map to themselves). */
export function monthStart(ms: number): number {
  if (!Number.isFinite(ms)) return ms;
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
}

/** First instant of the UTC year holding `ms` (±Infinity map to themselves). */
export function yearStart(ms: number): number {
  if (!Number.isFinite(ms)) return ms;
  return Date.UTC(new Date(ms).getUTCFullYear(), 0, 1);
}

function nextYear(start: number): number {
  return Date.UTC(new Date(start).getUTCFullYear() + 1, 0, 1);
}

export function nextMonth(start: number): number {
  if (!Number.isFinite(start)) return start;
  const d = new Date(start);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}
