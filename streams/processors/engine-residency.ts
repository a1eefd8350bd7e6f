/**
 * Residency: making sure what a change or a row computation touches is in memory before the
 * synchronous code runs. A batch's races, horses and entity heads come in one multi-get (prefetch);
 * anything else (an older month for a late result, the months a window starts in, the month of an
 * entity's last winner) is loaded on demand here, awaiting only on a miss. Every kind is reached
 * through the entity table.
 */
import type { RaceCard } from '../../domain/avro-types.generated.js';
import {
  ENTITY_KINDS,
  type EntityKind,
  keyOf,
  LAST_WIN_HORIZON,
  windowFrom,
} from '../../domain/features/entity-table.js';
import type { InputEvent } from '../../domain/events.js';
import type { SnapshotCalendar } from '../../domain/features/snapshot-calendar.js';
import { linkPlan, raceFactsOf, resolvedIndexes, runnerFactsOf } from './engine-links.js';
import type { ChunkedIndex } from '../../state/aggregates/chunked-index.js';
import type { EngineState, IndexKind, RaceLinks } from './engine-state.js';

export class EngineResidency {
  constructor(
    private readonly state: EngineState,
    private readonly cal: SnapshotCalendar,
  ) {}

  /** One store round trip for what applying these events will use: races, horses and entity heads. */
  async prefetch(events: readonly InputEvent[]): Promise<void> {
    const races: string[] = [];
    const horses: string[] = [];
    const indexes: [IndexKind, string][] = [];
    for (const e of events) {
      if (e.kind === 'result') races.push(e.value.raceId);
      if (e.kind !== 'card') continue;
      const c: RaceCard = e.value;
      races.push(c.raceId);
      const race = raceFactsOf(c, c.offTime);
      const runners = c.runners.map(runnerFactsOf);
      for (const r of runners) horses.push(r.horseId);
      for (const k of ENTITY_KINDS) {
        if (k.per === 'race') {
          indexes.push([k.kind, k.key(race)]);
          continue;
        }
        for (const r of runners) {
          const key = keyOf(k, r, race);
          if (key !== null) indexes.push([k.kind, key]);
        }
      }
    }
    await this.state.prefetch({ races, horses, indexes });
  }

  /**
   * Makes resident what linking or unlinking these links touches: the horses, and each entity's index
   * (with the chunks from the race's month on, for run facts), resolved on the links' plan.
   */
  async ready(l: RaceLinks): Promise<void> {
    const s = this.state;
    const ran = l.kind === 'ran';
    for (const r of l.runners) if (!s.peekHorse(r.horseId)) await s.horse(r.horseId);
    const plan = linkPlan(l);
    const keys = plan.keys;
    for (let p = 0; p < keys.length; p++) {
      const [k, key] = keys[p]!;
      if (!ran && k.within) continue; // pending interest is kept on the parent kind only
      const idx = resolvedIndexes(s, plan);
      let i = idx[p];
      if (i) i.touched = s.now;
      else {
        i = s.peekIndex(k.kind, key) ?? (await s.index(k.kind, key, true));
        resolvedIndexes(s, plan)[p] = i;
      }
      if (ran) {
        const q = i.ensureFrom(l.off);
        if (q) await q;
      }
    }
  }

  /**
   * Makes resident what computing a race's rows reads: the starters' horses (the links' runners) and
   * every window each kind queries. Returns the index of each key of the links' plan (undefined where the
   * key has no history yet).
   */
  async readyRows(l: RaceLinks): Promise<readonly (ChunkedIndex | undefined)[]> {
    const s = this.state;
    for (const r of l.runners) if (!s.peekHorse(r.horseId)) await s.horse(r.horseId);
    const plan = linkPlan(l);
    const keys = plan.keys;
    const off = l.off;
    let kind: EntityKind | undefined;
    let t = off;
    for (let p = 0; p < keys.length; p++) {
      const [k, key] = keys[p]!;
      if (k !== kind) {
        kind = k;
        t = k.asOf ? k.asOf(off, this.cal) : off;
      }
      let i = resolvedIndexes(s, plan)[p];
      if (i) i.touched = s.now;
      else {
        i = s.peekIndex(k.kind, key) ?? (await s.index(k.kind, key));
        if (!i) continue;
        resolvedIndexes(s, plan)[p] = i;
      }
      for (const len of k.windowsMs) {
        const q = i.ensure(windowFrom(len, t), t);
        if (q) await q;
      }
      if (k.lastDim !== undefined) {
        const q = i.ensureLast(k.lastDim, t, t - LAST_WIN_HORIZON);
        if (q) await q;
      }
    }
    return resolvedIndexes(s, plan);
  }
}
