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
import { type LinkPlan, linkPlan, raceFactsOf, resolvedIndexes, runnerFactsOf } from './engine-links.js';
import type { ChunkedIndex } from '../../state/aggregates/chunked-index.js';
import type { EngineState, IndexKind, RaceLinks } from './engine-state.js';

export class EngineResidency {
  constructor(
    private readonly state: EngineState,
    private readonly cal: SnapshotCalendar,
  ) {}

  /**
   * One store round trip for what applying these events will use: races, horses and entity heads. The
   * keys come from each race's last card version in the batch (the one `applyEvents` links, unless a
   * later version was published after the off); whatever else a link or a row needs is loaded on demand.
   */
  async prefetch(events: readonly InputEvent[]): Promise<void> {
    const races: string[] = [];
    const horses: string[] = [];
    const indexes: [IndexKind, string][] = [];
    const carded = new Set<string>();
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]!;
      if (e.kind === 'result') races.push(e.value.raceId);
      if (e.kind !== 'card') continue;
      const c: RaceCard = e.value;
      if (carded.has(c.raceId)) continue;
      carded.add(c.raceId);
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
      const k = keys[p]![0];
      if (!ran && k.within) continue; // pending interest is kept on the parent kind only
      const i = this.resident(plan, p) ?? (await this.load(plan, p, true))!;
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
      const k = keys[p]![0];
      if (k !== kind) {
        kind = k;
        t = k.asOf ? k.asOf(off, this.cal) : off;
      }
      const i = this.resident(plan, p) ?? (await this.load(plan, p, false));
      if (!i) continue;
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

  /** The index of a plan's key p if it is in memory (kept on the plan, marked as used); no store read. */
  private resident(plan: LinkPlan, p: number): ChunkedIndex | undefined {
    const idx = resolvedIndexes(this.state, plan);
    const cached = idx[p];
    if (cached) {
      cached.touched = this.state.now;
      return cached;
    }
    const [k, key] = plan.keys[p]!;
    const i = this.state.peekIndex(k.kind, key);
    if (i) idx[p] = i;
    return i;
  }

  /** The index of a plan's key p loaded from the store (with `create`, a new one when it has none). */
  private async load(plan: LinkPlan, p: number, create: boolean): Promise<ChunkedIndex | undefined> {
    const [k, key] = plan.keys[p]!;
    const i = await this.state.index(k.kind, key, create);
    if (i) resolvedIndexes(this.state, plan)[p] = i;
    return i;
  }
}
