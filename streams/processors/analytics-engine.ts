/**
 * The analytics processor's core: a deterministic state machine over cards, results and courses that
 * keeps per-entity rolling aggregates and, on flush, (re)computes the rows of every race whose inputs
 * changed. Its only I/O is reading state it does not hold in memory (EngineState loads it from the
 * store): each change first makes what it touches resident (`ready`, `readyRowsMany`, awaiting only
 * on a miss), then runs synchronously. The pipeline feeds it decoded events and checkpoints what it marks dirty.
 *
 * Every row is computed "as of" its race's off from (a) the race's own card and result and (b) one
 * entity key's visible history per feature (horse, jockey, trainer, sire, course snapshot key), so the
 * set of rows does not depend on arrival order or batching; only provisional rows track what has
 * arrived so far.
 */
import { compareCardVersions } from '../../domain/card-order.js';
import { compareResultVersions } from '../../domain/result-order.js';
import type { AnalyticsRow, Course, RaceCard, RaceCardRunner, RaceResult } from '../../domain/avro-types.generated.js';
import type { InputEvent } from '../../domain/events.js';
import { bytesFingerprint } from '../../domain/hash.js';
import { Linker, latestCard, raceLinks, rowKey, sameLinks } from './engine-links.js';
import { EngineResidency } from './engine-residency.js';
import { computeRowsMany, encodeRow, ROW_HEADER_BYTES, RowPool } from './engine-rows.js';
import { COURSE_SNAPSHOT } from '../../domain/features/entity-table.js';
import { SnapshotEmitter, type SnapshotOutput } from './engine-snapshots.js';
import { MONTHLY_ONLY, type SnapshotCalendar } from '../../domain/features/snapshot-calendar.js';
import type { EngineState, RaceLinks, RaceState } from './engine-state.js';

export { effectiveCard, latestCard, raceIdOf, rowKey } from './engine-links.js';

export interface RowOutput {
  /** `${raceId}:${horseId}` */
  key: string;
  /** null = tombstone (the runner no longer has a row) */
  row: AnalyticsRow | null;
  /**
   * The row's Avro binary after ROW_HEADER_BYTES bytes left for the wire format's header (`encodeRow`,
   * a read-only view of the shared encoding slab, valid until produced), null for a tombstone: the
   * engine encodes every row it computes to fingerprint it, and the processor produces these bytes.
   */
  value: Buffer | null;
  /** event time of the row (computedAtUtc), or of the input that removed it */
  timestamp: number;
}

export interface EngineCounters {
  cards: number;
  results: number;
  courses: number;
  duplicates: number;
  resultRunnersNotOnCard: number;
  rowsEmitted: number;
  tombstonesEmitted: number;
  /** races whose rows were (re)computed */
  racesRecomputed: number;
}

export interface FlushOptions {
  /** only the races whose own card or result was applied since the last flush (see `flush`) */
  directOnly?: boolean;
  /** called after each race recomputed; a promise it returns is awaited (the caller yields) */
  between?: () => Promise<void> | undefined;
  /**
   * Takes each output as its race is recomputed, instead of `flush` collecting them: a caller that
   * encodes it at once keeps a batch's row objects from outliving their race (tens of thousands of
   * 200-field rows would otherwise survive to the end of a catch-up batch, copied by every young
   * collection on the way and then promoted).
   */
  emit?: (o: RowOutput) => void;
  /**
   * How many races' rows are computed together (computeRowsMany: each kind's features grouped by key,
   * read while in the caches), before they are emitted and `between` is asked; 1 when not given. A
   * catch-up's batches take ROWS_GROUP; a live batch keeps 1, so that the service runs between its races.
   */
  group?: number;
  /**
   * `emit` keeps no row object past its call (it encodes the row at once): the rows' objects are reused
   * for the next races (RowPool), so a RowOutput's `row` is valid only during the call.
   */
  reuseRows?: boolean;
}

/**
 * Races computed together by a catch-up's flushes (FlushOptions.group): a whole ready slice. On three
 * years the rows' computing took about a fifth less in groups of 2,000 races than race by race, 2 to 4
 * points less than in groups of 1,024 (performance-history.md, the thirty-fourth session).
 */
export const ROWS_GROUP = 2_000;

export class AnalyticsEngine {
  /** the row objects a flush with `reuseRows` computes its rows in */
  private readonly rowPool = new RowPool();
  readonly counters: EngineCounters = {
    cards: 0,
    results: 0,
    courses: 0,
    duplicates: 0,
    resultRunnersNotOnCard: 0,
    rowsEmitted: 0,
    tombstonesEmitted: 0,
    racesRecomputed: 0,
  };
  private readonly dirtyRaces = new Set<string>();
  /** the dirty races whose own card or result was applied since they were last flushed (see flush) */
  private readonly directRaces = new Set<string>();
  /** rows on the output topic of owned races not yet seen by this instance (adoptEmitted) */
  private readonly onTopic = new Map<string, Record<string, string>>();

  private readonly residency: EngineResidency;
  private readonly linker: Linker;
  private readonly snapshots: SnapshotEmitter;
  /** the course-snapshot periods: monthly, daily from `dailyFrom` (fixed per deployment) */
  readonly calendar: SnapshotCalendar;

  constructor(
    readonly state: EngineState,
    options: { calendar?: SnapshotCalendar } = {},
  ) {
    this.calendar = options.calendar ?? MONTHLY_ONLY;
    this.residency = new EngineResidency(state, this.calendar);
    this.snapshots = new SnapshotEmitter(state, this.calendar);
    this.linker = new Linker(state, this.dirtyRaces, (key, visibleAt) => this.snapshots.note(key, visibleAt));
  }

  /**
   * Loads, in one store round trip, what applying these events will use: their races, and the
   * horses and entity heads their cards name (the rest is loaded on demand).
   */
  async prefetch(events: readonly InputEvent[]): Promise<void> {
    await this.residency.prefetch(events);
  }

  /** A race first seen after its partition was taken over starts from what is on the topic for it. */
  private adopt(race: RaceState): RaceState {
    if (this.onTopic.size === 0) return race;
    const emitted = this.onTopic.get(race.raceId);
    if (emitted) {
      this.onTopic.delete(race.raceId);
      race.emitted = { ...emitted };
      this.state.touchRace(race);
    }
    return race;
  }

  private advance(publishedAt: number): void {
    if (publishedAt > this.state.now) this.state.now = publishedAt;
  }

  async applyCard(card: RaceCard): Promise<void> {
    const race = await this.takeCard(card);
    if (race) await this.reconcile([race]);
  }

  async applyResult(result: RaceResult): Promise<void> {
    const race = await this.takeResult(result);
    if (race) await this.reconcile([race]);
  }

  /**
   * Applies a batch of input events in order, and brings the aggregates in line with each race they
   * changed once, after the last of them (in the order the races were first changed). The state after
   * it is the one applying the events one by one leaves: a race's links depend only on its cards and
   * result at the end, and the links an intermediate version would have added and withdrawn change no
   * aggregate. A race whose card versions and result arrive in one batch (every race of a catch-up) is
   * linked once, as run, where one by one it was linked as pending, withdrawn and linked again per event.
   */
  async applyEvents(events: readonly InputEvent[]): Promise<void> {
    const changed = new Map<string, RaceState>();
    for (const e of events) {
      let race: RaceState | null = null;
      if (e.kind === 'card') race = await this.takeCard(e.value);
      else if (e.kind === 'result') race = await this.takeResult(e.value);
      else await this.applyCourse(e.value);
      if (race && !changed.has(race.raceId)) changed.set(race.raceId, race);
    }
    await this.reconcile(changed.values());
  }

  /** Adds a card version to its race; the race, or null for a duplicate. */
  private async takeCard(card: RaceCard): Promise<RaceState | null> {
    this.counters.cards++;
    this.advance(card.publishedAt);
    const race = this.adopt(this.state.peekRace(card.raceId) ?? (await this.state.race(card.raceId)));
    if (race.cards.some((c) => c.version === card.version && c.publishedAt === card.publishedAt)) {
      this.counters.duplicates++;
      return null;
    }
    race.cards.push(slimCard(card));
    race.cards.sort(compareCardVersions);
    this.state.courseRace(card.courseId, card.raceId);
    return race;
  }

  /**
   * Adds a version of a race's result; the race, or null for a duplicate. The latest publication is the
   * race's result (a correction supersedes); every earlier one is kept, in publishedAt order, whichever
   * arrives first: a race off before a correction was published keeps the version it saw (raceLinks).
   * A version equal to one already held (same publishedAt, same content) is a duplicate. The result
   * schema has no version number, so two different versions with one publishedAt are ordered by their
   * content (as course versions are): the one in force does not depend on which arrived first.
   */
  private async takeResult(result: RaceResult): Promise<RaceState | null> {
    this.counters.results++;
    this.advance(result.publishedAt);
    const race = this.adopt(this.state.peekRace(result.raceId) ?? (await this.state.race(result.raceId)));
    const current = race.result;
    const earlier = (race.earlierResults ??= []);
    if (
      current &&
      (compareResultVersions(current, result) === 0 || earlier.some((r) => compareResultVersions(r, result) === 0))
    ) {
      this.counters.duplicates++;
      return null;
    }
    if (!current) race.result = result;
    else if (compareResultVersions(result, current) > 0) {
      earlier.push(current); // the greatest so far: the list stays in order
      race.result = result;
    } else {
      earlier.push(result);
      earlier.sort(compareResultVersions);
    }
    return race;
  }

  async applyCourse(course: Course): Promise<void> {
    this.counters.courses++;
    if (!this.state.setCourse(course)) {
      this.counters.duplicates++;
      return;
    }
    // Only the races this version is now in force for (EngineState.courseAt at their off) can change.
    // A course republished decades into a replay would otherwise recompute every race ever run there
    // (loading their horses and entity months back to 1988) for identical rows.
    const ids = await this.state.racesAtCourse(course.courseId);
    await this.state.prefetch({ races: ids, horses: [], indexes: [] });
    // A pending race off after the version is published may change too, though another version is in
    // force at its off: its provisional rows' computedAtUtc counts from the version since which what they
    // read of the course has been the same, and a version arriving out of publication order can move it.
    for (const id of ids) {
      const race = this.state.peekRace(id) ?? (await this.state.race(id));
      const off = latestCard(race.cards)?.offTime;
      if (off === undefined) continue;
      if (this.state.courseAt(course.courseId, off) === course || (race.result === null && off > course.publishedAt)) {
        this.dirtyRaces.add(id);
      }
    }
  }

  /**
   * Recomputes every race marked dirty and returns the rows that changed (and tombstones); with
   * `emit`, hands each one to it as its race is done and returns an empty array. With
   * `owns`, only the races this instance owns are recomputed and emitted (scale-out: every instance
   * keeps every entity aggregate, each assembles the rows of its own race partitions).
   *
   * `directOnly`: only the races whose own card or result was applied since the last flush (a result's
   * final rows go out before the provisional rows of the pending races its entities touch); the races
   * marked dirty only as dependents stay dirty for the next call. A race's rows depend only on the state,
   * not on when it is recomputed. `between` runs after each race (a caller's chance to yield).
   */
  async flush(
    owns?: (raceId: string) => boolean,
    limit = Number.POSITIVE_INFINITY,
    options: FlushOptions = {},
  ): Promise<RowOutput[]> {
    const out: RowOutput[] = [];
    const emit = options.emit ?? ((o: RowOutput) => void out.push(o));
    let ids: string[];
    if (options.directOnly) {
      ids = [...this.directRaces].filter((id) => !owns || owns(id)).sort();
      if (ids.length > limit) ids = ids.slice(0, limit);
      // a direct race not owned stays dirty (the next full flush drops it, as it drops every one)
      for (const id of ids) {
        this.directRaces.delete(id);
        this.dirtyRaces.delete(id);
      }
    } else {
      ids = [...this.dirtyRaces].filter((id) => !owns || owns(id)).sort();
      this.dirtyRaces.clear();
      if (ids.length > limit) {
        // the rest stays dirty for the next call (a takeover recomputes a partition's history in slices)
        for (const id of ids.slice(limit)) this.dirtyRaces.add(id);
        ids = ids.slice(0, limit);
      }
      for (const id of this.directRaces) if (!this.dirtyRaces.has(id)) this.directRaces.delete(id);
    }
    await this.state.prefetch({ races: ids, horses: [], indexes: [] });
    const group = Math.max(1, options.group ?? 1);
    const pool = options.reuseRows && options.emit ? this.rowPool : undefined;
    for (let from = 0; from < ids.length; from += ROWS_READY_SLICE) {
      const slice = ids.slice(from, from + ROWS_READY_SLICE);
      const races: RaceState[] = [];
      for (const raceId of slice) races.push(this.state.peekRace(raceId) ?? (await this.state.race(raceId)));
      await this.residency.readyRowsMany(races.map((r) => r.links).filter((l): l is RaceLinks => l !== null));
      for (let g = 0; g < races.length; g += group) {
        const some = races.slice(g, g + group);
        const rows = computeRowsMany(this.state, this.residency, some, this.calendar, pool);
        for (let i = 0; i < some.length; i++) {
          this.emitRows(some[i]!, rows[i]!, emit);
          const paused = options.between?.();
          if (paused) await paused;
        }
        pool?.reclaim();
      }
    }
    return out;
  }

  /**
   * The course snapshot rows of every period changed since the last call (after `flush`, which links
   * what changed). With `owns`, only snapshot keys this instance owns.
   */
  flushSnapshots(owns?: (topicKey: string) => boolean): Promise<SnapshotOutput[]> {
    return this.snapshots.flush(owns);
  }

  /** Marks every period of every course snapshot key for emission at the next flushSnapshots (a takeover). */
  async markAllSnapshots(): Promise<void> {
    this.snapshots.noteAll(await this.state.allIndexIds(COURSE_SNAPSHOT.kind));
  }

  /** Whether races are waiting for recompute (with `owns`, races this instance owns). */
  hasDirty(owns?: (raceId: string) => boolean): boolean {
    if (!owns) return this.dirtyRaces.size > 0;
    for (const id of this.dirtyRaces) if (owns(id)) return true;
    return false;
  }

  /**
   * Forgets what was emitted for races matching the predicate (partitions this instance no longer
   * owns): owning them again starts from what is on the topic then (adoptEmitted).
   */
  async forgetEmitted(predicate: (raceId: string) => boolean): Promise<void> {
    for (const id of await this.state.allRaceIds()) {
      if (!predicate(id)) continue;
      const race = await this.state.race(id);
      if (Object.keys(race.emitted).length > 0) {
        race.emitted = {};
        this.state.touchRace(race);
      }
    }
  }

  /** Marks every known race matching the predicate for recompute (e.g. partitions newly owned). */
  async markDirty(predicate: (raceId: string) => boolean): Promise<void> {
    for (const id of await this.state.allRaceIds()) if (predicate(id)) this.dirtyRaces.add(id);
  }

  /**
   * Takes over the races matching the predicate (partitions newly owned): what is on the output topic
   * for them (`onTopic`: raceId -> horseId -> fingerprint of the current row, read from the compacted
   * topic) becomes what this instance has emitted, and they are recomputed, so only rows that differ
   * from the topic are produced.
   */
  async adoptEmitted(
    predicate: (raceId: string) => boolean,
    onTopic: ReadonlyMap<string, Record<string, string>>,
  ): Promise<void> {
    // Races not on the topic keep what they have (nothing, since losing a partition forgets): only
    // the races with rows on the topic are loaded here; every owned race is recomputed at the flush.
    const known = new Set((await this.state.allRaceIds()).filter(predicate));
    for (const [id, emitted] of onTopic) {
      if (!known.has(id)) {
        // not seen yet (still catching up): adopted when first seen
        this.onTopic.set(id, emitted);
        continue;
      }
      const race = await this.state.race(id);
      if (!sameRecord(race.emitted, emitted)) {
        race.emitted = { ...emitted };
        this.state.touchRace(race);
      }
    }
    for (const id of known) this.dirtyRaces.add(id);
  }

  /**
   * Brings the entity aggregates in line with each race's current card and result: the old links are
   * withdrawn whole, race by race, then the new applied whole, all races' together (`Linker.linkMany`).
   * Pending interest is kept per race (not per runner), so a key two runners share stays marked only
   * because linking sets it again for whichever still needs it: applying only the difference of two
   * links would have to count the runners behind each entry.
   */
  private async reconcile(races: Iterable<RaceState>): Promise<void> {
    const relinked: [RaceState, RaceLinks | null][] = [];
    for (const race of races) {
      this.dirtyRaces.add(race.raceId);
      this.directRaces.add(race.raceId);
      this.state.touchRace(race);
      const next = raceLinks(race, () => this.counters.resultRunnersNotOnCard++);
      const prev = race.links;
      if (sameLinks(prev, next)) continue;
      if (prev) await this.residency.ready(prev);
      if (next) await this.residency.ready(next);
      if (prev) this.linker.unlink(race.raceId, prev);
      relinked.push([race, next]);
    }
    this.linker.linkMany(relinked.flatMap(([race, next]) => (next ? [[race.raceId, next] as const] : [])));
    // (a race's links say what is linked: set once they are)
    for (const [race, next] of relinked) race.links = next;
  }

  /** Emits what changed of a race's rows just computed (and tombstones), and records them as emitted. */
  private emitRows(race: RaceState, rows: readonly AnalyticsRow[], emit: (o: RowOutput) => void): void {
    this.counters.racesRecomputed++;
    const next: Record<string, string> = {};
    for (const row of rows) {
      const value = encodeRow(row);
      next[row.horseId] = bytesFingerprint(value, ROW_HEADER_BYTES, value.length);
      if (race.emitted[row.horseId] !== next[row.horseId]) {
        emit({ key: rowKey(race.raceId, row.horseId), row, value, timestamp: Date.parse(row.computedAtUtc) });
        this.counters.rowsEmitted++;
      }
    }
    const removedAt = race.result?.publishedAt ?? latestCard(race.cards)?.publishedAt ?? 0;
    for (const horseId of Object.keys(race.emitted).sort()) {
      if (!(horseId in next)) {
        emit({ key: rowKey(race.raceId, horseId), row: null, value: null, timestamp: removedAt });
        this.counters.tombstonesEmitted++;
      }
    }
    if (!sameRecord(race.emitted, next)) {
      race.emitted = next;
      this.state.touchRace(race);
    }
  }
}

/**
 * The engine keeps no display names (it never reads them): smaller state, cheaper checkpoints. The
 * processor's cards come without them (input-decoder.ts reads them past), so the copy is written field
 * by field, every field named (a field added to the schema does not compile until it is here): objects
 * of one shape, not a spread of the decoded card with properties added after it.
 */
function slimCard(c: RaceCard): RaceCard {
  return {
    raceId: c.raceId,
    version: c.version,
    publishedAt: c.publishedAt,
    offTime: c.offTime,
    meetingDate: c.meetingDate,
    courseId: c.courseId,
    courseName: '',
    country: c.country,
    raceName: '',
    discipline: c.discipline,
    surface: c.surface,
    distanceYards: c.distanceYards,
    going: c.going,
    raceClass: c.raceClass,
    isHandicap: c.isHandicap,
    pattern: c.pattern,
    runners: c.runners.map(slimRunner),
  };
}

function slimRunner(r: RaceCardRunner): RaceCardRunner {
  return {
    horseId: r.horseId,
    horseName: '',
    age: r.age,
    sireId: r.sireId,
    sireName: r.sireName === null ? null : '',
    jockeyId: r.jockeyId,
    jockeyName: '',
    trainerId: r.trainerId,
    trainerName: '',
    saddleCloth: r.saddleCloth,
    draw: r.draw,
    weightLbs: r.weightLbs,
    officialRating: r.officialRating,
    nonRunner: r.nonRunner,
    sex: r.sex,
    headgear: r.headgear,
    jockeyClaimLbs: r.jockeyClaimLbs,
    ownerId: r.ownerId,
    ownerName: '',
    damId: r.damId,
    damName: '',
    damSireId: r.damSireId,
    damSireName: '',
  };
}

function sameRecord(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (a[k] !== b[k]) return false;
  return true;
}

/**
 * The fingerprint of a row as the engine keeps it for what it emitted (also of a row read back from the
 * topic): 64 bits of a hash over its Avro binary (`bytesFingerprint`), which holds every value in schema
 * order, numbers by their IEEE-754 bits, and the branch of every union (null told apart from a value).
 * Changing it changes what the state holds: bump STATE_FORMAT.
 */
export function rowFingerprint(r: AnalyticsRow): string {
  const value = encodeRow(r);
  return bytesFingerprint(value, ROW_HEADER_BYTES, value.length);
}

/** The fingerprint of a row's Avro binary (the topic's value without its wire-format header). */
export function rowBytesFingerprint(body: Uint8Array): string {
  return bytesFingerprint(body, 0, body.length);
}

/**
 * Races whose row inputs (horses, index heads, window months) are made resident together, in a few
 * multi-gets, before they are computed (in groups of FlushOptions.group): bounds what a large flush (a
 * takeover's history) loads ahead of its rows.
 */
const ROWS_READY_SLICE = 2_000;
