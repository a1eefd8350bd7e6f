/**
 * Residency: making sure what a change or a row computation touches is in memory before the
 * synchronous code runs. A batch's races, horses and entity heads come in one multi-get (prefetch);
 * anything else (an older month for a late result, the months a window starts in, the month of an
 * entity's last winner) is loaded on demand here, awaiting only on a miss. Every kind is reached
 * through the entity table.
 */
import type { RaceCard } from '../../domain/avro-types.generated.js';
import { eachEntityKey, type EntityKind, LAST_WIN_HORIZON, windowFrom } from '../../domain/features/entity-table.js';
import type { InputEvent } from '../../domain/events.js';
import type { SnapshotCalendar } from '../../domain/features/snapshot-calendar.js';
import {
  type LinkPlan,
  linkPlan,
  raceFactsOf,
  resolvedIndexes,
  runnerAt,
  runnerFactsOf,
  started,
} from './engine-links.js';
import type { ChunkedIndex } from '../../state/aggregates/chunked-index.js';
import type { EngineState, IndexKind, RaceLinks } from './engine-state.js';

export class EngineResidency {
  constructor(
    private readonly state: EngineState,
    private readonly cal: SnapshotCalendar,
  ) {}

  /**
   * A few store round trips for what applying these events will use, each a multi-get: the races, and
   * the horses and entity heads their cards name; then those of the races whose result comes without a
   * card in the batch (their card came earlier: the race, just read, names them); then, for every race
   * with a result, the months of its entities from its off on (what linking its runs writes into).
   * The keys come from each race's last card version in the batch or, without one, its latest stored
   * version (the one `applyEvents` links, unless a later version was published after the off): what
   * this misses is loaded on demand when the race is linked.
   */
  async prefetch(events: readonly InputEvent[]): Promise<void> {
    const s = this.state;
    const races: string[] = [];
    const horses: string[] = [];
    const indexes: [IndexKind, string][] = [];
    /** each race's off and the keys its runs link into, from its last card version in the batch */
    const carded = new Map<string, CardKeys>();
    const resulted: string[] = [];
    for (let i = events.length - 1; i >= 0; i--) {
      const e = events[i]!;
      if (e.kind === 'result') {
        races.push(e.value.raceId);
        resulted.push(e.value.raceId);
      }
      if (e.kind !== 'card') continue;
      const c: RaceCard = e.value;
      if (carded.has(c.raceId)) continue;
      races.push(c.raceId);
      carded.set(c.raceId, keysOfCard(c, horses, indexes));
    }
    await s.prefetch({ races, horses, indexes });
    if (resulted.length === 0) return;
    const ran: CardKeys[] = [];
    const later: string[] = [];
    const laterIndexes: [IndexKind, string][] = [];
    for (const id of resulted) {
      let k = carded.get(id);
      if (!k) {
        const cards = s.peekRace(id)?.cards;
        const c = cards?.[cards.length - 1];
        if (!c) continue;
        k = keysOfCard(c, later, laterIndexes);
        carded.set(id, k);
      }
      ran.push(k);
    }
    if (later.length > 0 || laterIndexes.length > 0)
      await s.prefetch({ races: [], horses: later, indexes: laterIndexes });
    const months: [ChunkedIndex, number][] = [];
    for (const { off, linked } of ran) {
      for (const [kind, key] of linked) {
        const i = s.peekIndex(kind, key);
        if (i) for (const pos of i.missingFrom(off)) months.push([i, i.startAt(pos)]);
      }
    }
    if (months.length > 0) await s.loadChunks(months);
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
    const earlier = l.earlier.length > 0;
    for (let p = 0; p < keys.length; p++) {
      const r = runnerAt(plan, p);
      // run facts go in from the race's month on; a runner the result leaves out only keeps its interest;
      // a superseded version's events may be on any key, and mark the races off after it as the run facts do
      const runs = ran && (r === null || started(r));
      const i = this.resident(plan, p) ?? (await this.load(plan, p, true))!;
      if (runs || earlier) {
        const q = i.ensureFrom(l.off);
        if (q) await q;
      }
    }
  }

  /**
   * Makes resident, for a whole set of races, what computing their rows reads, in a few multi-gets
   * rather than one store read per miss: one round trip for the runners' horses and the index heads,
   * one for the months the windows need, then one per step back of the last-win walks still short of
   * a month (most need none). Until the state next evicts, each race's rows are then computed from
   * memory (`rowSources`).
   */
  async readyRowsMany(all: readonly RaceLinks[]): Promise<void> {
    const s = this.state;
    const horses: string[] = [];
    const heads: [IndexKind, string][] = [];
    for (const l of all) {
      for (const r of l.runners) if (!s.peekHorse(r.horseId)) horses.push(r.horseId);
      const plan = linkPlan(l);
      for (let p = 0; p < plan.keys.length; p++) {
        if (this.resident(plan, p)) continue;
        heads.push([plan.kinds[p]!.kind, plan.keys[p]!]);
      }
    }
    if (horses.length > 0 || heads.length > 0) await s.prefetch({ races: [], horses, indexes: heads });
    let walks: LastWalk[];
    let months: [ChunkedIndex, number][];
    // (again when an index's rolled-up years had to be expanded: its positions moved; rare)
    do {
      months = [];
      walks = [];
      for (const l of all) {
        // (index loops: this runs for every key of every race a batch computes, and for-of over the
        // short lists made an iterator each time)
        this.eachQuery(l, (i, k, t) => {
          const ws = k.windowsMs;
          for (let w = 0; w < ws.length; w++) pushMonths(months, i, i.missing(windowFrom(ws[w]!, t), t));
          const tags = k.tags;
          if (tags) {
            for (let c = 0; c < tags.length; c++) {
              const cs = tags[c]!.windowsMs;
              for (let w = 0; w < cs.length; w++) pushMonths(months, i, i.missingTagged(windowFrom(cs[w]!, t), t));
            }
          }
          // (a walk answerable now stays so: loading months only ever makes more of them resident)
          if (k.lastDim !== undefined && i.missingLast(k.lastDim, t, t - LAST_WIN_HORIZON).length > 0)
            walks.push({ i, dim: k.lastDim, t, asked: Number.NaN });
        });
      }
    } while ((await s.loadChunks(months)) > 0);
    while (walks.length > 0) {
      const next: LastWalk[] = [];
      const want: [ChunkedIndex, number][] = [];
      for (const w of walks) {
        const miss = w.i.missingLast(w.dim, w.t, w.t - LAST_WIN_HORIZON);
        if (miss.length === 0) continue;
        const start = w.i.startAt(miss[0]!);
        if (start === w.asked) continue; // not installed (its index left memory): the query will say so
        w.asked = start;
        want.push([w.i, start]);
        next.push(w);
      }
      if (want.length > 0) await s.loadChunks(want);
      walks = next;
    }
  }

  /**
   * The index of each key of the links' plan (undefined where the key has no history), as
   * `readyRowsMany` left them resolved; no store read. A month a query needs and does not find in
   * memory throws (ChunkedIndex's MissingChunkError), never a silent wrong answer.
   */
  rowSources(l: RaceLinks): readonly (ChunkedIndex | undefined)[] {
    return resolvedIndexes(this.state, linkPlan(l));
  }

  /** Calls `f` with each resident index of the links' plan, its kind and the instant its queries are as of. */
  private eachQuery(l: RaceLinks, f: (i: ChunkedIndex, k: EntityKind, t: number) => void): void {
    const plan = linkPlan(l);
    const keys = plan.keys;
    let kind: EntityKind | undefined;
    let t = l.off;
    for (let p = 0; p < keys.length; p++) {
      const k = plan.kinds[p]!;
      if (k !== kind) {
        kind = k;
        t = k.asOf ? k.asOf(l.off, this.cal) : l.off;
      }
      const i = this.resident(plan, p);
      if (i) f(i, k, t);
    }
  }

  /** The index of a plan's key p if it is in memory (kept on the plan, marked as used); no store read. */
  private resident(plan: LinkPlan, p: number): ChunkedIndex | undefined {
    const idx = resolvedIndexes(this.state, plan);
    const cached = idx[p];
    if (cached) {
      cached.touched = this.state.now;
      return cached;
    }
    const i = this.state.peekIndex(plan.kinds[p]!.kind, plan.keys[p]!);
    if (i) idx[p] = i;
    return i;
  }

  /** The index of a plan's key p loaded from the store (with `create`, a new one when it has none). */
  private async load(plan: LinkPlan, p: number, create: boolean): Promise<ChunkedIndex | undefined> {
    const i = await this.state.index(plan.kinds[p]!.kind, plan.keys[p]!, create);
    if (i) resolvedIndexes(this.state, plan)[p] = i;
    return i;
  }
}

/** Adds the months at these positions of index i to `months` (what `EngineState.loadChunks` reads). */
function pushMonths(months: [ChunkedIndex, number][], i: ChunkedIndex, positions: readonly number[]): void {
  for (let q = 0; q < positions.length; q++) months.push([i, i.startAt(positions[q]!)]);
}

/** A last-win walk of `readyRowsMany`: its index and query, and the month it last asked the store for. */
interface LastWalk {
  i: ChunkedIndex;
  dim: number;
  t: number;
  asked: number;
}

/** A card's off and the entity keys its race's runs link into (the race's and its declared runners'). */
interface CardKeys {
  off: number;
  linked: [IndexKind, string][];
}

/**
 * Adds the horses and entity keys a card names to the lists (as linking its race will ask for them),
 * and returns the keys its runs link into.
 */
function keysOfCard(c: RaceCard, horses: string[], indexes: [IndexKind, string][]): CardKeys {
  const race = raceFactsOf(c, c.offTime);
  const runners = c.runners.map(runnerFactsOf);
  const linked: [IndexKind, string][] = [];
  for (const r of runners) horses.push(r.horseId);
  eachEntityKey(race, runners, (k, _ki, key, j) => {
    const pair: [IndexKind, string] = [k.kind, key];
    indexes.push(pair);
    if (j < 0 || !c.runners[j]!.nonRunner) linked.push(pair);
  });
  return { off: c.offTime, linked };
}
