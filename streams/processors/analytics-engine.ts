/**
 * The analytics processor's core: a deterministic state machine over cards, results and courses that
 * keeps per-entity rolling aggregates and, on flush, (re)computes the rows of every race whose inputs
 * changed. Its only I/O is reading state it does not hold in memory (EngineState loads it from the
 * store): each change first makes what it touches resident (`ready`, `readyRows`, awaiting only on a
 * miss), then runs synchronously. The pipeline feeds it decoded events and checkpoints what it marks dirty.
 *
 * Every row is computed "as of" its race's off from (a) the race's own card and result and (b) one
 * entity key's visible history per feature (horse, jockey, trainer, sire, course snapshot key), so the
 * set of rows does not depend on arrival order or batching; only provisional rows track what has
 * arrived so far.
 */
import { compareCardVersions } from '../../domain/card-order.js';
import type { AnalyticsRow, Course, RaceCard, RaceCardRunner, RaceResult } from '../../domain/avro-types.generated.js';
import { disciplineCode, distanceBucket, distanceBucketCode, goingCode, surfaceCode } from '../../domain/codes.js';
import {
  courseRaceVector,
  drawFeatures,
  jockeyFeatures,
  sireFeatures,
  snapshotPeriodEndFor,
  trainerFeatures,
} from '../../domain/features/entities.js';
import { DAYS_14, DAYS_90, horseFeatures, type HorseRun, runFigure } from '../../domain/features/horse.js';
import type { ChunkedIndex } from '../../state/aggregates/chunked-index.js';
import { isoUtc } from '../../domain/time.js';
import {
  type EngineState,
  entityKey,
  type HorseRecord,
  type IndexKind,
  type PendingKind,
  type RaceLinks,
  type RaceState,
  type RunnerLink,
} from './engine-state.js';

export interface RowOutput {
  /** `${raceId}:${horseId}` */
  key: string;
  /** null = tombstone (the runner no longer has a row) */
  row: AnalyticsRow | null;
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

export function rowKey(raceId: string, horseId: string): string {
  return `${raceId}:${horseId}`;
}

/** Latest card version seen: greatest (publishedAt, version). */
export function latestCard(cards: readonly RaceCard[]): RaceCard | undefined {
  return cards[cards.length - 1];
}

/**
 * The card a race's own fields come from: for a race with a result, the latest version published
 * before the off (the earliest version if every version was published at or after it); otherwise the
 * latest version seen. The off itself is the latest version's.
 */
export function effectiveCard(cards: readonly RaceCard[], hasResult: boolean): RaceCard | undefined {
  const latest = latestCard(cards);
  if (!latest || !hasResult) return latest;
  let eff: RaceCard | undefined;
  for (const c of cards) if (c.publishedAt < latest.offTime) eff = c;
  return eff ?? cards[0];
}

export class AnalyticsEngine {
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

  constructor(readonly state: EngineState) {}

  /**
   * Loads, in one store round trip, what applying these events will use: their races, and the
   * horses and entity heads their cards name (the rest is loaded on demand).
   */
  async prefetch(
    events: readonly ({ kind: 'card'; value: RaceCard } | { kind: 'result' | 'course'; value: unknown })[],
  ): Promise<void> {
    const races: string[] = [];
    const horses: string[] = [];
    const indexes: [IndexKind, string][] = [];
    for (const e of events) {
      if (e.kind === 'result') races.push((e.value as RaceResult).raceId);
      if (e.kind !== 'card') continue;
      const c = e.value;
      races.push(c.raceId);
      indexes.push(['course', entityKey.course(c.courseId, c.discipline, distanceBucket(c.distanceYards), c.surface)]);
      for (const r of c.runners) {
        horses.push(r.horseId);
        indexes.push(['jockey', r.jockeyId], ['trainer', r.trainerId]);
        if (r.sireId) indexes.push(['sire', r.sireId]);
      }
    }
    await this.state.prefetch({ races, horses, indexes });
  }

  private advance(publishedAt: number): void {
    if (publishedAt > this.state.now) this.state.now = publishedAt;
  }

  async applyCard(card: RaceCard): Promise<void> {
    this.counters.cards++;
    this.advance(card.publishedAt);
    const race = this.state.peekRace(card.raceId) ?? (await this.state.race(card.raceId));
    if (race.cards.some((c) => c.version === card.version && c.publishedAt === card.publishedAt)) {
      this.counters.duplicates++;
      return;
    }
    race.cards.push(slimCard(card));
    race.cards.sort(compareCardVersions);
    this.state.courseRace(card.courseId, card.raceId);
    await this.reconcile(race);
  }

  async applyResult(result: RaceResult): Promise<void> {
    this.counters.results++;
    this.advance(result.publishedAt);
    const race = this.state.peekRace(result.raceId) ?? (await this.state.race(result.raceId));
    // A later publication supersedes (a corrected result); an equal or older one is a duplicate.
    if (race.result && race.result.publishedAt >= result.publishedAt) {
      this.counters.duplicates++;
      return;
    }
    race.result = result;
    await this.reconcile(race);
  }

  async applyCourse(course: Course): Promise<void> {
    this.counters.courses++;
    this.state.setCourse(course);
    for (const raceId of await this.state.racesAtCourse(course.courseId)) this.dirtyRaces.add(raceId);
  }

  /**
   * Recomputes every race marked dirty and returns the rows that changed (and tombstones). With
   * `owns`, only the races this instance owns are recomputed and emitted (scale-out: every instance
   * keeps every entity aggregate, each assembles the rows of its own race partitions).
   */
  async flush(owns?: (raceId: string) => boolean): Promise<RowOutput[]> {
    const out: RowOutput[] = [];
    const ids = [...this.dirtyRaces].filter((id) => !owns || owns(id)).sort();
    this.dirtyRaces.clear();
    await this.state.prefetch({ races: ids, horses: [], indexes: [] });
    for (const raceId of ids) {
      await this.recompute(this.state.peekRace(raceId) ?? (await this.state.race(raceId)), out);
    }
    return out;
  }

  /** Marks every known race matching the predicate for recompute (e.g. partitions newly owned). */
  async markDirty(predicate: (raceId: string) => boolean): Promise<void> {
    for (const id of await this.state.allRaceIds()) if (predicate(id)) this.dirtyRaces.add(id);
  }

  /**
   * Forgets what was emitted for races matching the predicate (partitions this instance no longer
   * owns), so that owning them again re-emits their rows.
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

  /** Brings the entity aggregates in line with the race's current card and result. */
  private async reconcile(race: RaceState): Promise<void> {
    this.dirtyRaces.add(race.raceId);
    this.state.touchRace(race);
    const next = this.links(race);
    const prev = race.links;
    if (sameLinks(prev, next)) return;
    if (prev) await this.ready(prev);
    if (next) await this.ready(next);
    if (prev) this.unlink(race.raceId, prev);
    if (next) this.link(race.raceId, next);
    race.links = next;
  }

  /**
   * Makes resident what linking or unlinking these links touches: the horses, and each entity's index
   * with the chunks from the race's month on. Awaits only when something has to be loaded.
   */
  private async ready(l: RaceLinks): Promise<void> {
    const s = this.state;
    const ran = l.kind === 'ran';
    const needIdx = async (kind: IndexKind, id: string) => {
      const i = s.peekIndex(kind, id) ?? (await s.index(kind, id, true));
      if (ran) {
        const p = i.ensureFrom(l.off);
        if (p) await p;
      }
    };
    for (const r of l.runners) {
      if (!s.peekHorse(r.horseId)) await s.horse(r.horseId);
      if (!s.peekIndex('jockey', r.jockeyId) || ran) await needIdx('jockey', r.jockeyId);
      if (!s.peekIndex('trainer', r.trainerId) || ran) await needIdx('trainer', r.trainerId);
      if (r.sireId && (!s.peekIndex('sire', r.sireId) || ran)) await needIdx('sire', r.sireId);
    }
    await needIdx('course', l.courseKey);
  }

  private horse(id: string): HorseRecord {
    return this.state.peekHorse(id)!;
  }

  /** A resident index (see ready()), marked as changed. */
  private idx(kind: IndexKind, id: string): ChunkedIndex {
    const i = this.state.peekIndex(kind, id)!;
    this.state.touchIndex(i);
    return i;
  }

  /** Makes resident what computing the race's rows reads; awaits only when something has to be loaded. */
  private async readyRows(starters: readonly RaceCardRunner[], off: number, courseKey: string): Promise<void> {
    const s = this.state;
    const need = async (kind: IndexKind, id: string, from: number, t: number) => {
      const i = s.peekIndex(kind, id) ?? (await s.index(kind, id));
      const p = i?.ensure(from, t);
      if (p) await p;
    };
    for (const r of starters) {
      if (!s.peekHorse(r.horseId)) await s.horse(r.horseId);
      await need('jockey', r.jockeyId, off - DAYS_90, off);
      await need('trainer', r.trainerId, off - DAYS_14, off);
      if (r.sireId) await need('sire', r.sireId, Number.NEGATIVE_INFINITY, off);
    }
    await need('course', courseKey, Number.NEGATIVE_INFINITY, snapshotPeriodEndFor(off));
  }

  /** What this race contributes to entities: run facts once it has a card and a result, else pending interest. */
  private links(race: RaceState): RaceState['links'] {
    const latest = latestCard(race.cards);
    if (!latest) return null;
    const result = race.result;
    const card = effectiveCard(race.cards, result !== null)!;
    const declared = card.runners.filter((r) => !r.nonRunner);
    const off = latest.offTime;
    const courseKey = entityKey.course(
      card.courseId,
      card.discipline,
      distanceBucket(card.distanceYards),
      card.surface,
    );
    if (!result) {
      return {
        kind: 'pending',
        off,
        visibleAt: off,
        courseKey,
        courseVec: [],
        runners: declared.map((r) => pendingLink(r)),
      };
    }
    const byHorse = new Map(result.runners.map((r) => [r.horseId, r]));
    const declaredIds = new Set(declared.map((r) => r.horseId));
    for (const r of result.runners) if (!declaredIds.has(r.horseId)) this.counters.resultRunnersNotOnCard++;
    const rated = declared.map((r) => r.officialRating);
    const ran: RunnerLink[] = [];
    const vecInput: { draw: number; position: number; favourite: boolean }[] = [];
    for (const r of declared) {
      const res = byHorse.get(r.horseId);
      if (!res) continue;
      const figure = runFigure({
        position: res.position,
        beatenLengths: res.beatenLengths,
        weightLbs: r.weightLbs,
        distanceYards: card.distanceYards,
        raceClass: card.raceClass,
        ratedOfFinalCard: rated,
      });
      ran.push({ ...pendingLink(r), position: res.position, figure });
      vecInput.push({ draw: r.draw, position: res.position, favourite: res.favourite });
    }
    return {
      kind: 'ran',
      off,
      visibleAt: Math.max(result.publishedAt, off),
      courseKey,
      courseVec: courseRaceVector(vecInput),
      courseId: card.courseId,
      distanceYards: card.distanceYards,
      raceClass: card.raceClass,
      runners: ran,
    };
  }

  private setPending(kind: PendingKind, id: string, raceId: string, off: number): void {
    if (kind === 'horse') {
      const h = this.horse(id);
      if (h.pending.get(raceId) !== off) {
        h.pending.set(raceId, off);
        this.state.touchHorse(id);
      }
    } else {
      this.idx(kind, id).setPending(raceId, off);
    }
  }

  private deletePending(kind: PendingKind, id: string, raceId: string): void {
    if (kind === 'horse') {
      if (this.horse(id).pending.delete(raceId)) this.state.touchHorse(id);
    } else {
      this.idx(kind, id).deletePending(raceId);
    }
  }

  private link(raceId: string, l: NonNullable<RaceState['links']>): void {
    if (l.kind === 'pending') {
      for (const r of l.runners) {
        this.setPending('horse', r.horseId, raceId, l.off);
        this.setPending('jockey', r.jockeyId, raceId, l.off);
        this.setPending('trainer', r.trainerId, raceId, l.off);
        if (r.sireId) this.setPending('sire', r.sireId, raceId, l.off);
      }
      this.setPending('course', l.courseKey, raceId, l.off);
      return;
    }
    for (const r of l.runners) {
      const key = rowKey(raceId, r.horseId);
      const win = r.position === 1 ? 1 : 0;
      const h = this.horse(r.horseId);
      upsertRun(h.runs, {
        raceId,
        off: l.off,
        visibleAt: l.visibleAt,
        courseId: l.courseId!,
        position: r.position!,
        figure: r.figure ?? null,
        distanceYards: l.distanceYards!,
        officialRating: r.officialRating,
        weightLbs: r.weightLbs,
        raceClass: l.raceClass!,
      });
      this.state.touchHorse(r.horseId);
      this.markHorseDependents(h, l.off, raceId);
      this.event('jockey', r.jockeyId, key, l, [win]);
      this.event('trainer', r.trainerId, key, l, [win, r.position === 2 || r.position === 3 ? 1 : 0]);
      if (r.sireId) this.event('sire', r.sireId, key, l, [win]);
    }
    this.event('course', l.courseKey, raceId, l, l.courseVec);
  }

  /** Records a run event in an entity's index and marks the entity's later races for recompute. */
  private event(kind: IndexKind, id: string, key: string, l: RaceLinks, vec: readonly number[]): void {
    const idx = this.idx(kind, id);
    idx.upsert(key, l.off, l.visibleAt, vec);
    this.markDependents(idx, l.off, raceIdOf(key));
  }

  private removeEvent(kind: IndexKind, id: string, key: string, off: number): void {
    const idx = this.idx(kind, id);
    idx.remove(key, off);
    this.markDependents(idx, off, raceIdOf(key));
  }

  private unlink(raceId: string, l: NonNullable<RaceState['links']>): void {
    if (l.kind === 'pending') {
      for (const r of l.runners) {
        this.deletePending('horse', r.horseId, raceId);
        this.deletePending('jockey', r.jockeyId, raceId);
        this.deletePending('trainer', r.trainerId, raceId);
        if (r.sireId) this.deletePending('sire', r.sireId, raceId);
      }
      this.deletePending('course', l.courseKey, raceId);
      return;
    }
    for (const r of l.runners) {
      const key = rowKey(raceId, r.horseId);
      const h = this.horse(r.horseId);
      const i = h.runs.findIndex((x) => x.raceId === raceId);
      if (i >= 0) {
        h.runs.splice(i, 1);
        this.state.touchHorse(r.horseId);
      }
      this.markHorseDependents(h, l.off, raceId);
      this.removeEvent('jockey', r.jockeyId, key, l.off);
      this.removeEvent('trainer', r.trainerId, key, l.off);
      if (r.sireId) this.removeEvent('sire', r.sireId, key, l.off);
    }
    this.removeEvent('course', l.courseKey, raceId, l.off);
  }

  /** Races that may see a change of this entity at `off`: its pending or run races off later. */
  private markDependents(idx: ChunkedIndex, off: number, self: string): void {
    for (const [rid, o] of idx.pending) if (o > off && rid !== self) this.dirtyRaces.add(rid);
    for (const k of idx.keysOffAfter(off)) {
      const rid = raceIdOf(k);
      if (rid !== self) this.dirtyRaces.add(rid);
    }
  }

  private markHorseDependents(h: HorseRecord, off: number, self: string): void {
    for (const [rid, o] of h.pending) if (o > off && rid !== self) this.dirtyRaces.add(rid);
    const runs = h.runs;
    for (let i = runs.length - 1; i >= 0 && runs[i]!.off > off; i--) {
      const rid = runs[i]!.raceId;
      if (rid !== self) this.dirtyRaces.add(rid);
    }
  }

  private async recompute(race: RaceState, out: RowOutput[]): Promise<void> {
    this.counters.racesRecomputed++;
    const rows = await this.computeRows(race);
    const next: Record<string, string> = {};
    for (const row of rows) {
      next[row.horseId] = fingerprint(rowText(row));
      if (race.emitted[row.horseId] !== next[row.horseId]) {
        out.push({ key: rowKey(race.raceId, row.horseId), row, timestamp: Date.parse(row.computedAtUtc) });
        this.counters.rowsEmitted++;
      }
    }
    const removedAt = race.result?.publishedAt ?? latestCard(race.cards)?.publishedAt ?? 0;
    for (const horseId of Object.keys(race.emitted).sort()) {
      if (!(horseId in next)) {
        out.push({ key: rowKey(race.raceId, horseId), row: null, timestamp: removedAt });
        this.counters.tombstonesEmitted++;
      }
    }
    if (!sameRecord(race.emitted, next)) {
      race.emitted = next;
      this.state.touchRace(race);
    }
  }

  /** The current rows of a race (final once its result is in), ordered by horseId. */
  async computeRows(race: RaceState): Promise<AnalyticsRow[]> {
    const latest = latestCard(race.cards);
    if (!latest) return [];
    const result = race.result;
    const card = effectiveCard(race.cards, result !== null)!;
    const off = latest.offTime;
    const declared = card.runners.filter((r) => !r.nonRunner);
    const byHorse = new Map((result?.runners ?? []).map((r) => [r.horseId, r]));
    const starters = result ? declared.filter((r) => byHorse.has(r.horseId)) : declared;
    const courseKey = entityKey.course(
      card.courseId,
      card.discipline,
      distanceBucket(card.distanceYards),
      card.surface,
    );
    await this.readyRows(starters, off, courseKey);
    const s = this.state;
    const courseIdx = s.peekIndex('course', courseKey);
    const topo = this.state.course(card.courseId)?.topology ?? null;
    const rows: AnalyticsRow[] = [];
    for (const r of [...starters].sort((a, b) => (a.horseId < b.horseId ? -1 : a.horseId > b.horseId ? 1 : 0))) {
      const hf = horseFeatures(this.horse(r.horseId).runs, {
        off,
        courseId: card.courseId,
        distanceYards: card.distanceYards,
        officialRating: r.officialRating,
        weightLbs: r.weightLbs,
        raceClass: card.raceClass,
      });
      const jf = jockeyFeatures(s.peekIndex('jockey', r.jockeyId), off);
      const tf = trainerFeatures(s.peekIndex('trainer', r.trainerId), off);
      const sf = sireFeatures(r.sireId ? s.peekIndex('sire', r.sireId) : undefined, r.sireId !== null, off);
      const df = drawFeatures(courseIdx, off, r.draw);
      const res = byHorse.get(r.horseId);
      const computedAt = result
        ? result.publishedAt
        : Math.max(
            card.publishedAt,
            hf.latestVisible,
            jf.latestVisible,
            tf.latestVisible,
            sf.latestVisible,
            df.latestVisible,
          );
      const pos = res ? res.position : 0;
      rows.push({
        raceId: race.raceId,
        horseId: r.horseId,
        computedAtUtc: isoUtc(computedAt),
        position: pos >= 1 && pos <= 9 ? pos : 0,
        status: result ? 'final' : 'provisional',
        offTime: isoUtc(off),
        courseId: card.courseId,
        jockeyId: r.jockeyId,
        trainerId: r.trainerId,
        sireId: r.sireId,
        draw: r.draw,
        weightLbs: r.weightLbs,
        officialRating: r.officialRating,
        fieldSize: declared.length,
        distanceYards: card.distanceYards,
        raceClass: card.raceClass,
        disciplineCode: disciplineCode(card.discipline),
        surfaceCode: surfaceCode(card.surface),
        goingCode: goingCode(card.going),
        distanceBucketCode: distanceBucketCode(distanceBucket(card.distanceYards)),
        careerRuns: hf.careerRuns,
        careerWins: hf.careerWins,
        courseForm: hf.courseForm,
        courseFormRuns: hf.courseFormRuns,
        winRatioLast5: hf.winRatioLast5,
        vpr: hf.vpr,
        vprConfidence: hf.vprConfidence,
        improvingVpr: hf.improvingVpr,
        jockeyWinRate90Day: jf.jockeyWinRate90Day,
        jockeyRides90Day: jf.jockeyRides90Day,
        trainer14DayWinRate: tf.trainer14DayWinRate,
        trainerRunners14Day: tf.trainerRunners14Day,
        stableForm: tf.stableForm,
        sireProgenyWinRate: sf.sireProgenyWinRate,
        sireProgenyRuns: sf.sireProgenyRuns,
        drawBiasStrength: df.drawBiasStrength,
        drawBiasRaces: df.drawBiasRaces,
        distanceDifferenceY: hf.distanceDifferenceY,
        ratingDifference: hf.ratingDifference,
        weightDifferenceLbs: hf.weightDifferenceLbs,
        classDifference: hf.classDifference,
        lastRunDays: hf.lastRunDays,
        courseTotalClimbM: topo ? topo.totalClimbM : null,
        courseUndulationIndex: topo ? topo.undulationIndex : null,
        courseElevationRangeM: topo ? topo.elevationRangeM : null,
      });
    }
    return rows;
  }
}

/** The engine keeps no display names (it never reads them): smaller state, cheaper checkpoints. */
function slimCard(c: RaceCard): RaceCard {
  return {
    ...c,
    courseName: '',
    raceName: '',
    runners: c.runners.map((r) => ({
      ...r,
      horseName: '',
      jockeyName: '',
      trainerName: '',
      sireName: r.sireName === null ? null : '',
    })),
  };
}

function raceIdOf(key: string): string {
  const colon = key.indexOf(':');
  return colon >= 0 ? key.slice(0, colon) : key;
}

/** Keeps a horse's runs sorted by (off, raceId); replaces a run of the same race. */
function upsertRun(runs: HorseRun[], run: HorseRun): void {
  const existing = runs.findIndex((x) => x.raceId === run.raceId);
  if (existing >= 0) runs.splice(existing, 1);
  let i = runs.length;
  while (i > 0 && (runs[i - 1]!.off > run.off || (runs[i - 1]!.off === run.off && runs[i - 1]!.raceId > run.raceId)))
    i--;
  runs.splice(i, 0, run);
}

function pendingLink(r: RaceCardRunner): RunnerLink {
  return {
    horseId: r.horseId,
    jockeyId: r.jockeyId,
    trainerId: r.trainerId,
    sireId: r.sireId,
    officialRating: r.officialRating,
    weightLbs: r.weightLbs,
  };
}

/** Structural equality of two races' links (cheaper than comparing their JSON). */
function sameLinks(a: RaceState['links'], b: RaceState['links']): boolean {
  if (a === null || b === null) return a === b;
  if (
    a.kind !== b.kind ||
    a.off !== b.off ||
    a.visibleAt !== b.visibleAt ||
    a.courseKey !== b.courseKey ||
    a.courseId !== b.courseId ||
    a.distanceYards !== b.distanceYards ||
    a.raceClass !== b.raceClass ||
    a.runners.length !== b.runners.length ||
    a.courseVec.length !== b.courseVec.length
  ) {
    return false;
  }
  for (let i = 0; i < a.courseVec.length; i++) if (a.courseVec[i] !== b.courseVec[i]) return false;
  for (let i = 0; i < a.runners.length; i++) {
    const x = a.runners[i]!;
    const y = b.runners[i]!;
    if (
      x.horseId !== y.horseId ||
      x.jockeyId !== y.jockeyId ||
      x.trainerId !== y.trainerId ||
      x.sireId !== y.sireId ||
      x.officialRating !== y.officialRating ||
      x.weightLbs !== y.weightLbs ||
      x.position !== y.position ||
      x.figure !== y.figure
    ) {
      return false;
    }
  }
  return true;
}

function sameRecord(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  if (ka.length !== Object.keys(b).length) return false;
  for (const k of ka) if (a[k] !== b[k]) return false;
  return true;
}

/** The row's values in schema order: what the fingerprint covers (every field). */
function rowText(r: AnalyticsRow): string {
  let s = '';
  for (const v of Object.values(r)) s += `${v}|`;
  return s;
}

/** FNV-1a 64-bit of a string, hex: a compact fingerprint of an emitted row. */
function fingerprint(s: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x5bd1e995) >>> 0;
  }
  return h1.toString(16).padStart(8, '0') + h2.toString(16).padStart(8, '0');
}
