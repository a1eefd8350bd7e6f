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
  keyOf,
  LAST_WIN_HORIZON,
  type RaceFacts,
  type RunnerFacts,
  windowFrom,
} from '../../domain/features/entity-table.js';
import type { InputEvent } from '../../domain/events.js';
import { linkKeys, raceFactsOf, runnerFactsOf } from './engine-links.js';
import type { EngineState, IndexKind, RaceLinks } from './engine-state.js';

export class EngineResidency {
  constructor(private readonly state: EngineState) {}

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
   * (with the chunks from the race's month on, for run facts).
   */
  async ready(l: RaceLinks): Promise<void> {
    const s = this.state;
    const ran = l.kind === 'ran';
    for (const r of l.runners) if (!s.peekHorse(r.horseId)) await s.horse(r.horseId);
    for (const [k, key] of linkKeys(l)) {
      const resident = s.peekIndex(k.kind, key);
      if (resident && !ran) continue;
      const i = resident ?? (await s.index(k.kind, key, true));
      if (ran) {
        const p = i.ensureFrom(l.off);
        if (p) await p;
      }
    }
  }

  /** Makes resident what computing a race's rows reads: the starters' horses and every window each kind queries. */
  async readyRows(starters: readonly RunnerFacts[], race: RaceFacts): Promise<void> {
    const s = this.state;
    const off = race.off;
    for (const r of starters) if (!s.peekHorse(r.horseId)) await s.horse(r.horseId);
    for (const k of ENTITY_KINDS) {
      const t = k.asOf ? k.asOf(off) : off;
      const keys = k.per === 'race' ? [k.key(race)] : starters.map((r) => keyOf(k, r, race));
      for (const key of keys) {
        if (key === null) continue;
        const i = s.peekIndex(k.kind, key) ?? (await s.index(k.kind, key));
        if (!i) continue;
        for (const len of k.windowsMs) {
          const p = i.ensure(windowFrom(len, t), t);
          if (p) await p;
        }
        if (k.lastDim !== undefined) {
          const q = i.ensureLast(k.lastDim, t, t - LAST_WIN_HORIZON);
          if (q) await q;
        }
      }
    }
  }
}
