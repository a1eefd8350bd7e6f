/**
 * The analytics processor's state: races, horse histories, the entity indexes and pending interest,
 * held in memory. Only race states and courses are checkpointed to the state store (classic-level):
 * every entity aggregate is derived from the races' links and rebuilt on load, so a checkpoint costs
 * the races a batch touched, not the histories behind them. State is a cache of the log: dropping it
 * and replaying the input topics gives the same rows.
 */
import type { Course, RaceCard, RaceResult } from '../../domain/avro-types.generated.js';
import type { HorseRun } from '../../domain/features/horse.js';
import { EventIndex } from '../../state/aggregates/event-index.js';
import { RACE_STATE_TYPE } from './engine-state-codec.js';
import type { BatchOp, StorePort } from '../../state/store-port.js';

export interface RunnerLink {
  horseId: string;
  jockeyId: string;
  trainerId: string;
  sireId: string | null;
  officialRating: number;
  weightLbs: number;
  position?: number;
  figure?: number | null;
}

/** What a race last contributed to the entity aggregates. */
export interface RaceLinks {
  kind: 'pending' | 'ran';
  off: number;
  visibleAt: number;
  courseKey: string;
  courseVec: number[];
  courseId?: string;
  distanceYards?: number;
  raceClass?: number;
  runners: RunnerLink[];
}

export interface RaceState {
  raceId: string;
  /** every card version seen, sorted by (publishedAt, version) */
  cards: RaceCard[];
  result: RaceResult | null;
  links: RaceLinks | null;
  /** fingerprint of the row currently on the output topic, per horseId */
  emitted: Record<string, string>;
}

export type IndexKind = 'jockey' | 'trainer' | 'sire' | 'course';
export type PendingKind = IndexKind | 'horse';

export const INDEX_WIDTH: Record<IndexKind, number> = { jockey: 1, trainer: 2, sire: 1, course: 8 };

export const entityKey = {
  course: (courseId: string, discipline: string, bucket: string, surface: string): string =>
    `${courseId}|${discipline}|${bucket}|${surface}`,
};

export class EngineState {
  private readonly races = new Map<string, RaceState>();
  private readonly runs = new Map<string, HorseRun[]>();
  private readonly indexes: Record<IndexKind, Map<string, EventIndex>> = {
    jockey: new Map(),
    trainer: new Map(),
    sire: new Map(),
    course: new Map(),
  };
  private readonly pendings: Record<PendingKind, Map<string, Map<string, number>>> = {
    horse: new Map(),
    jockey: new Map(),
    trainer: new Map(),
    sire: new Map(),
    course: new Map(),
  };
  private readonly courses = new Map<string, Course>();
  private readonly courseRaces = new Map<string, Set<string>>();
  /** races to serialise at the next checkpoint */
  private readonly dirtyRaces = new Set<string>();
  /** courses to write at the next checkpoint */
  private readonly dirtyCourses = new Set<string>();

  // ---- races ----

  race(raceId: string): RaceState {
    let r = this.races.get(raceId);
    if (!r) {
      r = { raceId, cards: [], result: null, links: null, emitted: {} };
      this.races.set(raceId, r);
      this.dirtyRaces.add(raceId);
    }
    return r;
  }

  touchRace(r: RaceState): void {
    this.dirtyRaces.add(r.raceId);
  }

  // ---- horse histories ----

  /** A horse's runs sorted by (off, raceId); empty when unknown. */
  horseRuns(horseId: string): readonly HorseRun[] {
    return this.runs.get(horseId) ?? [];
  }

  upsertHorseRun(horseId: string, run: HorseRun): void {
    let runs = this.runs.get(horseId);
    if (!runs) {
      runs = [];
      this.runs.set(horseId, runs);
    }
    insertRun(runs, run);
  }

  removeHorseRun(horseId: string, raceId: string): void {
    const runs = this.runs.get(horseId);
    const i = runs ? runs.findIndex((x) => x.raceId === raceId) : -1;
    if (runs && i >= 0) runs.splice(i, 1);
  }

  // ---- entity indexes ----

  index(kind: IndexKind, id: string): EventIndex | undefined {
    return this.indexes[kind].get(id);
  }

  upsertEvent(
    kind: IndexKind,
    id: string,
    key: string,
    off: number,
    visibleAt: number,
    vec: readonly number[],
  ): EventIndex {
    let idx = this.indexes[kind].get(id);
    if (!idx) {
      idx = new EventIndex(INDEX_WIDTH[kind]);
      this.indexes[kind].set(id, idx);
    }
    idx.upsert(key, off, visibleAt, vec);
    return idx;
  }

  removeEvent(kind: IndexKind, id: string, key: string): void {
    this.indexes[kind].get(id)?.remove(key);
  }

  // ---- pending interest (declared races without a result) ----

  pending(kind: PendingKind, id: string): ReadonlyMap<string, number> | undefined {
    return this.pendings[kind].get(id);
  }

  setPending(kind: PendingKind, id: string, raceId: string, off: number): void {
    let m = this.pendings[kind].get(id);
    if (!m) {
      m = new Map();
      this.pendings[kind].set(id, m);
    }
    m.set(raceId, off);
  }

  deletePending(kind: PendingKind, id: string, raceId: string): void {
    const m = this.pendings[kind].get(id);
    if (m) {
      m.delete(raceId);
      if (m.size === 0) this.pendings[kind].delete(id);
    }
  }

  // ---- courses ----

  course(courseId: string): Course | undefined {
    return this.courses.get(courseId);
  }

  setCourse(c: Course): void {
    this.courses.set(c.courseId, c);
    this.dirtyCourses.add(c.courseId);
  }

  courseRace(courseId: string, raceId: string): void {
    let s = this.courseRaces.get(courseId);
    if (!s) {
      s = new Set();
      this.courseRaces.set(courseId, s);
    }
    s.add(raceId);
  }

  racesAtCourse(courseId: string): string[] {
    return [...(this.courseRaces.get(courseId) ?? [])];
  }

  // ---- checkpoints ----

  /** The store operations for everything changed since the last call; forgets the changes. */
  takeDirty(): BatchOp[] {
    const ops: BatchOp[] = [];
    for (const id of this.dirtyRaces) {
      ops.push({ type: 'put', key: `r!${id}`, value: RACE_STATE_TYPE.toBuffer(this.races.get(id)) });
    }
    for (const id of this.dirtyCourses) {
      ops.push({ type: 'put', key: `co!${id}`, value: Buffer.from(JSON.stringify(this.courses.get(id))) });
    }
    this.dirtyRaces.clear();
    this.dirtyCourses.clear();
    return ops;
  }

  /**
   * Loads the races and courses of a checkpoint written by takeDirty(). The entity aggregates are not
   * stored: the engine rebuilds them from the races' links (AnalyticsEngine.restore).
   */
  static async load(store: StorePort): Promise<EngineState> {
    const st = new EngineState();
    for await (const [key, buf] of store.entries()) {
      if (key.startsWith('r!')) {
        const race = RACE_STATE_TYPE.fromBuffer(buf) as RaceState;
        st.races.set(race.raceId, race);
        const card = race.cards[race.cards.length - 1];
        if (card) st.courseRace(card.courseId, race.raceId);
      } else if (key.startsWith('co!')) {
        const c = JSON.parse(buf.toString('utf8')) as Course;
        st.courses.set(c.courseId, c);
      }
    }
    return st;
  }

  /** Every race state (for rebuilding the aggregates after load). */
  allRaces(): IterableIterator<RaceState> {
    return this.races.values();
  }

  stats(): Record<string, number> {
    return {
      races: this.races.size,
      horses: this.runs.size,
      jockeys: this.indexes.jockey.size,
      trainers: this.indexes.trainer.size,
      sires: this.indexes.sire.size,
      courseKeys: this.indexes.course.size,
    };
  }
}

/** Keeps a horse's runs sorted by (off, raceId); replaces a run of the same race. */
function insertRun(runs: HorseRun[], run: HorseRun): void {
  const existing = runs.findIndex((x) => x.raceId === run.raceId);
  if (existing >= 0) runs.splice(existing, 1);
  let i = runs.length;
  while (i > 0 && (runs[i - 1]!.off > run.off || (runs[i - 1]!.off === run.off && runs[i - 1]!.raceId > run.raceId)))
    i--;
  runs.splice(i, 0, run);
}
