/**
 * The analytics processor's state: races, horse histories and the entity indexes, held in memory and
 * checkpointed to the state store (classic-level) as dirty entries at each commit. State is a cache of
 * the log: dropping it and replaying the input topics gives the same rows.
 */
import type { Course, RaceCard, RaceResult } from '../../domain/avro-types.generated.js';
import type { HorseRun } from '../../domain/features/horse.js';
import { EventIndex, type EventIndexJson } from '../../state/aggregates/event-index.js';
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

export interface HorseState {
  /** runs sorted by (off, raceId) */
  runs: HorseRun[];
  /** declared races without a result: raceId -> off */
  pending: Record<string, number>;
}

export interface IndexState {
  idx: EventIndex;
  pending: Record<string, number>;
}

export type IndexKind = 'jockey' | 'trainer' | 'sire' | 'course';

const PREFIX: Record<IndexKind, string> = { jockey: 'j!', trainer: 't!', sire: 's!', course: 'c!' };

export const entityKey = {
  course: (courseId: string, discipline: string, bucket: string, surface: string): string =>
    `${courseId}|${discipline}|${bucket}|${surface}`,
};

export class EngineState {
  private readonly races = new Map<string, RaceState>();
  private readonly horses = new Map<string, HorseState>();
  private readonly indexes: Record<IndexKind, Map<string, IndexState>> = {
    jockey: new Map(),
    trainer: new Map(),
    sire: new Map(),
    course: new Map(),
  };
  private readonly courses = new Map<string, Course>();
  private readonly courseRaces = new Map<string, Set<string>>();
  private readonly dirty = new Set<string>();

  race(raceId: string): RaceState {
    let r = this.races.get(raceId);
    if (!r) {
      r = { raceId, cards: [], result: null, links: null, emitted: {} };
      this.races.set(raceId, r);
      this.dirty.add(`r!${raceId}`);
    }
    return r;
  }

  hasRace(raceId: string): boolean {
    return this.races.has(raceId);
  }

  touchRace(r: RaceState): void {
    this.dirty.add(`r!${r.raceId}`);
  }

  horse(horseId: string): HorseState {
    let h = this.horses.get(horseId);
    if (!h) {
      h = { runs: [], pending: {} };
      this.horses.set(horseId, h);
    }
    this.dirty.add(`h!${horseId}`);
    return h;
  }

  peekHorse(horseId: string): HorseState | undefined {
    return this.horses.get(horseId);
  }

  touchHorse(horseId: string): void {
    this.dirty.add(`h!${horseId}`);
  }

  index(kind: IndexKind, id: string, width: number): IndexState {
    const m = this.indexes[kind];
    let s = m.get(id);
    if (!s) {
      s = { idx: new EventIndex(width), pending: {} };
      m.set(id, s);
    }
    this.dirty.add(PREFIX[kind] + id);
    return s;
  }

  peekIndex(kind: IndexKind, id: string): IndexState | undefined {
    return this.indexes[kind].get(id);
  }

  touchIndex(kind: IndexKind, id: string): void {
    this.dirty.add(PREFIX[kind] + id);
  }

  course(courseId: string): Course | undefined {
    return this.courses.get(courseId);
  }

  setCourse(c: Course): void {
    this.courses.set(c.courseId, c);
    this.dirty.add(`co!${c.courseId}`);
  }

  courseRace(courseId: string, raceId: string): void {
    let s = this.courseRaces.get(courseId);
    if (!s) {
      s = new Set();
      this.courseRaces.set(courseId, s);
    }
    if (!s.has(raceId)) {
      s.add(raceId);
      this.dirty.add(`cr!${courseId}`);
    }
  }

  racesAtCourse(courseId: string): string[] {
    return [...(this.courseRaces.get(courseId) ?? [])];
  }

  get dirtyCount(): number {
    return this.dirty.size;
  }

  /** Serialises every entry changed since the last call and forgets the dirty marks. */
  takeDirty(): BatchOp[] {
    const ops: BatchOp[] = [];
    for (const key of [...this.dirty].sort()) {
      const value = this.serialise(key);
      ops.push(value === undefined ? { type: 'del', key } : { type: 'put', key, value: Buffer.from(value) });
    }
    this.dirty.clear();
    return ops;
  }

  private serialise(key: string): string | undefined {
    const bang = key.indexOf('!');
    const p = key.slice(0, bang + 1);
    const id = key.slice(bang + 1);
    switch (p) {
      case 'r!':
        return json(this.races.get(id));
      case 'h!':
        return json(this.horses.get(id));
      case 'co!':
        return json(this.courses.get(id));
      case 'cr!': {
        const s = this.courseRaces.get(id);
        return s ? JSON.stringify([...s]) : undefined;
      }
      default: {
        const kind = (Object.keys(PREFIX) as IndexKind[]).find((k) => PREFIX[k] === p);
        const s = kind ? this.indexes[kind].get(id) : undefined;
        return s ? JSON.stringify({ idx: s.idx.toJSON(), pending: s.pending }) : undefined;
      }
    }
  }

  /** Loads a checkpoint written by takeDirty(). */
  static async load(store: StorePort): Promise<EngineState> {
    const st = new EngineState();
    for await (const [key, buf] of store.entries()) {
      const bang = key.indexOf('!');
      const p = key.slice(0, bang + 1);
      const id = key.slice(bang + 1);
      const v = JSON.parse(buf.toString('utf8')) as unknown;
      switch (p) {
        case 'r!':
          st.races.set(id, v as RaceState);
          break;
        case 'h!':
          st.horses.set(id, v as HorseState);
          break;
        case 'co!':
          st.courses.set(id, v as Course);
          break;
        case 'cr!':
          st.courseRaces.set(id, new Set(v as string[]));
          break;
        default: {
          const kind = (Object.keys(PREFIX) as IndexKind[]).find((k) => PREFIX[k] === p);
          if (kind) {
            const j = v as { idx: EventIndexJson; pending: Record<string, number> };
            st.indexes[kind].set(id, { idx: EventIndex.fromJSON(j.idx), pending: j.pending });
          }
        }
      }
    }
    return st;
  }

  stats(): Record<string, number> {
    return {
      races: this.races.size,
      horses: this.horses.size,
      jockeys: this.indexes.jockey.size,
      trainers: this.indexes.trainer.size,
      sires: this.indexes.sire.size,
      courseKeys: this.indexes.course.size,
    };
  }
}

function json(v: unknown): string | undefined {
  return v === undefined ? undefined : JSON.stringify(v);
}
