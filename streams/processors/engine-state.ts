/**
 * The analytics processor's state: races, horse histories, the entity indexes (chunked by month) and
 * pending interest. Everything lives in the state store (classic-level) as small records; memory holds
 * only what the recent stream touches, loaded on demand and evicted after each checkpoint once it is
 * clean and cold. So memory and start-up cost follow the work in flight, not the length of the history,
 * and processing one more day reads only that day's races and entities.
 *
 * Without a store (unit tests, the engine benchmark) everything stays in memory.
 *
 * Store layout (under the processor's `e/` prefix):
 *   r!<raceId>                    race state (cards, result, links, emitted fingerprints)
 *   h!<horseId>                   horse runs + pending races
 *   i!<kind>!<id>                 entity index head: the years it has months in, pending races, and
 *                                 the total of the years rolled up (their year blocks are read only
 *                                 when a query or a change needs those months apart)
 *   y!<kind>!<id>!<yearStart>     the summaries of an entity's months in one year (counts, sums)
 *   k!<kind>!<id>!<monthStart>    one month of an entity's events
 *   cr!<courseId>!<raceId>        races at a course (to recompute them when the course changes)
 *   co!<courseId>                 course
 *   format                        state layout version
 * State is a cache of the log: dropping it and replaying the input topics gives the same rows.
 */
import type { Course, RaceCard, RaceResult } from '../../domain/avro-types.generated.js';
import {
  DAY,
  DAYS_365,
  ENTITY_BY_KIND,
  ENTITY_KINDS,
  LAST_WIN_HORIZON,
  type EntityKind,
  tagSpacesOf,
  type RaceFacts,
  type RunnerFacts,
} from '../../domain/features/entity-table.js';
import type { HorseRun } from '../../domain/features/horse.js';
import { ChunkedIndex, unrolledYears } from '../../state/aggregates/chunked-index.js';
import type { EventIndex } from '../../state/aggregates/event-index.js';
import type { BatchOp, StorePort } from '../../state/store-port.js';
import { endianness } from 'node:os';
import { avroBytes } from '../avro-bytes.js';
import {
  type EncodedRuns,
  RACE_STATE_TYPE,
  decodeChunk,
  decodeHorse,
  decodeHead,
  decodeYear,
  encodeChunk,
  encodeHead,
  encodeHorse,
  encodeYearOf,
} from './engine-state-codec.js';
import type { ChunkedIndexHead, YearBlock } from '../../state/aggregates/chunked-index.js';

/** What a race last contributed to the entity aggregates: the facts its keys and vectors are computed from. */
export interface RaceLinks extends RaceFacts {
  kind: 'pending' | 'ran';
  visibleAt: number;
  isHandicap: boolean;
  /** runners in the result (ran); 0 while pending */
  ran: number;
  /**
   * the declared runners of the card used, in card order; once run, with their result facts, but for
   * those the result leaves out (no position: `started` is false)
   */
  runners: RunnerFacts[];
  /**
   * Each superseded version of the result that was the latest visible for a while after the off (a
   * correction published after it): its runners' facts (in the same order as `runners`), when it became
   * visible and when the next version did. Empty when none (every version published before the off
   * collapses to an empty interval).
   */
  earlier: EarlierVersion[];
}

/** A superseded result version's contribution, visible at t iff visibleAt < t <= until. */
export interface EarlierVersion {
  visibleAt: number;
  until: number;
  ran: number;
  runners: RunnerFacts[];
}

export interface RaceState {
  raceId: string;
  /** every card version seen, sorted by (publishedAt, version) */
  cards: RaceCard[];
  /** the latest version of the result (greatest publishedAt) */
  result: RaceResult | null;
  /** the versions of the result it superseded, by publishedAt */
  earlierResults: RaceResult[];
  links: RaceLinks | null;
  /** fingerprint of the row currently on the output topic, per horseId */
  emitted: Record<string, string>;
}

export interface HorseRecord {
  /** runs sorted by (off, raceId) */
  runs: HorseRun[];
  /**
   * races whose rows read this horse but where it has no run: declared and without a result, or left
   * out of the result (raceId -> off)
   */
  pending: Map<string, number>;
  touched: number;
  /** its runs as last written or read (encodeHorse): the bytes of those still the same are not encoded again */
  encoded: EncodedRuns | undefined;
}

/** The store name of an indexed entity kind (entity-table.ts). */
export type IndexKind = string;
export type PendingKind = IndexKind | 'horse';

function kindOf(kind: IndexKind): EntityKind {
  const k = ENTITY_BY_KIND.get(kind);
  if (!k) throw new Error(`unknown entity kind ${kind}`);
  return k;
}

/**
 * Bump when the store layout changes: a processor finding another version starts its state afresh. Index
 * heads, year blocks and chunks hold raw doubles in the host's byte order, which the format names (8:
 * little-endian; 7 added the heads' roll-up of old years; 8 keyed the jockey+course, trainer+course and
 * trainer+jockey indexes by their parent, with the second key's tag in each event; 9 added those
 * indexes' totals per tag to their year blocks; 10 kept the runners a result leaves out in their race's
 * links, with their pending interest; 11 changed no layout but the computedAtUtc of provisional rows,
 * which now counts the course version in force and the histories family R reads of every runner: the
 * fingerprints of the rows a format-10 state emitted are not those a replay emits; 12 kept the result
 * versions a correction supersedes, with their runs and events while they were the latest visible; 13
 * answered the three composites from their parents' own indexes, whose events carry the second keys'
 * tags after the parent's dimensions, with the totals per tag of each space in the year blocks, and took
 * the fingerprint of an emitted row over its Avro binary; 14 chunked the owner's and the dam's indexes by
 * year, their chunks keyed by the year's first instant).
 */
export const STATE_FORMAT = endianness() === 'LE' ? '14' : '14-be';

/** An index as read from the store: its head and the summary block of each of its years. */
interface StoredIndex {
  head: ChunkedIndexHead;
  blocks: YearBlock[];
}

/**
 * How long clean, cold state stays in memory after its last use (stream time): long enough that a horse
 * back from a summer's rest, a sparse key's next run and a window's first month a season later are
 * found in memory rather than read back (docs/performance-history.md, "State kept in memory twice as
 * long after its last use"). They set memory and speed only, never a value.
 */
export const RESIDENCY = {
  /** races whose off is older than this are evicted */
  raceAfterOff: 3 * DAY,
  /** horses not used for this long */
  horseIdle: 240 * DAY,
  /** entity indexes not used for this long (heads and chunks) */
  indexIdle: 300 * DAY,
  /** chunks of months ending this long before now (the horse's and most entities' windows are shorter) */
  chunkAge: 200 * DAY,
  /** ... and that no query read in detail for this long (the first month of a 365-day or 5-year window) */
  chunkIdle: 70 * DAY,
} as const;

/**
 * At a checkpoint, a changed index's months before the year this many years before the current one are
 * rolled up into one total (ChunkedIndex.rollUp): as many years as the kind's longest detailed read
 * reaches back, a finite window, a tagged one or the last-win walk (LAST_WIN_HORIZON), and at least one.
 * A sire's, dam's or course key's windows are whole-history sums (1 year); an owner's reach 365 days
 * (1); a jockey's or trainer's jockey+course or trainer+course window five years (6). A
 * window ending now then never starts among the rolled months; only a late change or a query far in the
 * past reads those years' blocks back.
 */
export function rollYearsOf(kind: EntityKind): number {
  let reach = kind.lastDim !== undefined ? LAST_WIN_HORIZON : 0;
  const windows = [...kind.windowsMs, ...(kind.tags ?? []).flatMap((c) => c.windowsMs)];
  for (const w of windows) if (Number.isFinite(w)) reach = Math.max(reach, w);
  // r years from the first instant of a year back are at least r * 365 days
  return Math.max(1, Math.ceil(reach / DAYS_365));
}

/** The first instant of the year before which a changed index's months are rolled up, at stream time `now`. */
export function rollEndAt(now: number, rollYears: number): number {
  return Date.UTC(new Date(now).getUTCFullYear() - rollYears, 0, 1);
}

export interface EvictionCounts {
  races: number;
  horses: number;
  indexes: number;
  chunks: number;
}

export class EngineState {
  private readonly races = new Map<string, RaceState>();
  private readonly horses = new Map<string, HorseRecord>();
  private readonly indexes = new Map<IndexKind, Map<string, ChunkedIndex>>(
    ENTITY_KINDS.map((k) => [k.kind, new Map<string, ChunkedIndex>()]),
  );
  /**
   * Ids known to have no index, in memory or in the store (a store read missed), per kind. A row
   * computation looks up every key of its race, and the entities without a history yet (a horse's dam, a
   * jockey's first ride at a course) are asked for again at every recompute of the race: this answers
   * them without a store read. An index comes only from `adoptIndex`, which takes its id out; forgotten
   * at every eviction, so it holds only what the stream used since the last checkpoint.
   */
  private readonly absentIndexes = new Map<IndexKind, Set<string>>(
    ENTITY_KINDS.map((k) => [k.kind, new Set<string>()]),
  );
  /** every version of each course, sorted by (publishedAt, canonical text) */
  private readonly courses = new Map<string, Course[]>();
  /** (courseId, raceId) pairs not yet written; all of them when there is no store */
  private readonly courseRaces = new Map<string, Set<string>>();
  private readonly dirtyRaces = new Set<string>();
  private readonly dirtyHorses = new Set<string>();
  private readonly dirtyIndexes = new Set<ChunkedIndex>();
  private readonly indexIds = new Map<ChunkedIndex, [IndexKind, string]>();
  private readonly dirtyCourses = new Set<string>();
  private readonly newCourseRaces: [string, string][] = [];
  /** stream time: the latest publishedAt applied (drives eviction only, never values) */
  now = 0;
  /** races seen for the first time by this state object (not found in memory or in the store) */
  newRaces = 0;
  /**
   * Advanced whenever an index leaves memory: an index object looked up before is then possibly stale
   * (it comes back as a new object), so lookups cached on a race's links are dropped (engine-links.ts).
   */
  indexEpoch = 0;
  /** checkpoints taken (takeDirty calls): an index whose `checkpointEpoch` is this is in `dirtyIndexes` */
  private checkpoints = 0;

  /** indexes whose old years a checkpoint rolled up, and rolled-up indexes read back apart (stats) */
  rollUps = 0;
  expansions = 0;

  /**
   * What the checkpoints of this state object wrote, record by record (`writeDirty`): how many and their
   * values' bytes by kind of record (the store's own keys and framing not counted).
   */
  readonly written: Record<StateRecordKind, { records: number; bytes: number }> = {
    races: { records: 0, bytes: 0 },
    horses: { records: 0, bytes: 0 },
    monthChunks: { records: 0, bytes: 0 },
    yearBlocks: { records: 0, bytes: 0 },
    indexHeads: { records: 0, bytes: 0 },
    courses: { records: 0, bytes: 0 },
  };

  /**
   * `rollYears`: how many years before the current one stay apart, for every kind (by default each
   * kind's own, rollYearsOf; the tests roll everything before the next year up, -1, to make every
   * detailed query read the rolled months back).
   */
  constructor(
    readonly store?: StorePort,
    private readonly rollYears?: number,
  ) {}

  /** Opens the state of a store: only the courses are read up front. */
  static async open(store: StorePort): Promise<EngineState> {
    const st = new EngineState(store);
    for await (const [, buf] of store.entries({ gte: 'co!', lt: 'co"' })) {
      const versions = JSON.parse(buf.toString('utf8')) as Course[];
      if (versions.length > 0) st.courses.set(versions[0]!.courseId, versions);
    }
    return st;
  }

  /** The layout version of a store's state, undefined when it has none (a fresh store or an older layout). */
  static async format(store: StorePort): Promise<string | undefined> {
    return (await store.get('format'))?.toString('utf8');
  }

  // ---- races ----

  peekRace(raceId: string): RaceState | undefined {
    return this.races.get(raceId);
  }

  /** The race's state: resident, loaded, or new. */
  async race(raceId: string): Promise<RaceState> {
    const r = this.races.get(raceId);
    if (r) return r;
    const buf = this.store ? await this.store.get(`r!${raceId}`) : undefined;
    return this.adoptRace(raceId, buf);
  }

  private adoptRace(raceId: string, buf: Buffer | undefined): RaceState {
    const resident = this.races.get(raceId);
    if (resident) return resident;
    if (!buf) this.newRaces++;
    const r: RaceState = buf
      ? (RACE_STATE_TYPE.fromBuffer(buf) as RaceState)
      : { raceId, cards: [], result: null, earlierResults: [], links: null, emitted: {} };
    this.races.set(raceId, r);
    return r;
  }

  touchRace(r: RaceState): void {
    this.dirtyRaces.add(r.raceId);
  }

  // ---- horses ----

  peekHorse(horseId: string): HorseRecord | undefined {
    const h = this.horses.get(horseId);
    if (h) h.touched = this.now;
    return h;
  }

  async horse(horseId: string): Promise<HorseRecord> {
    const h = this.peekHorse(horseId);
    if (h) return h;
    const buf = this.store ? await this.store.get(`h!${horseId}`) : undefined;
    return this.adoptHorse(horseId, buf);
  }

  private adoptHorse(horseId: string, buf: Buffer | undefined): HorseRecord {
    const resident = this.horses.get(horseId);
    if (resident) return resident;
    let h: HorseRecord;
    if (buf) {
      const rec = decodeHorse(buf);
      h = { runs: rec.runs, pending: new Map(), touched: this.now, encoded: rec.kept };
      for (let i = 0; i < rec.pendingRaces.length; i++) h.pending.set(rec.pendingRaces[i]!, rec.pendingOffs[i]!);
    } else {
      h = { runs: [], pending: new Map(), touched: this.now, encoded: undefined };
    }
    this.horses.set(horseId, h);
    return h;
  }

  touchHorse(horseId: string): void {
    this.dirtyHorses.add(horseId);
  }

  // ---- entity indexes ----

  private indexesOf(kind: IndexKind): Map<string, ChunkedIndex> {
    const m = this.indexes.get(kind);
    if (!m) throw new Error(`unknown entity kind ${kind}`);
    return m;
  }

  private absentOf(kind: IndexKind): Set<string> {
    const s = this.absentIndexes.get(kind);
    if (!s) throw new Error(`unknown entity kind ${kind}`);
    return s;
  }

  peekIndex(kind: IndexKind, id: string): ChunkedIndex | undefined {
    const idx = this.indexesOf(kind).get(id);
    if (idx) idx.touched = this.now;
    return idx;
  }

  /** The entity's index: resident, or loaded (head only), or, with `create`, a new empty one. */
  async index(kind: IndexKind, id: string, create: true): Promise<ChunkedIndex>;
  async index(kind: IndexKind, id: string, create?: boolean): Promise<ChunkedIndex | undefined>;
  async index(kind: IndexKind, id: string, create = false): Promise<ChunkedIndex | undefined> {
    const idx = this.peekIndex(kind, id);
    if (idx) return idx;
    const absent = this.absentOf(kind);
    if (absent.has(id)) return create ? this.adoptIndex(kind, id, undefined) : undefined;
    const [stored] = await this.readIndexes([[kind, id]]);
    if (!stored && !create) {
      absent.add(id);
      return undefined;
    }
    return this.adoptIndex(kind, id, stored);
  }

  /** The stored heads of these indexes and their year blocks: two multi-gets. */
  private async readIndexes(which: readonly [IndexKind, string][]): Promise<(StoredIndex | undefined)[]> {
    const store = this.store;
    if (!store || which.length === 0) return which.map(() => undefined);
    const heads = (await store.getMany(which.map(([k, id]) => `i!${k}!${id}`))).map((b) =>
      b ? decodeHead(b) : undefined,
    );
    const keys: string[] = [];
    const years = heads.map((h) => (h ? unrolledYears(h) : []));
    years.forEach((ys, i) => {
      const [k, id] = which[i]!;
      for (const y of ys) keys.push(yearKey(k, id, y));
    });
    const blocks = keys.length > 0 ? await store.getMany(keys) : [];
    let p = 0;
    return heads.map((head, i) => {
      if (!head) return undefined;
      const [k, id] = which[i]!;
      const out: YearBlock[] = [];
      for (const y of years[i]!) out.push(yearBlockOf(k, id, y, blocks[p++]));
      return { head, blocks: out };
    });
  }

  private adoptIndex(kind: IndexKind, id: string, stored: StoredIndex | undefined): ChunkedIndex {
    const resident = this.indexesOf(kind).get(id);
    if (resident) return resident;
    const store = this.store;
    const loader = store
      ? async (start: number): Promise<EventIndex | undefined> => {
          const b = await store.get(chunkKey(kind, id, start));
          return b ? decodeChunk(b) : undefined;
        }
      : undefined;
    const yearLoader = store
      ? async (years: readonly number[]): Promise<YearBlock[]> => {
          this.expansions++;
          const bufs = await store.getMany(years.map((y) => yearKey(kind, id, y)));
          return years.map((y, i) => yearBlockOf(kind, id, y, bufs[i]));
        }
      : undefined;
    const k = kindOf(kind);
    const spaces = tagSpacesOf(k);
    const idx = stored
      ? ChunkedIndex.fromHead(k.width, stored.head, stored.blocks, loader, yearLoader, spaces, k.chunkPeriod)
      : new ChunkedIndex(k.width, loader, undefined, yearLoader, spaces, k.chunkPeriod);
    idx.touched = this.now;
    this.indexesOf(kind).set(id, idx);
    this.indexIds.set(idx, [kind, id]);
    this.absentOf(kind).delete(id);
    return idx;
  }

  /** Records that an index changed (its dirty chunks and head are written at the next checkpoint). */
  touchIndex(idx: ChunkedIndex): void {
    if (idx.checkpointEpoch === this.checkpoints) return; // already in this checkpoint's set
    idx.checkpointEpoch = this.checkpoints;
    this.dirtyIndexes.add(idx);
  }

  // ---- prefetch: one multi-get for what a batch will use ----

  async prefetch(want: {
    races: Iterable<string>;
    horses: Iterable<string>;
    indexes: Iterable<[IndexKind, string]>;
  }): Promise<void> {
    const store = this.store;
    if (!store) return;
    const raceIds = [...new Set(want.races)].filter((id) => !this.races.has(id));
    const horseIds = [...new Set(want.horses)].filter((id) => !this.horses.has(id));
    const seen = new Set<string>();
    const idx: [IndexKind, string][] = [];
    for (const [k, id] of want.indexes) {
      if (this.indexesOf(k).has(id) || this.absentOf(k).has(id)) continue; // most are: no key string built
      const key = `${k}!${id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      idx.push([k, id]);
    }
    const keys = [...raceIds.map((id) => `r!${id}`), ...horseIds.map((id) => `h!${id}`)];
    const [values, stored] = await Promise.all([
      keys.length > 0 ? store.getMany(keys) : Promise.resolve([]),
      this.readIndexes(idx),
    ]);
    let p = 0;
    for (const id of raceIds) this.adoptRace(id, values[p++]);
    for (const id of horseIds) this.adoptHorse(id, values[p++]);
    idx.forEach(([k, id], i) => {
      const v = stored[i];
      if (v) this.adoptIndex(k, id, v);
      else this.absentOf(k).add(id);
    });
  }

  /**
   * Reads these months of resident indexes (index, first instant of the month) in one multi-get and
   * installs them; months already resident, and indexes no longer in memory, are skipped. What
   * `ChunkedIndex.load` does one `get` at a time, for the months a whole batch of rows needs. A month
   * start of -Infinity names an index's rolled-up years: those indexes are expanded instead (their
   * positions change: the caller asks again); returns how many were.
   */
  async loadChunks(want: Iterable<readonly [ChunkedIndex, number]>): Promise<number> {
    const keys: string[] = [];
    const targets: (readonly [ChunkedIndex, number])[] = [];
    const seen = new Set<string>();
    const expand = new Set<ChunkedIndex>();
    for (const w of want) {
      const ids = this.indexIds.get(w[0]);
      if (!ids) continue;
      if (w[1] === Number.NEGATIVE_INFINITY) {
        expand.add(w[0]);
        continue;
      }
      const key = chunkKey(ids[0], ids[1], w[1]);
      if (seen.has(key)) continue;
      seen.add(key);
      keys.push(key);
      targets.push(w);
    }
    const store = this.store;
    const [values] = await Promise.all([
      keys.length > 0 && store ? store.getMany(keys) : [],
      Promise.all([...expand].map((i) => i.expand())),
    ]);
    for (let i = 0; i < targets.length; i++) {
      const b = values[i];
      targets[i]![0].install(targets[i]![1], b ? decodeChunk(b) : undefined);
    }
    return expand.size;
  }

  // ---- courses ----

  /** The latest version of a course seen. */
  course(courseId: string): Course | undefined {
    const v = this.courses.get(courseId);
    return v?.[v.length - 1];
  }

  /** Every version of a course seen, in force order (publishedAt, then text); empty when none. */
  courseVersions(courseId: string): readonly Course[] {
    return this.courses.get(courseId) ?? [];
  }

  /** The version in force at `t`: the latest published before it (point-in-time, like everything else). */
  courseAt(courseId: string, t: number): Course | undefined {
    const v = this.courses.get(courseId);
    if (!v) return undefined;
    let found: Course | undefined;
    for (const c of v) if (c.publishedAt < t) found = c;
    return found;
  }

  /**
   * Adds a course version; returns false for a duplicate. Versions with the same publishedAt are kept in
   * the order of their text, so the one in force does not depend on arrival order.
   */
  setCourse(c: Course): boolean {
    const text = JSON.stringify(c);
    const versions = this.courses.get(c.courseId) ?? [];
    if (versions.some((x) => x.publishedAt === c.publishedAt && JSON.stringify(x) === text)) return false;
    versions.push(c);
    versions.sort((a, b) => a.publishedAt - b.publishedAt || (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
    this.courses.set(c.courseId, versions);
    this.dirtyCourses.add(c.courseId);
    return true;
  }

  courseRace(courseId: string, raceId: string): void {
    let s = this.courseRaces.get(courseId);
    if (!s) {
      s = new Set();
      this.courseRaces.set(courseId, s);
    }
    if (s.has(raceId)) return;
    s.add(raceId);
    if (this.store) this.newCourseRaces.push([courseId, raceId]);
  }

  async racesAtCourse(courseId: string): Promise<string[]> {
    const ids = new Set(this.courseRaces.get(courseId) ?? []);
    if (this.store) {
      const prefix = `cr!${courseId}!`;
      for await (const [key] of this.store.entries({ gte: prefix, lt: `${prefix}\uffff` })) {
        ids.add(key.slice(prefix.length));
      }
    }
    return [...ids].sort();
  }

  /** Every id of an entity kind known (resident or stored), sorted. */
  async allIndexIds(kind: IndexKind): Promise<string[]> {
    const ids = new Set(this.indexesOf(kind).keys());
    if (this.store) {
      for await (const [key] of this.store.entries({ gte: `i!${kind}!`, lt: `i!${kind}"` })) {
        ids.add(key.slice(kind.length + 3));
      }
    }
    return [...ids].sort();
  }

  /** Every race id known (resident or stored), sorted. */
  async allRaceIds(): Promise<string[]> {
    const ids = new Set(this.races.keys());
    if (this.store) for await (const [key] of this.store.entries({ gte: 'r!', lt: 'r"' })) ids.add(key.slice(2));
    return [...ids].sort();
  }

  // ---- checkpoints ----

  /** The store operations for everything changed since the last call; forgets the changes. */
  takeDirty(): BatchOp[] {
    const ops: BatchOp[] = [];
    this.writeDirty((key, value) => ops.push({ type: 'put', key, value }));
    return ops;
  }

  /**
   * Hands each record of what changed since the last call to `put` as it is encoded (a checkpoint puts
   * them straight into a store batch: no array of hundreds of thousands of operations), and marks the
   * state clean. Values are views of the shared encoding slab (avroBytes): read-only, and copied by a
   * store batch when added.
   */
  writeDirty(putRecord: (key: string, value: Buffer) => void): void {
    const written = this.written;
    const count = (kind: StateRecordKind, key: string, value: Buffer) => {
      const w = written[kind];
      w.records++;
      w.bytes += value.length;
      putRecord(key, value);
    };
    putRecord('format', Buffer.from(STATE_FORMAT));
    for (const id of this.dirtyRaces) {
      const r = this.races.get(id);
      if (r) count('races', `r!${id}`, avroBytes(RACE_STATE_TYPE, r));
    }
    for (const id of this.dirtyHorses) {
      const h = this.horses.get(id);
      if (!h) continue;
      const { value, kept } = encodeHorse(h.runs, [...h.pending.keys()], [...h.pending.values()], h.encoded);
      h.encoded = kept;
      count('horses', `h!${id}`, value);
    }
    // each kind's roll-up end at this checkpoint's stream time (the same for every index of the kind)
    const rollEnds = new Map(ENTITY_KINDS.map((k) => [k.kind, rollEndAt(this.now, this.rollYears ?? rollYearsOf(k))]));
    for (const idx of this.dirtyIndexes) {
      const [kind, id] = this.indexIds.get(idx)!;
      const rollEnd = rollEnds.get(kind)!;
      // the old years (every chunk of them out of memory, so none is among the changes) fold into the
      // head's total: the head is then among the changes taken below
      if (this.store && Number.isFinite(rollEnd) && idx.rollUp(rollEnd)) this.rollUps++;
      const { head, chunks, years } = idx.takeDirty();
      for (const m of chunks) count('monthChunks', chunkKey(kind, id, m.start), encodeChunk(m.chunk!));
      for (const y of years) count('yearBlocks', yearKey(kind, id, y), encodeYearOf(idx, y));
      if (head) count('indexHeads', `i!${kind}!${id}`, encodeHead(idx.toHead()));
    }
    for (const id of this.dirtyCourses) {
      count('courses', `co!${id}`, Buffer.from(JSON.stringify(this.courses.get(id))));
    }
    for (const [courseId, raceId] of this.newCourseRaces) {
      putRecord(`cr!${courseId}!${raceId}`, Buffer.alloc(0));
    }
    this.dirtyRaces.clear();
    this.dirtyHorses.clear();
    this.dirtyIndexes.clear();
    this.checkpoints++;
    this.dirtyCourses.clear();
    this.newCourseRaces.length = 0;
    if (this.store) this.courseRaces.clear();
  }

  /**
   * Drops from memory what is clean (written by the last takeDirty) and cold in stream time as of
   * `now` (the state's stream time; +Infinity, a takeover's recompute, drops everything clean). Only with a store: without one
   * memory is the only copy. Call right after the checkpoint is written.
   */
  evict(now = this.now): EvictionCounts {
    const counts: EvictionCounts = { races: 0, horses: 0, indexes: 0, chunks: 0 };
    if (!this.store) return counts;
    for (const absent of this.absentIndexes.values()) absent.clear();
    for (const [id, r] of this.races) {
      if (this.dirtyRaces.has(id)) continue;
      // pending races too: a race whose result never came (abandoned) is reloaded if it ever does
      const off = r.links?.off ?? r.cards[r.cards.length - 1]?.offTime ?? Number.NEGATIVE_INFINITY;
      if (off < now - RESIDENCY.raceAfterOff) {
        this.races.delete(id);
        counts.races++;
      }
    }
    for (const [id, h] of this.horses) {
      if (!this.dirtyHorses.has(id) && h.touched < now - RESIDENCY.horseIdle) {
        this.horses.delete(id);
        counts.horses++;
      }
    }
    for (const indexes of this.indexes.values()) {
      for (const [id, idx] of indexes) {
        if (this.dirtyIndexes.has(idx) || idx.isDirty) continue;
        if (idx.touched < now - RESIDENCY.indexIdle) {
          indexes.delete(id);
          this.indexIds.delete(idx);
          counts.indexes++;
          this.indexEpoch++;
        } else {
          counts.chunks += idx.evictChunksBefore(now - RESIDENCY.chunkAge, now - RESIDENCY.chunkIdle);
        }
      }
    }
    return counts;
  }

  stats(): Record<string, number> {
    return {
      newRaces: this.newRaces,
      races: this.races.size,
      horses: this.horses.size,
      rollUps: this.rollUps,
      expansions: this.expansions,
      ...Object.fromEntries([...this.indexes].map(([k, m]) => [`index.${k}`, m.size])),
    };
  }
}

/** The kinds of record a checkpoint writes (EngineState.written). */
export type StateRecordKind = 'races' | 'horses' | 'monthChunks' | 'yearBlocks' | 'indexHeads' | 'courses';

function yearBlockOf(kind: IndexKind, id: string, year: number, b: Buffer | undefined): YearBlock {
  if (!b) throw new Error(`state is missing the summaries of ${kind} ${id} for ${new Date(year).getUTCFullYear()}`);
  return decodeYear(b);
}

function yearKey(kind: IndexKind, id: string, start: number): string {
  return `y!${kind}!${id}!${start}`;
}

function chunkKey(kind: IndexKind, id: string, start: number): string {
  return `k!${kind}!${id}!${start}`;
}
