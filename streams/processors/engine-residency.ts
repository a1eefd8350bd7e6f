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
import type { SnapshotCalendar } from '../../domain/features/snapshot-calendar.js';
import { linkKeys, raceFactsOf, runnerFactsOf } from './engine-links.js';
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
   * (with the chunks from the race's month on, for run facts).
   */
  async ready(l: RaceLinks): Promise<void> {
    const s = this.state;
    const ran = l.kind === 'ran';
    for (const r of l.runners) if (!s.peekHorse(r.horseId)) await s.horse(r.horseId);
    for (const [k, key] of linkKeys(l)) {
      if (!ran && k.within) continue; // pending interest is kept on the parent kind only
      const resident = s.peekIndex(k.kind, key);
      if (resident && !ran) continue;
      const i = resident ?? (await s.index(k.kind, key, true));
      if (ran) {
        const p = i.ensureFrom(l.off);
        if (p) await p;
      }
    }
  }

  /**
   * Makes resident what computing a race's rows reads: the starters' horses and every window each kind
   * queries. `keys[i][j]` is kind i's key of starter j; returns the sources in the same shape
   * (undefined where the key is null or has no history).
   */
  async readyRows(
    starters: readonly RunnerFacts[],
    race: RaceFacts,
    keys: readonly (readonly (string | null)[])[],
  ): Promise<(ChunkedIndex | undefined)[][]> {
    const s = this.state;
    const off = race.off;
    for (const r of starters) if (!s.peekHorse(r.horseId)) await s.horse(r.horseId);
    const sources: (ChunkedIndex | undefined)[][] = [];
    for (let ki = 0; ki < ENTITY_KINDS.length; ki++) {
      const k = ENTITY_KINDS[ki]!;
      const t = k.asOf ? k.asOf(off, this.cal) : off;
      const row: (ChunkedIndex | undefined)[] = [];
      sources.push(row);
      const kindKeys = keys[ki]!;
      for (let j = 0; j < kindKeys.length; j++) {
        const key = kindKeys[j]!;
        // a per-race kind has one key for every starter: look it up once
        const i =
          key === null
            ? undefined
            : j > 0 && k.per === 'race'
              ? row[0]
              : (s.peekIndex(k.kind, key) ?? (await s.index(k.kind, key)));
        row.push(i);
        if (!i || (j > 0 && k.per === 'race')) continue;
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
    return sources;
  }
}
