/**
 * An entity's rolling aggregate split into monthly chunks (by the UTC month of each event's off), so
 * that the processor keeps in memory, loads and checkpoints only the months it works on, while the
 * whole history stays queryable. An index of a sparse key may be chunked by UTC year instead (`period`):
 * everything below that says "month" then means "year" (a year block then holds one such "month").
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
 *
 * Old years rolled up: `rollUp(end)` folds the summaries of every month before `end` (a year's first
 * instant) into one entry at position 0 (start -Infinity, end `end`), and the head stores that entry
 * instead of needing those years' blocks, so loading, holding and querying an index costs what its
 * recent years hold, not its whole history. A query the total answers (a whole-history window with
 * every rolled event visible, a last-win walk whose horizon lies after them) uses it like any month's
 * summary; anything that needs those months apart (a window starting among them, a change to one of
 * them, a rolled event not yet visible) finds position 0 missing, and loading it (`load`, or
 * `expand`) reads the rolled years' blocks back and puts their months in its place.
 */
import { type ChunkPeriod, resetCounts, type TagSpace, windowCounts } from '../../domain/features/window-source.js';
import { startOfNextUtcMonth, startOfNextUtcYear, startOfUtcMonth, startOfUtcYear } from '../../domain/time.js';
import { EventIndex, firstFromEnd, NO_KEYS, TAG_TOTAL_HEAD, type WindowCounts } from './event-index.js';
import { TagSeries } from './tag-series.js';

/**
 * Room for at least this many events in a new month's chunk: most keys (owners, dams) have one or two a
 * month. A busy key's new month gets room for as many as the month before it held (a jockey's month of
 * a hundred rides is not grown through 4, 8, .. 128, each array copied and left to the collector), up to
 * MAX_HINTED_CAPACITY; beyond that it grows by doubling.
 */
const NEW_CHUNK_CAPACITY = 4;
const MAX_HINTED_CAPACITY = 1024;

/** Loads a chunk's events by month start; undefined when the store has none. */
export type ChunkLoader = (monthStart: number) => Promise<EventIndex | undefined>;

/** Reads the stored summary blocks of these years (first instants), in order (to expand a roll-up). */
export type YearLoader = (years: readonly number[]) => Promise<YearBlock[]>;

/** A changed month as `takeDirty` hands it out for writing: its first instant and its events. */
export interface DirtyChunk {
  start: number;
  chunk: EventIndex;
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
  /**
   * The months before a year rolled up into one total, as doubles: [end, n, maxVisible, then the
   * width sums], where end is the first instant of the first year not rolled; empty when none is.
   * The years before end are in `years` (their blocks stay stored) but are not read to load the index.
   */
  roll: number[];
  /** the keys of the superseded events (`ChunkedIndex.superseded`), empty when none */
  supersededKeys?: string[];
  /** per superseded event, in the order of its key: off, visibleAt, until, then the width vector values */
  superseded?: number[];
}

/**
 * An event of a result version that a later version superseded after the race's off (a correction): it
 * counts at an instant t iff visibleAt < t <= until (until: when the next version became visible), the
 * instants at which its version was the latest visible, so a race off before the correction keeps what
 * it saw. Events of the latest versions are in the months; these few are kept apart, in the head.
 */
export interface SupersededEvent {
  key: string;
  off: number;
  visibleAt: number;
  until: number;
  vec: number[];
}

/**
 * The summaries of one year's k months, as stored: [k, then start, n, maxVisible per month, then the
 * k x width sums], in one array of doubles (so a block checks its own length). An index whose events
 * carry tags (its tag spaces, each a second key's tag: tags.ts) follows them with each month's totals per
 * tag: per month and per space in order, the number of tags T, then T entries of `EventIndex.tagTotals`
 * ([a, b, count, latest visibleAt, sums of the space's dimensions]).
 */
export type YearBlock = Float64Array;

/** A month's totals per tag of one space (`EventIndex.tagTotals`): made from its events, or a view of its year block. */
type TagTotals = ArrayLike<number>;

const NO_SPACES: readonly TagSpace[] = [];
/** What the `missing*` queries answer when every chunk is in memory (most asks): no array made for it. */
const NONE_MISSING: readonly number[] = Object.freeze([]);

export class MissingChunkError extends Error {
  constructor(start: number) {
    super(
      Number.isFinite(start)
        ? `chunk ${new Date(start).toISOString().slice(0, 7)} is not loaded`
        : 'the rolled-up months are not loaded',
    );
  }
}

/** The years of a head that loading the index reads blocks for (those not rolled up). */
export function unrolledYears(head: ChunkedIndexHead): number[] {
  const end = head.roll.length > 0 ? head.roll[0]! : Number.NEGATIVE_INFINITY;
  return head.years.filter((y) => y >= end);
}

// The fields of one month in `ChunkedIndex.m` (then its `width` sums from SUMS on).
const START = 0; // first instant of the month (UTC ms)
const END = 1; // first instant of the next month
const N = 2; // events
const MAXV = 3; // latest visibleAt, -Infinity when empty
const USED = 4; // stream time (the index's `touched`) a query last needed the chunk in detail, or it was loaded
const DIRTY = 5; // 1 when changed since the last takeDirty
const SUMS = 6;
/**
 * A tag series drops the months before the windows asked lately once they reach this far past its first
 * month, keeping the last SERIES_SLACK_MS of them: the rows of a batch ask windows months apart, and a
 * window starting before the series' first month makes it again from the months' lists.
 */
const SERIES_TRIM_MS = 240 * 86_400_000;
const SERIES_SLACK_MS = 120 * 86_400_000;
// The fields of one prefix entry in `ChunkedIndex.p` (then its `width` sums from PS on).
const PN = 0;
const PMAX = 1;
const PS = 2;

export class ChunkedIndex {
  /** doubles per month in `m` */
  private readonly stride: number;
  /**
   * The months with events, ascending by start, `stride` doubles each (start, end, n, maxVisible, used,
   * dirty, then the sums): one array of unboxed doubles per index rather than an object and a sums array
   * per month, so loading an index of a decades-long history builds two arrays, not a thousand objects,
   * and the binary searches of every query read it directly. Grown by doubling. A plain array of
   * doubles, not a Float64Array: hundreds of thousands of indexes are created and loaded, and each
   * typed array would be an off-heap buffer the collector tracks one by one.
   */
  private m: number[];
  /** how many months `m` holds */
  private len = 0;
  /** each month's events when in memory, else null (parallel to the months) */
  private chunks: (EventIndex | null)[] = [];
  /**
   * The totals per tag of each month, one entry per tag space (`EventIndex.tagTotals`, parallel to the
   * months; null for the rolled-up position 0; undefined while stale, after a change, until a query or a
   * year block needs them: `tagsAt`), resident whether or not the month's events are: a tagged window
   * reads its whole months from them and only the months at its edges in detail. Empty without spaces.
   */
  private tags: (TagTotals[] | null | undefined)[] = [];
  /**
   * Prefix entries over the months, `2 + width` doubles each: entry i holds the count, the maximum of
   * maxVisible and the sums over months [0, i). Valid up to entry `prefixValid`.
   */
  private p: number[];
  private prefixValid = 0;
  /**
   * races whose rows read this entity but where it has no event: a runner of theirs declared and without
   * a result, or left out of the result (raceId -> off)
   */
  readonly pending = new Map<string, number>();
  /** events of superseded result versions (SupersededEvent), by key then visibleAt; usually none */
  superseded: SupersededEvent[] = [];
  headDirty = false;
  /** stream time this index was last used (eviction) */
  touched = 0;
  /** the owner's checkpoint count when it last queued this index as changed (EngineState.touchIndex) */
  checkpointEpoch = -1;
  /** how many months have no chunk in memory (0: every query is answerable, no residency check) */
  private absent = 0;
  /** how many months are dirty (changed since the last takeDirty) */
  private dirtyChunks = 0;
  /**
   * No position below this has a chunk in memory, so the eviction and checkpoint walks start here, not
   * at the first month of a history decades long (most old months are not resident).
   */
  private residentFrom = 0;
  /** the years rolled up into position 0 (ascending), or null when nothing is rolled up */
  private rolledYears: number[] | null = null;
  /** the end of the roll-up the stored head holds: a change to a month before it changes the head */
  private storedRollEnd = Number.NEGATIVE_INFINITY;
  /** an expansion under way (two queries may ask for the rolled months at once) */
  private expanding: Promise<void> | undefined;

  constructor(
    readonly width: number,
    private readonly loader?: ChunkLoader,
    capacity = 2,
    private readonly yearLoader?: YearLoader,
    /** the second keys' tags its events carry (`windowTagged`): totals per tag are kept per month and space */
    readonly spaces: readonly TagSpace[] = NO_SPACES,
    /**
     * 'year': each chunk holds a whole UTC year rather than a month (for a sparse key, whose events are a
     * few a year: one chunk, one record and one event index a year instead of one a month). Every
     * "month" of this class is then a year; untagged indexes only.
     */
    period: ChunkPeriod = 'month',
  ) {
    if (period === 'year' && spaces.length > 0) throw new Error('a tagged index is chunked by month');
    this.periodStart = period === 'year' ? yearStart : monthStart;
    this.periodEnd = period === 'year' ? nextYear : nextMonth;
    this.tagged = spaces.length > 0;
    this.series = spaces.map((space) => new TagSeries(space.dims.length));
    this.wholeMonths = spaces.map((space) => new Array<number>(2 + space.dims.length).fill(0));
    this.stride = SUMS + width;
    this.m = new Array<number>(Math.max(1, capacity) * this.stride).fill(0);
    this.p = new Array<number>(PS + width).fill(0);
    this.p[PMAX] = Number.NEGATIVE_INFINITY;
  }

  /** Whether its events carry tags (any tag space). */
  readonly tagged: boolean;
  /** the first instant of the chunk holding an instant, and of the chunk after it (`period`) */
  private readonly periodStart: (ms: number) => number;
  private readonly periodEnd: (ms: number) => number;

  /** The index as stored: its head and the summary block of each of the head's years, in order. */
  static fromHead(
    width: number,
    head: ChunkedIndexHead,
    blocks: readonly YearBlock[],
    loader?: ChunkLoader,
    yearLoader?: YearLoader,
    spaces: readonly TagSpace[] = NO_SPACES,
    period: ChunkPeriod = 'month',
  ): ChunkedIndex {
    const want = unrolledYears(head);
    if (blocks.length !== want.length) {
      throw new Error(`index head names ${want.length} years to read, ${blocks.length} summary blocks given`);
    }
    const rolled = head.roll.length > 0;
    if (rolled && head.roll.length !== 3 + width) {
      throw new Error(`a roll-up of ${head.roll.length} doubles does not hold width ${width}`);
    }
    const total = monthsIn(blocks, width, spaces);
    const idx = new ChunkedIndex(width, loader, total + (rolled ? 1 : 0), yearLoader, spaces, period);
    const m = idx.m;
    if (rolled) {
      const r = head.roll;
      m[START] = Number.NEGATIVE_INFINITY;
      m[END] = r[0]!;
      m[N] = r[1]!;
      m[MAXV] = r[2]!;
      m[USED] = Number.NEGATIVE_INFINITY;
      for (let d = 0; d < width; d++) m[SUMS + d] = r[3 + d]!;
      idx.rolledYears = head.years.filter((y) => y < r[0]!);
      idx.storedRollEnd = r[0]!;
    }
    const first = rolled ? 1 : 0;
    writeMonths(m, idx.stride, first, blocks, width, idx.periodEnd);
    idx.len = first + total;
    idx.chunks = new Array<EventIndex | null>(idx.len).fill(null);
    if (idx.tagged) idx.tags = rolled ? [null, ...tagsIn(blocks, width, spaces)] : tagsIn(blocks, width, spaces);
    idx.absent = idx.len;
    idx.residentFrom = idx.len;
    for (let p = 0; p < head.pendingRaces.length; p++) idx.pending.set(head.pendingRaces[p]!, head.pendingOffs[p]!);
    const keys = head.supersededKeys ?? [];
    const sv = head.superseded ?? [];
    if (sv.length !== keys.length * (3 + width)) {
      throw new Error(
        `an index head's ${keys.length} superseded events do not fill ${sv.length} doubles of width ${width}`,
      );
    }
    for (let q = 0; q < keys.length; q++) {
      const o = q * (3 + width);
      idx.superseded.push({
        key: keys[q]!,
        off: sv[o]!,
        visibleAt: sv[o + 1]!,
        until: sv[o + 2]!,
        vec: sv.slice(o + 3, o + 3 + width),
      });
    }
    return idx;
  }

  toHead(): ChunkedIndexHead {
    const years: number[] = this.rolledYears ? [...this.rolledYears] : [];
    for (let i = this.rolledYears ? 1 : 0; i < this.len; i++) {
      const y = yearStart(this.startAt(i));
      if (years[years.length - 1] !== y) years.push(y);
    }
    const roll: number[] = [];
    if (this.rolledYears) {
      const m = this.m;
      roll.push(m[END]!, m[N]!, m[MAXV]!);
      for (let d = 0; d < this.width; d++) roll.push(m[SUMS + d]!);
    }
    this.storedRollEnd = this.rolledYears ? this.m[END]! : Number.NEGATIVE_INFINITY;
    const head: ChunkedIndexHead = {
      years,
      pendingRaces: [...this.pending.keys()],
      pendingOffs: [...this.pending.values()],
      roll,
    };
    if (this.superseded.length > 0) {
      head.supersededKeys = this.superseded.map((e) => e.key);
      head.superseded = this.superseded.flatMap((e) => [e.off, e.visibleAt, e.until, ...e.vec]);
    }
    return head;
  }

  /** Whether the months before some year are rolled up into position 0. */
  get rolled(): boolean {
    return this.rolledYears !== null;
  }

  /**
   * Folds every month before `end` (the first instant of a year) into one total at position 0, when
   * none of them is in memory (each chunk before `end` evicted, so none is dirty) and there is more
   * than the current roll-up to fold; returns whether it did (the head then changed). In place: the
   * arrays keep their capacity until the index is next loaded from its head.
   */
  rollUp(end: number): boolean {
    if (yearStart(end) !== end) throw new Error(`a roll-up ends at a year's start, not ${end}`);
    const k = this.firstEndAfter(end); // positions wholly before end (months end at or before it)
    const already = this.rolledYears !== null;
    if (k === 0 || (k === 1 && already)) return false;
    for (let i = this.residentFrom; i < k; i++) if (this.chunks[i]) return false;
    const S = this.stride;
    const w = this.width;
    const old = this.m;
    const years: number[] = already ? [...this.rolledYears!] : [];
    let n = 0;
    let maxV = Number.NEGATIVE_INFINITY;
    const sums = new Array<number>(w).fill(0);
    for (let i = 0; i < k; i++) {
      const o = i * S;
      n += old[o + N]!;
      maxV = Math.max(maxV, old[o + MAXV]!);
      for (let d = 0; d < w; d++) sums[d]! += old[o + SUMS + d]!;
      if (i === 0 && already) continue;
      const y = yearStart(old[o + START]!);
      if (years[years.length - 1] !== y) years.push(y);
    }
    // in place: at the first checkpoint of a year every changed index rolls a year more, and new arrays
    // for all of them at once were a burst of garbage (a loaded index gets arrays of its new size)
    const len = this.len - k + 1;
    const m = old;
    m.copyWithin(S, k * S, this.len * S);
    m.fill(0, len * S, this.len * S);
    m[START] = Number.NEGATIVE_INFINITY;
    m[END] = end;
    m[N] = n;
    m[MAXV] = maxV;
    m[USED] = Number.NEGATIVE_INFINITY;
    m[DIRTY] = 0;
    for (let d = 0; d < w; d++) m[SUMS + d] = sums[d]!;
    this.chunks.splice(0, k, null);
    if (this.tagged) this.tags.splice(0, k, null);
    for (const ser of this.series) ser.reset(Number.POSITIVE_INFINITY); // (made again from the months left)
    this.len = len;
    this.absent -= k - 1;
    this.residentFrom -= k - 1;
    this.rolledYears = years;
    this.prefixValid = 0; // (entry 0 of the prefixes is the empty prefix, never rewritten)
    this.headDirty = true;
    return true;
  }

  /**
   * Puts the rolled-up months back in their own places (all of them absent), read through the year
   * loader; a no-op when nothing is rolled up. Positions taken before it are stale after it.
   */
  expand(): Promise<void> {
    if (!this.rolledYears) return Promise.resolve();
    this.expanding ??= this.expandNow().finally(() => (this.expanding = undefined));
    return this.expanding;
  }

  private async expandNow(): Promise<void> {
    const years = this.rolledYears!;
    if (!this.yearLoader) throw new MissingChunkError(Number.NEGATIVE_INFINITY);
    const blocks = await this.yearLoader(years);
    if (this.rolledYears !== years) return; // expanded, or rolled further, while the blocks were read
    if (blocks.length !== years.length) throw new Error(`${years.length} rolled years asked, ${blocks.length} read`);
    const w = this.width;
    const k = monthsIn(blocks, w, this.spaces);
    const S = this.stride;
    const old = this.m;
    const m = new Array<number>((this.len - 1 + k) * S + S).fill(0);
    writeMonths(m, S, 0, blocks, w, this.periodEnd);
    let n = 0;
    for (let i = 0; i < k; i++) n += m[i * S + N]!;
    if (n !== old[N]) {
      throw new Error(
        `the stored years before ${new Date(old[END]!).toISOString().slice(0, 4)} hold ${n} events, the roll-up ${old[N]}`,
      );
    }
    for (let x = S; x < this.len * S; x++) m[k * S + x - S] = old[x]!;
    this.m = m;
    this.chunks.splice(0, 1, ...new Array<EventIndex | null>(k).fill(null));
    if (this.tagged) this.tags.splice(0, 1, ...tagsIn(blocks, w, this.spaces));
    for (const ser of this.series) ser.reset(Number.POSITIVE_INFINITY); // (earlier months are back)
    this.len += k - 1;
    this.absent += k - 1;
    this.residentFrom += k - 1;
    this.rolledYears = null;
    this.prefixValid = 0; // (ensurePrefix grows the prefixes; their entry 0 is the empty prefix)
  }

  /** The summary block of the year starting at `year` (its months as they are now). */
  yearBlock(year: number): YearBlock {
    const out = new Float64Array(this.yearBlockLength(year));
    this.yearBlockInto(year, out);
    return out;
  }

  /** The number of doubles `yearBlock(year)` holds. */
  yearBlockLength(year: number): number {
    const a = this.firstStartAtOrAfter(year);
    const k = this.firstStartAtOrAfter(nextYear(year)) - a;
    let n = 1 + k * (3 + this.width);
    if (this.tagged) for (let i = a; i < a + k; i++) for (const tg of this.tagsAt(i)!) n += 1 + tg.length;
    return n;
  }

  /** Writes `yearBlock(year)` into `out` (at least `yearBlockLength(year)` long) from position 0. */
  yearBlockInto(year: number, out: Float64Array): void {
    const w = this.width;
    const S = this.stride;
    const m = this.m;
    const a = this.firstStartAtOrAfter(year);
    const k = this.firstStartAtOrAfter(nextYear(year)) - a;
    out[0] = k;
    const at = 1 + 3 * k;
    for (let i = 0; i < k; i++) {
      const o = (a + i) * S;
      out[1 + 3 * i] = m[o + START]!;
      out[2 + 3 * i] = m[o + N]!;
      out[3 + 3 * i] = m[o + MAXV]!;
      for (let d = 0; d < w; d++) out[at + i * w + d] = m[o + SUMS + d]!;
    }
    if (!this.tagged) return;
    let q = at + k * w;
    for (let i = a; i < a + k; i++) {
      const all = this.tagsAt(i)!;
      for (let s = 0; s < all.length; s++) {
        const tg = all[s]!;
        out[q++] = tg.length / (TAG_TOTAL_HEAD + this.spaces[s]!.dims.length);
        for (let x = 0; x < tg.length; x++) out[q++] = tg[x]!;
      }
    }
  }

  /** How many months have events. */
  get months(): number {
    return this.len;
  }

  get size(): number {
    let n = 0;
    for (let i = 0; i < this.len; i++) n += this.m[i * this.stride + N]!;
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

  /**
   * Adds the event of a superseded result version (SupersededEvent), replacing one of the same key and
   * visibleAt; an empty interval adds nothing. Kept sorted by (key, visibleAt): the head's bytes then
   * depend only on the set of events.
   */
  addSuperseded(key: string, off: number, visibleAt: number, until: number, vec: readonly number[]): void {
    if (!(visibleAt < until)) return;
    if (vec.length !== this.width) throw new Error(`a vector of ${vec.length} in an index of width ${this.width}`);
    const list = this.superseded;
    const e: SupersededEvent = { key, off, visibleAt, until, vec: [...vec] };
    const same = list.findIndex((x) => x.key === key && x.visibleAt === visibleAt);
    if (same >= 0) list[same] = e;
    else {
      let i = list.length;
      while (i > 0 && (list[i - 1]!.key > key || (list[i - 1]!.key === key && list[i - 1]!.visibleAt > visibleAt))) i--;
      list.splice(i, 0, e);
    }
    this.headDirty = true;
  }

  /** Removes every superseded event of a key; returns whether there was one. */
  removeSuperseded(key: string): boolean {
    const before = this.superseded.length;
    if (before === 0) return false;
    this.superseded = this.superseded.filter((e) => e.key !== key);
    if (this.superseded.length === before) return false;
    this.headDirty = true;
    return true;
  }

  // ---- residency ----

  /** Positions of the chunks `window(from, t)` needs that are not in memory. */
  missing(from: number, t: number): readonly number[] {
    if (this.absent === 0) return NONE_MISSING;
    const out: number[] = [];
    this.scan(from, t, out);
    return out;
  }

  /**
   * Positions of the chunks `windowTagged(from, t, ...)` needs that are not in memory: the months of
   * [from, t) it reads in detail (position 0 when the window starts among rolled-up years, which
   * loading expands).
   */
  missingTagged(from: number, t: number): readonly number[] {
    if (this.absent === 0) return NONE_MISSING;
    const out: number[] = [];
    this.scanTagged(from, t, 0, 0, 0, null, out);
    return out;
  }

  /** Positions of chunks holding events off after `off` (or the chunk of `off` itself) that are not in memory. */
  missingFrom(off: number): readonly number[] {
    if (this.absent === 0) return NONE_MISSING;
    const out: number[] = [];
    for (let i = this.firstEndAfterNearEnd(off); i < this.len; i++) if (!this.chunks[i]) out.push(i);
    return out;
  }

  /** Loads the chunks at these positions. */
  async load(positions: readonly number[]): Promise<void> {
    if (this.rolledYears && positions.includes(0)) {
      await this.expand(); // the other positions moved: the ensure* loops ask again
      return;
    }
    for (const p of positions) {
      if (this.chunks[p]) continue;
      const start = this.startAt(p);
      this.install(start, this.loader ? await this.loader(start) : undefined);
    }
  }

  /**
   * Puts a chunk read from the store (undefined: the store has none) in its month's place, unless that
   * month is resident already or has gone. Found by its month, not a position: positions taken before a
   * read that awaited may have shifted. `load` reads one chunk at a time; a caller that gathers the
   * months many indexes need reads them in one multi-get and installs each here.
   */
  install(start: number, c: EventIndex | undefined): void {
    if (!Number.isFinite(start)) throw new Error('the rolled-up months are read with expand(), not installed');
    const i = this.positionOf(start);
    if (i < 0 || this.chunks[i]) return;
    if (i < this.residentFrom) this.residentFrom = i;
    this.m[i * this.stride + USED] = this.touched;
    if (!c) {
      if (this.m[i * this.stride + N]! > 0) {
        throw new Error(`state is missing the chunk ${new Date(start).toISOString().slice(0, 7)}`);
      }
      this.chunks[i] = new EventIndex(this.width);
    } else {
      this.chunks[i] = c;
    }
    this.absent--;
  }

  /** Makes `window(from, t)` answerable; undefined when nothing had to be loaded. */
  ensure(from: number, t: number): Promise<void> | undefined {
    if (this.absent === 0) return undefined; // the query itself marks the chunks it reads as used
    const miss = this.missing(from, t);
    return miss.length > 0 ? this.load(miss).then(() => this.ensure(from, t)) : undefined;
  }

  /** Makes `keysOffAfter(off)` and changes at `off` answerable. */
  ensureFrom(off: number): Promise<void> | undefined {
    const miss = this.missingFrom(off);
    return miss.length > 0 ? this.load(miss).then(() => this.ensureFrom(off)) : undefined;
  }

  /**
   * Drops from memory the clean chunks of months ending at or before `before` that no query needed
   * since `idleBefore` (a window's first month is read in detail by every row until the window moves
   * on: evicting it at every checkpoint would reload it for every batch); returns how many.
   */
  evictChunksBefore(before: number, idleBefore = Number.POSITIVE_INFINITY): number {
    let dropped = 0;
    const m = this.m;
    const S = this.stride;
    const chunks = this.chunks;
    for (let i = this.residentFrom; i < this.len; i++) {
      const o = i * S;
      if (m[o + END]! > before) break;
      if (chunks[i] && m[o + DIRTY] === 0 && m[o + USED]! < idleBefore) {
        if (this.tagged) this.tagsAt(i); // (the totals stay when the events go)
        chunks[i] = null;
        dropped++;
      }
    }
    this.absent += dropped;
    while (this.residentFrom < this.len && !chunks[this.residentFrom]) this.residentFrom++;
    return dropped;
  }

  // ---- changes (the chunk of the event's month must be resident) ----

  upsert(key: string, off: number, visibleAt: number, vec: readonly number[]): void {
    const start = this.periodStart(off);
    if (this.rolledYears && start < this.m[END]!) throw new MissingChunkError(Number.NEGATIVE_INFINITY);
    let i = this.positionOf(start);
    if (i < 0) {
      i = ~i;
      const year = yearStart(start);
      const prevSame = i > 0 && yearStart(this.startAt(i - 1)) === year;
      const nextSame = i < this.len && yearStart(this.startAt(i)) === year;
      if (!prevSame && !nextSame) this.headDirty = true;
      if (i < this.residentFrom) this.residentFrom = i; // (later positions shift up: still none resident below)
      // (the month before's count, read before the insert shifts nothing below i)
      const before = i > 0 ? this.m[(i - 1) * this.stride + N]! : 0;
      this.insertMonth(i, start);
      const capacity = Math.max(NEW_CHUNK_CAPACITY, Math.min(before, MAX_HINTED_CAPACITY));
      this.chunks.splice(i, 0, new EventIndex(this.width, capacity));
      if (this.tagged) this.tags.splice(i, 0, undefined);
      this.invalidate(i);
    }
    const c = this.chunks[i];
    if (!c) throw new MissingChunkError(start);
    c.upsert(key, off, visibleAt, vec);
    this.summarise(i);
  }

  /** Removes the event with this key from the month of `off`; returns whether it was there. */
  remove(key: string, off: number): boolean {
    if (this.rolledYears && off < this.m[END]!) throw new MissingChunkError(Number.NEGATIVE_INFINITY);
    const i = this.positionOf(this.periodStart(off));
    if (i < 0) return false;
    const c = this.chunks[i];
    if (!c) throw new MissingChunkError(this.startAt(i));
    if (!c.remove(key)) return false;
    this.summarise(i);
    return true;
  }

  /**
   * The chunks changed since the last call, the years whose summary block changed with them (a chunk's
   * summary changes exactly when its events do) and whether the head changed; marks them clean.
   */
  takeDirty(): { head: boolean; chunks: DirtyChunk[]; years: number[] } {
    const chunks: DirtyChunk[] = [];
    const years: number[] = [];
    if (this.dirtyChunks > 0) {
      const m = this.m;
      const S = this.stride;
      // a dirty chunk is in memory: none lies below residentFrom
      for (let i = this.residentFrom; i < this.len; i++) {
        const o = i * S;
        if (m[o + DIRTY] === 0) continue;
        m[o + DIRTY] = 0;
        const start = m[o + START]!;
        chunks.push({ start, chunk: this.chunks[i]! });
        const y = yearStart(start);
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
   * Counts and sums over events with off in [from, t) visible at t (visibleAt < t), superseded events in
   * force at t included; latestVisible is the latest visibleAt < t over the whole history (as
   * EventIndex.window), or the until of a superseded event ended before t when later. With `out`,
   * written there.
   */
  window(from: number, t: number, out?: WindowCounts): WindowCounts {
    const res = this.scan(from, t, null, out)!;
    if (this.superseded.length > 0) this.addSupersededTo(from, t, res, null, 0, 0);
    return res;
  }

  /**
   * Adds to a window's counts the superseded events in force at t (visibleAt < t <= until) with off in
   * [from, t) (with a `space`: those whose tag in it is (a, b), the space's dimensions into sums), in the
   * list's order. Untagged, latestVisible also takes the visibleAt of every one in force and the until of
   * every one superseded before t (the correction that ended it is an input visible at t).
   */
  private addSupersededTo(
    from: number,
    t: number,
    out: WindowCounts,
    space: TagSpace | null,
    a: number,
    b: number,
  ): void {
    const tagged = space !== null;
    let latest = out.latestVisible;
    const sums = out.sums;
    for (const e of this.superseded) {
      if (!(e.visibleAt < t)) continue;
      if (e.until < t) {
        if (!tagged && e.until > latest) latest = e.until;
        continue;
      }
      if (e.off < from) {
        if (!tagged && e.visibleAt > latest) latest = e.visibleAt;
        continue;
      }
      const v = e.vec;
      if (space) {
        if (v[space.dim] !== a || v[space.dim + 1] !== b) continue;
        const dims = space.dims;
        for (let k = 0; k < dims.length; k++) sums[k]! += v[dims[k]!]!;
      } else for (let d = 0; d < v.length; d++) sums[d]! += v[d]!;
      out.n++;
      if (e.visibleAt > latest) latest = e.visibleAt;
    }
    out.latestVisible = latest;
  }

  /**
   * Counts and sums over the events with off in [from, t), visible at t (visibleAt < t), whose tag in
   * `space` (one of the index's spaces) is (a, b), a second key's (tags.ts): the composite key (parent,
   * second key) answered from the parent's index. `out.sums` gets the space's dimensions, in its order;
   * latestVisible is the latest visibleAt among the events counted (0 when none). A month wholly inside
   * the window with every event visible at t is added from its totals per tag (`tags`), any other month
   * of the window event by event, in month order: which months are which depends only on the window and
   * the events, so the answer (to the bit) depends only on the set of events. The months read in detail
   * must be resident: `missingTagged`.
   */
  windowTagged(from: number, t: number, space: TagSpace, a: number, b: number, out?: WindowCounts): WindowCounts {
    const s = this.spaces.indexOf(space);
    if (s < 0) throw new Error('a tagged window over a tag space the index does not carry');
    const res = out ? resetCounts(out, space.dims.length) : windowCounts(space.dims.length);
    res.latestVisible = this.scanTagged(from, t, s, a, b, res, null);
    if (this.superseded.length > 0) this.addSupersededTo(from, t, res, space, a, b);
    return res;
  }

  /** windowTagged's walk: adds to `acc` and returns the latest visibleAt, or (with `missing`) names the months it lacks. */
  private scanTagged(
    from: number,
    t: number,
    s: number,
    ta: number,
    tb: number,
    acc: WindowCounts | null,
    missing: number[] | null,
  ): number {
    this.ensurePrefix();
    const iT = this.firstStartAtOrAfterNearEnd(t);
    const iFrom = from === Number.NEGATIVE_INFINITY ? 0 : this.firstEndAfter(from);
    // [ws, we): the months wholly inside [from, t) with every event visible at t (as in scan), read
    // from their totals per tag (not the rolled-up position 0, which has none)
    let ws = Math.max(iFrom, from === Number.NEGATIVE_INFINITY ? 0 : this.firstStartAtOrAfter(from));
    if (this.tagged && ws === 0 && this.rolledYears) ws = 1;
    const we = this.tagged
      ? Math.max(ws, Math.min(this.prefixVisibleBefore(t, iT), this.firstEndAfterNearEnd(t), iT))
      : ws;
    const m = this.m;
    const S = this.stride;
    const touched = this.touched;
    let latest = 0;
    // the other months of the window, event by event in month order (jumping over [ws, we))
    for (let i = iFrom; i < iT; i++) {
      if (i === ws && we > ws) {
        i = we - 1;
        continue;
      }
      const o = i * S;
      if (m[o + N] === 0) continue;
      const c = this.chunks[i];
      if (!c) {
        if (missing) missing.push(i);
        else throw new MissingChunkError(m[o + START]!);
        continue;
      }
      m[o + USED] = touched;
      if (!acc) continue;
      const lv = c.addTagged(from, t, this.spaces[s]!, ta, tb, acc);
      if (lv > latest) latest = lv;
    }
    if (!acc || we === ws) return latest;
    // then the whole months' totals of the tag, summed from zero in month order (from the space's series:
    // the same additions as a walk through each month's list of tags, so the same bits)
    const w = this.seriesSum(s, ws, we, ta, tb);
    acc.n += w[0]!;
    const sums = acc.sums;
    for (let d = 0; d < w.length - 2; d++) sums[d]! += w[2 + d]!;
    return Math.max(latest, w[1]!);
  }

  /**
   * The totals of tag (a, b) of space s over the months at positions [ws, we) (every one holding
   * totals per tag: not the rolled-up position 0), from the space's series, first brought up to those
   * months: [n, latest, sums...] in a scratch array (valid until the next call).
   */
  private seriesSum(s: number, ws: number, we: number, a: number, b: number): number[] {
    const ser = this.series[s]!;
    const first = this.startAt(ws);
    const last = this.startAt(we - 1);
    if (!ser.holds(first, last)) {
      ser.dropStale();
      if (first < ser.from || ser.from >= ser.upTo) ser.reset(first);
      else if (first - ser.from > SERIES_TRIM_MS) ser.trimBefore(first - SERIES_SLACK_MS);
      const S = this.stride;
      for (let i = this.firstStartAtOrAfter(ser.upTo); i < we; i++) {
        ser.append(this.m[i * S + START]!, this.m[i * S + END]!, this.tagsAt(i)![s]!);
      }
    }
    return ser.sum(a, b, first, last, this.wholeMonths[s]!);
  }

  /** Each space's whole-month totals, transposed per tag (`TagSeries`), made as tagged windows need them. */
  private readonly series: TagSeries[];
  /** a scratch [n, latest, sums...] per space for `seriesSum` */
  private readonly wholeMonths: number[][];

  /**
   * The off of the latest event off before t, visible at t, with vector dimension `dim` > 0 (e.g. the
   * last win): a number; `-Infinity` when the latest such event is off before `horizon` (its exact off
   * is not needed, so old months are answered from their summaries); undefined when there is none.
   * Every chunk it reads in detail must be resident: `ensureLast` loads them.
   */
  lastOffWith(dim: number, t: number, horizon: number): number | undefined {
    let last = this.walkLast(dim, t, horizon, null);
    for (const e of this.superseded) {
      if (!(e.visibleAt < t && t <= e.until && e.vec[dim]! > 0)) continue;
      const off = e.off < horizon ? Number.NEGATIVE_INFINITY : e.off;
      if (last === undefined || off > last) last = off;
    }
    return last;
  }

  /** Makes `lastOffWith(dim, t, horizon)` answerable, loading chunks one at a time as the walk needs them. */
  ensureLast(dim: number, t: number, horizon: number): Promise<void> | undefined {
    let miss = this.missingLast(dim, t, horizon);
    if (miss.length === 0) return undefined;
    return (async () => {
      do {
        await this.load(miss);
        miss = this.missingLast(dim, t, horizon);
      } while (miss.length > 0);
    })();
  }

  /**
   * The first non-resident chunk `lastOffWith(dim, t, horizon)` would read, as a one-element list (empty
   * when it is answerable). The walk stops there: after loading it, ask again.
   */
  missingLast(dim: number, t: number, horizon: number): readonly number[] {
    if (this.absent === 0) return NONE_MISSING;
    const miss: number[] = [];
    this.walkLast(dim, t, horizon, miss);
    return miss;
  }

  /** Walks months back from t; with `missing`, stops at the first non-resident chunk it must read and names it. */
  private walkLast(dim: number, t: number, horizon: number, missing: number[] | null): number | undefined {
    this.ensurePrefix();
    const iT = this.firstStartAtOrAfterNearEnd(t);
    const j = this.prefixVisibleBefore(t, iT);
    const m = this.m;
    const S = this.stride;
    const P = PS + this.width;
    for (let i = iT - 1; i >= 0; i--) {
      const o = i * S;
      if (i < j && m[o + END]! <= horizon) {
        // This month and every earlier one are wholly visible and before the horizon: whether any of
        // them holds such an event is in the prefix sums, without walking back through decades.
        return this.p[(i + 1) * P + PS + dim]! > 0 ? Number.NEGATIVE_INFINITY : undefined;
      }
      if (!(m[o + SUMS + dim]! > 0)) continue; // no such event in the month at all
      const c = this.chunks[i];
      if (!c) {
        if (missing) {
          missing.push(i);
          return undefined;
        }
        throw new MissingChunkError(m[o + START]!);
      }
      const off = c.lastOffWith(dim, t);
      if (off !== undefined) return off;
    }
    return undefined;
  }

  /** The visibleAt of every event visible at or after t0 (every chunk holding one must be resident: ensureVisibleFrom). */
  visibleAtsFrom(t0: number): number[] {
    const out: number[] = [];
    const m = this.m;
    const S = this.stride;
    for (let i = 0; i < this.len; i++) {
      const o = i * S;
      if (m[o + N] === 0 || m[o + MAXV]! < t0) continue;
      const c = this.chunks[i];
      if (!c) throw new MissingChunkError(m[o + START]!);
      for (const v of c.visibleAtsFrom(t0)) out.push(v);
    }
    // a superseded event counts from its visibleAt and stops at its until
    for (const e of this.superseded) {
      if (e.visibleAt >= t0) out.push(e.visibleAt);
      if (e.until >= t0 && e.until !== Number.POSITIVE_INFINITY) out.push(e.until);
    }
    return out;
  }

  /** Makes `visibleAtsFrom(t0)` answerable. */
  ensureVisibleFrom(t0: number): Promise<void> | undefined {
    const miss: number[] = [];
    const m = this.m;
    const S = this.stride;
    for (let i = 0; i < this.len; i++) {
      const o = i * S;
      if (m[o + N]! > 0 && m[o + MAXV]! >= t0 && !this.chunks[i]) miss.push(i);
    }
    return miss.length > 0 ? this.load(miss).then(() => this.ensureVisibleFrom(t0)) : undefined;
  }

  /**
   * Keys of events off strictly after `off` (every later chunk must be resident). Linking asks it for
   * every run it adds, and a replay adds runs in off order: most answers are empty, and are one shared
   * empty list.
   */
  keysOffAfter(off: number): readonly string[] {
    let out: string[] | null = null;
    for (let i = this.firstEndAfterNearEnd(off); i < this.len; i++) {
      const c = this.chunks[i];
      if (!c) throw new MissingChunkError(this.startAt(i));
      const keys = c.keysOffAfter(off);
      if (keys.length === 0) continue;
      out ??= [];
      for (let q = 0; q < keys.length; q++) out.push(keys[q]!);
    }
    return out ?? NO_KEYS;
  }

  /**
   * The query, or (with `missing`) the positions of the non-resident chunks it would need.
   *
   * Chunks [0, j) have every event visible at t (prefix max of maxVisible < t); chunks from iT on are
   * off at or after t. Chunks in [a, b) lie wholly inside [from, t) with every event visible: their
   * summaries are added from the prefix sums. Every other chunk in [iFrom, iT) is read in detail, and
   * so are chunks before the window that hold an event visible only at or after t (for latestVisible).
   */
  private scan(from: number, t: number, missing: number[] | null, into?: WindowCounts): WindowCounts | undefined {
    const w = this.width;
    const P = PS + w;
    const p = this.p;
    this.ensurePrefix();
    const iT = this.firstStartAtOrAfterNearEnd(t);
    const iFrom = from === Number.NEGATIVE_INFINITY ? 0 : this.firstEndAfter(from);
    const j = this.prefixVisibleBefore(t, iT);
    const a = from === Number.NEGATIVE_INFINITY ? 0 : this.firstStartAtOrAfter(from);
    const b = Math.min(j, this.firstEndAfterNearEnd(t));
    const out: WindowCounts | undefined = missing ? undefined : into ? resetCounts(into, w) : windowCounts(w);
    const pm = p[j * P + PMAX]!;
    let found = pm !== Number.NEGATIVE_INFINITY;
    let latest = found ? pm : 0;
    if (out && a < b) {
      out.n = p[b * P + PN]! - p[a * P + PN]!;
      const sums = out.sums;
      for (let d = 0; d < w; d++) sums[d] = p[b * P + PS + d]! - p[a * P + PS + d]!;
    }
    const touched = this.touched;
    const m = this.m;
    const S = this.stride;
    const chunks = this.chunks;
    // Before the window only chunks from j on (holding an event visible at or after t) need a look,
    // for latestVisible; in the window, every chunk the prefix sums [a, b) do not cover. The covered
    // positions are jumped over, not walked: a window over decades covers hundreds of months.
    const skipFrom = Math.max(iFrom, a);
    for (let i = Math.min(j, iFrom); i < iT; i++) {
      if (i === skipFrom && b > skipFrom) {
        i = b - 1;
        continue;
      }
      const c = chunks[i];
      if (!c) {
        if (missing) missing.push(i);
        else throw new MissingChunkError(m[i * S + START]!);
        continue;
      }
      m[i * S + USED] = touched;
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
    const o = i * this.stride;
    const c = this.chunks[i]!;
    if (this.tagged) {
      this.tags[i] = undefined; // (made again when read: a month's events change many times between reads)
      for (const ser of this.series) ser.changed(this.m[o + START]!);
    }
    const m = this.m;
    m[o + N] = c.totalsInto(m, o + SUMS);
    m[o + MAXV] = c.maxVisible();
    if (m[o + START]! < this.storedRollEnd) this.headDirty = true; // the stored roll-up counted this month
    if (m[o + DIRTY] === 0) {
      m[o + DIRTY] = 1;
      this.dirtyChunks++;
    }
    this.invalidate(i);
  }

  /** A tagged index's totals per tag of month i, per space, made from its events when stale (a stale month is resident). */
  private tagsAt(i: number): TagTotals[] | null {
    const tg = this.tags[i];
    if (tg !== undefined) return tg;
    const c = this.chunks[i];
    if (!c)
      throw new Error(
        `the totals per tag of ${new Date(this.startAt(i)).toISOString().slice(0, 7)} are stale and its events absent`,
      );
    return (this.tags[i] = this.spaces.map((space) => c.tagTotals(space)));
  }

  /** Opens a month at position i (later months shift up), growing the arrays when full. */
  private insertMonth(i: number, start: number): void {
    const S = this.stride;
    const m = this.m;
    if ((this.len + 1) * S > m.length) growZeroed(m, Math.max(2, 2 * (this.len + 1)) * S);
    m.copyWithin((i + 1) * S, i * S, this.len * S);
    const o = i * S;
    m.fill(0, o, o + S);
    m[o + START] = start;
    m[o + END] = this.periodEnd(start);
    m[o + MAXV] = Number.NEGATIVE_INFINITY;
    m[o + USED] = this.touched;
    this.len++;
  }

  /** The first instant of the month at position i (positions as `missing` and `missingLast` name them). */
  startAt(i: number): number {
    return this.m[i * this.stride + START]!;
  }

  private invalidate(i: number): void {
    if (i < this.prefixValid) this.prefixValid = i;
  }

  private ensurePrefix(): void {
    const len = this.len;
    if (this.prefixValid >= len) return;
    const w = this.width;
    const P = PS + w;
    const S = this.stride;
    const m = this.m;
    const p = this.p;
    if (p.length < (len + 1) * P) growZeroed(p, (len + 1) * P);
    for (let i = this.prefixValid; i < len; i++) {
      const o = i * S;
      const q = i * P;
      const r = q + P;
      p[r + PN] = p[q + PN]! + m[o + N]!;
      p[r + PMAX] = Math.max(p[q + PMAX]!, m[o + MAXV]!);
      for (let d = 0; d < w; d++) p[r + PS + d] = p[q + PS + d]! + m[o + SUMS + d]!;
    }
    this.prefixValid = len;
  }

  /** First position whose month starts at or after x. */
  private firstStartAtOrAfter(x: number): number {
    const m = this.m;
    const S = this.stride;
    let lo = 0;
    let hi = this.len;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (m[mid * S + START]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** First position whose month ends after x (i.e. holds or follows instant x). */
  private firstEndAfter(x: number): number {
    const m = this.m;
    const S = this.stride;
    let lo = 0;
    let hi = this.len;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (m[mid * S + END]! <= x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * firstStartAtOrAfter for an x among the newest months (a window's end): galloping back from the last
   * month, then bisecting. A window ending at a race's off is mostly in the index's last month or two,
   * and each position a search reads is a cache line of its own: one or two probes instead of a
   * bisection's log2(months).
   */
  private firstStartAtOrAfterNearEnd(x: number): number {
    return firstFromEnd(this.m, this.stride, START, this.len, x, false);
  }

  /** firstEndAfter for an x among the newest months, as firstStartAtOrAfterNearEnd. */
  private firstEndAfterNearEnd(x: number): number {
    return firstFromEnd(this.m, this.stride, END, this.len, x, true);
  }

  /**
   * The largest k <= limit with pmax[k] < t (pmax is non-decreasing; position 0, the empty prefix, is
   * taken to qualify): one before the first that does not, found from the end as the months are.
   */
  private prefixVisibleBefore(t: number, limit: number): number {
    return Math.max(0, firstFromEnd(this.p, PS + this.width, PMAX, limit + 1, t, false) - 1);
  }

  /** Position of the chunk starting at `start`, or ~(insertion point). */
  private positionOf(start: number): number {
    const m = this.m;
    const S = this.stride;
    const last = this.len - 1;
    if (last >= 0 && m[last * S + START] === start) return last;
    let lo = 0;
    let hi = this.len;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const s = m[mid * S + START]!;
      if (s === start) return mid;
      if (s < start) lo = mid + 1;
      else hi = mid;
    }
    return ~lo;
  }
}

/** The months a run of year blocks holds (each block checked against its own counts, the width and the spaces). */
function monthsIn(blocks: readonly YearBlock[], width: number, spaces: readonly TagSpace[]): number {
  let total = 0;
  for (const b of blocks) {
    const k = b[0]!;
    let length = 1 + k * (3 + width);
    if (Number.isInteger(k) && k >= 0) {
      for (let j = 0; j < k && !Number.isNaN(length); j++) {
        for (const space of spaces) {
          const tags = b[length]; // (undefined past the end)
          const T = TAG_TOTAL_HEAD + space.dims.length;
          length = Number.isInteger(tags) && tags! >= 0 ? length + 1 + tags! * T : Number.NaN;
        }
      }
    }
    if (!Number.isInteger(k) || k < 0 || b.length !== length) {
      throw new Error(
        `a year block of ${b.length} doubles does not hold ${k} months of width ${width}${spaces.length > 0 ? ` with the tags of ${spaces.length} space(s)` : ''}`,
      );
    }
    total += k;
  }
  return total;
}

/**
 * Each month's totals per tag, per space, in a run of a tagged index's year blocks (checked by monthsIn),
 * as views of the blocks: a jockey loaded reads five years of them, most never queried before it is
 * evicted.
 */
function tagsIn(blocks: readonly YearBlock[], width: number, spaces: readonly TagSpace[]): TagTotals[][] {
  const out: TagTotals[][] = [];
  for (const b of blocks) {
    const k = b[0]!;
    let q = 1 + k * (3 + width);
    for (let j = 0; j < k; j++) {
      const month: TagTotals[] = [];
      for (const space of spaces) {
        const n = b[q]! * (TAG_TOTAL_HEAD + space.dims.length);
        month.push(b.subarray(q + 1, q + 1 + n));
        q += 1 + n;
      }
      out.push(month);
    }
  }
  return out;
}

/** Writes the months of year blocks into a months array (`stride` doubles each) from position `first`. */
function writeMonths(
  m: number[],
  S: number,
  first: number,
  blocks: readonly YearBlock[],
  width: number,
  periodEnd: (ms: number) => number,
): void {
  let i = first;
  for (const b of blocks) {
    const k = b[0]!;
    const at = 1 + 3 * k;
    for (let j = 0; j < k; j++, i++) {
      const o = i * S;
      const start = b[1 + 3 * j]!;
      m[o + START] = start;
      m[o + END] = periodEnd(start);
      m[o + N] = b[2 + 3 * j]!;
      m[o + MAXV] = b[3 + 3 * j]!;
      m[o + USED] = Number.NEGATIVE_INFINITY;
      m[o + DIRTY] = 0;
      for (let d = 0; d < width; d++) m[o + SUMS + d] = b[at + j * width + d]!;
    }
  }
}

/** Lengthens a plain array of doubles to `length`, the new entries 0 (no holes left to read). */
function growZeroed(a: number[], length: number): void {
  const had = a.length;
  a.length = length;
  a.fill(0, had);
}

/** First instant of the UTC month holding `ms` (±Infinity map to themselves). */
export function monthStart(ms: number): number {
  return Number.isFinite(ms) ? startOfUtcMonth(ms) : ms;
}

/** First instant of the UTC year holding `ms` (±Infinity map to themselves). */
export function yearStart(ms: number): number {
  return Number.isFinite(ms) ? startOfUtcYear(ms) : ms;
}

/** First instant of the year after the one holding `ms` (±Infinity map to themselves). */
function nextYear(ms: number): number {
  return Number.isFinite(ms) ? startOfNextUtcYear(ms) : ms;
}

/** First instant of the month after the one holding `ms` (±Infinity map to themselves). */
export function nextMonth(ms: number): number {
  return Number.isFinite(ms) ? startOfNextUtcMonth(ms) : ms;
}
