/**
 * Links: what a race contributes to the entity aggregates, and applying or withdrawing it. A race with
 * a card and no result contributes pending interest (its id registered with each entity its runners
 * name, so a change there recomputes its provisional rows); with a result it contributes run facts (one
 * run per starter in the horse's history and one event per starter in every indexed entity of the
 * table, plus one event per race in the course snapshot key). A declared runner its result leaves out
 * keeps the pending interest it had (its race's ranks read its features). Every entity is reached
 * through the entity table: nothing here names a particular kind.
 */
import type { RaceCard, RaceCardRunner, RaceResult } from '../../domain/avro-types.generated.js';
import { canonicalHeadgear, goingGroupCode } from '../../domain/codes.js';
import {
  ENTITY_KINDS,
  type EntityKind,
  eachEntityKey,
  type RaceFacts,
  type RunnerFacts,
} from '../../domain/features/entity-table.js';
import { type HorseRun, runFigure } from '../../domain/features/horse.js';
import type { ChunkedIndex } from '../../state/aggregates/chunked-index.js';
import type { EarlierVersion, EngineState, HorseRecord, RaceLinks, RaceState } from './engine-state.js';

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

/** The race facts keys and vectors read, from the card used (the off from the latest version). */
export function raceFactsOf(card: RaceCard, off: number): RaceFacts {
  return {
    off,
    courseId: card.courseId,
    discipline: card.discipline,
    surface: card.surface,
    distanceYards: card.distanceYards,
    goingGroup: goingGroupCode(card.going),
    raceClass: card.raceClass,
  };
}

/** A runner's card facts (no result yet). */
export function runnerFactsOf(r: RaceCardRunner): RunnerFacts {
  return {
    horseId: r.horseId,
    jockeyId: r.jockeyId,
    trainerId: r.trainerId,
    ownerId: r.ownerId,
    sireId: r.sireId,
    damId: r.damId,
    damSireId: r.damSireId,
    draw: r.draw,
    officialRating: r.officialRating,
    weightLbs: r.weightLbs,
    headgear: canonicalHeadgear(r.headgear),
  };
}

const NO_EARLIER: EarlierVersion[] = [];

/** What this race contributes: run facts once it has a card and a result, else pending interest. */
export function raceLinks(race: RaceState, onUnknownRunner: () => void): RaceLinks | null {
  const latest = latestCard(race.cards);
  if (!latest) return null;
  const result = race.result;
  const card = effectiveCard(race.cards, result !== null)!;
  const declared = card.runners.filter((r) => !r.nonRunner);
  if (!result) {
    return linksOf(card, latest.offTime, 'pending', latest.offTime, 0, declared.map(runnerFactsOf), NO_EARLIER);
  }
  const off = latest.offTime;
  // A superseded version counts from its own visibleAt until the next version's: only those published
  // after the off have a non-empty interval (the versions published before it all become visible at it).
  // A version republished unchanged continues the one before it: one interval, from the first.
  let earlier = NO_EARLIER;
  const versions = race.earlierResults ?? NO_RESULTS;
  let from: number | undefined;
  for (let v = 0; v < versions.length; v++) {
    const next = v + 1 < versions.length ? versions[v + 1]! : result;
    const visibleAt = from ?? Math.max(versions[v]!.publishedAt, off);
    if (sameContent(versions[v]!, next)) {
      from = visibleAt;
      continue;
    }
    from = undefined;
    const until = Math.max(next.publishedAt, off);
    if (!(visibleAt < until)) continue;
    if (earlier === NO_EARLIER) earlier = [];
    const runners = ranRunners(declared, card, versions[v]!, () => undefined);
    earlier.push({ visibleAt, until, ran: versions[v]!.runners.length, runners });
  }
  return linksOf(
    card,
    off,
    'ran',
    from ?? Math.max(result.publishedAt, off),
    result.runners.length,
    ranRunners(declared, card, result, onUnknownRunner),
    earlier,
  );
}

/**
 * A race's links: its race facts with the links' own fields assigned onto them. Not an object spread of
 * raceFactsOf's result with fields added: V8 (Node 20) builds such a literal slowly, with about 4 KB of
 * garbage each (docs/performance-history.md, the twelfth session); assigning onto the fresh object is fast.
 */
function linksOf(
  card: RaceCard,
  off: number,
  kind: RaceLinks['kind'],
  visibleAt: number,
  ran: number,
  runners: RunnerFacts[],
  earlier: EarlierVersion[],
): RaceLinks {
  return Object.assign(raceFactsOf(card, off), { isHandicap: card.isHandicap, kind, visibleAt, ran, runners, earlier });
}

const NO_RESULTS: RaceResult[] = [];

/** Two versions of a result that differ in nothing but their publishedAt. */
function sameContent(a: RaceResult, b: RaceResult): boolean {
  return JSON.stringify({ ...a, publishedAt: 0 }) === JSON.stringify({ ...b, publishedAt: 0 });
}

/** The declared runners' facts with one version of the result. */
function ranRunners(
  declared: readonly RaceCardRunner[],
  card: RaceCard,
  result: RaceResult,
  onUnknownRunner: () => void,
): RunnerFacts[] {
  const byHorse = new Map(result.runners.map((r) => [r.horseId, r]));
  const declaredIds = new Set(declared.map((r) => r.horseId));
  for (const r of result.runners) if (!declaredIds.has(r.horseId)) onUnknownRunner();
  const rated = declared.map((r) => r.officialRating);
  const positions = new Map<number, number>();
  for (const r of result.runners) if (r.position > 0) positions.set(r.position, (positions.get(r.position) ?? 0) + 1);
  const runners: RunnerFacts[] = [];
  for (const r of declared) {
    const res = byHorse.get(r.horseId);
    // left out of the result: withdrawn at the start, no run; kept (without a position) as a runner of
    // the card used, which the race's ranks are over and which keeps its interest in its entities
    if (!res) {
      runners.push(runnerFactsOf(r));
      continue;
    }
    const finished = res.position >= 1;
    // the result's fields assigned onto the card's facts, not spread from them (see linksOf)
    runners.push(
      Object.assign(runnerFactsOf(r), {
        position: res.position,
        figure: runFigure({
          position: res.position,
          beatenLengths: res.beatenLengths,
          weightLbs: r.weightLbs,
          distanceYards: card.distanceYards,
          raceClass: card.raceClass,
          ratedOfFinalCard: rated,
        }),
        startingPrice: res.startingPrice,
        favourite: res.favourite,
        deadHeat: finished ? (positions.get(res.position) ?? 1) : 1,
        beatenLengths: finished ? res.beatenLengths : null,
      }),
    );
  }
  return runners;
}

/**
 * Whether a runner of a race's links started: every runner of a run race's links but those its result
 * leaves out (they have no position); no runner of pending links.
 */
export function started(r: RunnerFacts): boolean {
  return r.position !== undefined && r.position !== null;
}

/** Structural equality of two races' links (cheaper than comparing their JSON). */
export function sameLinks(a: RaceLinks | null, b: RaceLinks | null): boolean {
  if (a === null || b === null) return a === b;
  if (
    a.kind !== b.kind ||
    a.off !== b.off ||
    a.visibleAt !== b.visibleAt ||
    a.courseId !== b.courseId ||
    a.discipline !== b.discipline ||
    a.surface !== b.surface ||
    a.distanceYards !== b.distanceYards ||
    a.goingGroup !== b.goingGroup ||
    a.raceClass !== b.raceClass ||
    a.isHandicap !== b.isHandicap ||
    a.ran !== b.ran ||
    a.runners.length !== b.runners.length
  ) {
    return false;
  }
  if (!sameRunners(a.runners, b.runners)) return false;
  const ea = a.earlier ?? NO_EARLIER;
  const eb = b.earlier ?? NO_EARLIER;
  if (ea.length !== eb.length) return false;
  for (let v = 0; v < ea.length; v++) {
    const x = ea[v]!;
    const y = eb[v]!;
    if (x.visibleAt !== y.visibleAt || x.until !== y.until || x.ran !== y.ran) return false;
    if (x.runners.length !== y.runners.length || !sameRunners(x.runners, y.runners)) return false;
  }
  return true;
}

function sameRunners(a: readonly RunnerFacts[], b: readonly RunnerFacts[]): boolean {
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    for (const k of RUNNER_FACT_KEYS) if ((x[k] ?? null) !== (y[k] ?? null)) return false;
  }
  return true;
}

const RUNNER_FACT_KEYS = [
  'horseId',
  'jockeyId',
  'trainerId',
  'ownerId',
  'sireId',
  'damId',
  'damSireId',
  'draw',
  'officialRating',
  'weightLbs',
  'headgear',
  'position',
  'figure',
  'startingPrice',
  'favourite',
  'deadHeat',
  'beatenLengths',
] as const satisfies readonly (keyof RunnerFacts)[];

/**
 * What a race's links touch, worked out once per links object (the keys are built and the indexes
 * looked up once, not at every ready, link, unlink and row assembly of the race). The keys are held in
 * parallel arrays, not as a tuple per key: a plan lives as long as its race's links, and a race's plan
 * has seven kinds' keys for each runner.
 */
export interface LinkPlan {
  /** the kind of each key, per kind in ENTITY_KINDS order */
  readonly kinds: readonly EntityKind[];
  /** each key (aligned with `kinds`) */
  readonly keys: readonly string[];
  /** the position in the links' runners of the runner each key belongs to (aligned with `kinds`); -1 for per-race kinds */
  readonly runnerOf: readonly number[];
  /** the runners of the links the plan is of */
  readonly runners: readonly RunnerFacts[];
  /** grid[ki * runners + j]: position in `keys` of kind ki's key of runner j (links order); -1 when it has none */
  readonly grid: readonly number[];
  /** the index of each key as far as looked up (aligned with `keys`), valid while `epoch` is the state's */
  idx: (ChunkedIndex | undefined)[];
  epoch: number;
  /** the key of this race's event in each key's index (aligned with `keys`), once asked for (eventKeys) */
  events?: { raceId: string; keys: string[] };
}

/** The runner a plan's key p belongs to, or null for a per-race kind's key. */
export function runnerAt(plan: LinkPlan, p: number): RunnerFacts | null {
  const j = plan.runnerOf[p]!;
  return j < 0 ? null : plan.runners[j]!;
}

/** Position in the plan's keys of kind ki's key of runner j (links order); -1 when it has none. */
export function keyOf(plan: LinkPlan, ki: number, j: number): number {
  return plan.grid[ki * plan.runners.length + j]!;
}

/**
 * The key of the race's event in the index of each key of the plan: the race id for per-race kinds,
 * `raceId:horseId` for per-runner kinds. Built once per runner and shared by all its kinds' indexes (one
 * string in memory where there were nine).
 */
export function eventKeys(plan: LinkPlan, raceId: string): readonly string[] {
  if (plan.events?.raceId === raceId) return plan.events.keys;
  const ofRunner = new Array<string | undefined>(plan.runners.length);
  const out = new Array<string>(plan.keys.length);
  for (let p = 0; p < out.length; p++) {
    const j = plan.runnerOf[p]!;
    out[p] = j < 0 ? raceId : (ofRunner[j] ??= rowKey(raceId, plan.runners[j]!.horseId));
  }
  plan.events = { raceId, keys: out };
  return out;
}

const planCache = new WeakMap<RaceLinks, LinkPlan>();

/** The plan of a race's links (cached on the links object). */
export function linkPlan(l: RaceLinks): LinkPlan {
  let plan = planCache.get(l);
  if (plan) return plan;
  const n = l.runners.length;
  const kinds: EntityKind[] = [];
  const keys: string[] = [];
  const runnerOf: number[] = [];
  const grid = new Array<number>(ENTITY_KINDS.length * n).fill(-1);
  eachEntityKey(l, l.runners, (k, ki, key, j) => {
    if (j < 0) grid.fill(keys.length, ki * n, (ki + 1) * n);
    else grid[ki * n + j] = keys.length;
    kinds.push(k);
    keys.push(key);
    runnerOf.push(j < 0 ? -1 : j);
  });
  plan = {
    kinds,
    keys,
    runnerOf,
    runners: l.runners,
    grid,
    idx: new Array<ChunkedIndex | undefined>(keys.length),
    epoch: -1,
  };
  planCache.set(l, plan);
  return plan;
}

/**
 * The plan's resolved indexes, reset when the state has evicted an index since they were looked up (an
 * evicted index comes back as a new object). A resolved index is still marked as used (`touched`).
 */
export function resolvedIndexes(state: EngineState, plan: LinkPlan): (ChunkedIndex | undefined)[] {
  if (plan.epoch !== state.indexEpoch) {
    plan.idx = new Array<ChunkedIndex | undefined>(plan.keys.length);
    plan.epoch = state.indexEpoch;
  }
  return plan.idx;
}

export function rowKey(raceId: string, horseId: string): string {
  return `${raceId}:${horseId}`;
}

/** The race id of a row key (`raceId:horseId`). */
export function raceIdOf(key: string): string {
  const colon = key.indexOf(':');
  return colon >= 0 ? key.slice(0, colon) : key;
}

/** Applies and withdraws links on the engine state; marks the races a change may affect. */
export class Linker {
  constructor(
    private readonly state: EngineState,
    private readonly dirty: Set<string>,
    /** a per-race event (a course snapshot key's race) was added or removed, visible at `visibleAt` */
    private readonly onRaceEvent: (key: string, visibleAt: number) => void = () => undefined,
  ) {}

  link(raceId: string, l: RaceLinks): void {
    this.linkMany([[raceId, l]]);
  }

  /**
   * Applies several races' links, leaving the state `link` race by race leaves. Each race's own part
   * (its horses' runs, its pending interest, its superseded versions) goes in race by race; its events
   * in the entity indexes go in one index at a time, each index's in the races' order, so the next
   * event of an index finds its months warm rather than those of another race's keys. Events of
   * different races commute (an index holds the set of its events), and what another order would mark
   * dirty differs only among these races, which their caller marks dirty anyway.
   */
  linkMany(races: readonly (readonly [string, RaceLinks])[]): void {
    // the run events, as (race, key position), and the index each goes into
    const raceAt: number[] = [];
    const posAt: number[] = [];
    const groupAt: number[] = [];
    const groups = new Map<ChunkedIndex, number>();
    const plans: LinkPlan[] = new Array<LinkPlan>(races.length);
    for (let r = 0; r < races.length; r++) {
      const [raceId, l] = races[r]!;
      const plan = linkPlan(l);
      plans[r] = plan;
      const idx = resolvedIndexes(this.state, plan);
      if (l.kind === 'pending') {
        for (const x of l.runners) this.setHorsePending(x.horseId, raceId, l.off);
        for (let p = 0; p < plan.keys.length; p++) this.idx(idx, p).setPending(raceId, l.off);
        continue;
      }
      this.linkRuns(raceId, l);
      for (let p = 0; p < plan.keys.length; p++) {
        const x = runnerAt(plan, p);
        const i = this.idx(idx, p);
        if (x !== null && !started(x)) {
          i.setPending(raceId, l.off);
          continue;
        }
        let g = groups.get(i);
        if (g === undefined) groups.set(i, (g = groups.size));
        raceAt.push(r);
        posAt.push(p);
        groupAt.push(g);
      }
    }
    // group g's index (a Map keeps its keys in insertion order)
    const groupIndex = [...groups.keys()];
    // the events by index, in the order of each index's first event (a counting sort)
    const n = raceAt.length;
    const start = new Int32Array(groups.size + 1);
    for (let q = 0; q < n; q++) start[groupAt[q]! + 1]!++;
    for (let g = 0; g < groups.size; g++) start[g + 1]! += start[g]!;
    const order = new Int32Array(n);
    for (let q = 0; q < n; q++) order[start[groupAt[q]!]!++] = q;
    for (let o = 0; o < n; o++) {
      const q = order[o]!;
      const [raceId, l] = races[raceAt[q]!]!;
      this.linkEvent(raceId, l, plans[raceAt[q]!]!, posAt[q]!, groupIndex[groupAt[q]!]!);
    }
    for (let r = 0; r < races.length; r++) {
      const [raceId, l] = races[r]!;
      if (l.kind === 'pending' || l.earlier.length === 0) continue;
      const plan = plans[r]!;
      this.linkEarlier(raceId, l, plan, resolvedIndexes(this.state, plan), eventKeys(plan, raceId));
    }
  }

  /** A run race's horses: each starter's run, and a runner the result leaves out keeps its interest. */
  private linkRuns(raceId: string, l: RaceLinks): void {
    for (const r of l.runners) {
      // a runner the result leaves out has no run; like a declared runner, its rows' inputs still matter
      if (!started(r)) {
        this.setHorsePending(r.horseId, raceId, l.off);
        continue;
      }
      const h = this.horse(r.horseId);
      upsertRun(h.runs, horseRun(raceId, l, r));
      this.state.touchHorse(r.horseId);
      this.markHorseDependents(h, l.off, raceId);
    }
  }

  /** A run race's event in `i`, the index of its plan's key p (a starter's, or the race's for a per-race kind). */
  private linkEvent(raceId: string, l: RaceLinks, plan: LinkPlan, p: number, i: ChunkedIndex): void {
    const k = plan.kinds[p]!;
    if (k.per === 'race') {
      i.upsert(raceId, l.off, l.visibleAt, k.vector(l.runners.filter(started)));
      this.onRaceEvent(plan.keys[p]!, l.visibleAt);
    } else i.upsert(eventKeys(plan, raceId)[p]!, l.off, l.visibleAt, k.vector(runnerAt(plan, p)!, l));
    this.markDependents(i, l.off, raceId);
  }

  /**
   * The superseded result versions' runs and events, each counting while its version was the latest
   * visible. The races they can change are those the latest version's links mark (the same off and keys).
   */
  private linkEarlier(
    raceId: string,
    l: RaceLinks,
    plan: LinkPlan,
    idx: (ChunkedIndex | undefined)[],
    events: readonly string[],
  ): void {
    for (const e of l.earlier) {
      const rl = { ...l, visibleAt: e.visibleAt, ran: e.ran };
      for (const r of e.runners) {
        if (!started(r)) continue;
        const h = this.horse(r.horseId);
        upsertRun(h.runs, { ...horseRun(raceId, rl, r), supersededAt: e.until });
        this.state.touchHorse(r.horseId);
        this.markHorseDependents(h, l.off, raceId);
      }
      for (let p = 0; p < plan.keys.length; p++) {
        const k = plan.kinds[p]!;
        const key = plan.keys[p]!;
        if (k.per === 'race') {
          // (a version without a starter is a race all the same, as the latest one is in link)
          const i = this.idx(idx, p);
          i.addSuperseded(raceId, l.off, e.visibleAt, e.until, k.vector(e.runners.filter(started)));
          this.markDependents(i, l.off, raceId);
          this.onRaceEvent(key, e.visibleAt);
          this.onRaceEvent(key, e.until);
          continue;
        }
        const er = e.runners[plan.runnerOf[p]!]!;
        if (!started(er)) continue;
        const i = this.idx(idx, p);
        i.addSuperseded(events[p]!, l.off, e.visibleAt, e.until, k.vector(er, rl));
        this.markDependents(i, l.off, raceId);
      }
    }
  }

  unlink(raceId: string, l: RaceLinks): void {
    const plan = linkPlan(l);
    const keys = plan.keys;
    const idx = resolvedIndexes(this.state, plan);
    if (l.kind === 'pending') {
      for (const r of l.runners) {
        if (this.horse(r.horseId).pending.delete(raceId)) this.state.touchHorse(r.horseId);
      }
      for (let p = 0; p < keys.length; p++) this.idx(idx, p).deletePending(raceId);
      return;
    }
    const earlier = l.earlier.length > 0;
    for (const r of l.runners) {
      const h = this.horse(r.horseId);
      // its runs of the race: the latest version's, and those of superseded versions
      const removed = h.runs.some((x) => x.raceId === raceId);
      if (removed) {
        h.runs = h.runs.filter((x) => x.raceId !== raceId);
        this.state.touchHorse(r.horseId);
      }
      if (started(r) || removed) this.markHorseDependents(h, l.off, raceId);
      if (!started(r) && h.pending.delete(raceId)) this.state.touchHorse(r.horseId);
    }
    const events = eventKeys(plan, raceId);
    for (let p = 0; p < keys.length; p++) {
      const k = plan.kinds[p]!;
      const key = keys[p]!;
      const r = runnerAt(plan, p);
      const held = earlier ? this.idx(idx, p) : undefined;
      if (held?.removeSuperseded(events[p]!)) {
        this.markDependents(held, l.off, raceId);
        if (k.per === 'race') {
          for (const e of l.earlier) {
            this.onRaceEvent(key, e.visibleAt);
            this.onRaceEvent(key, e.until);
          }
        }
      }
      if (r !== null && !started(r)) {
        this.idx(idx, p).deletePending(raceId);
        continue;
      }
      const i = this.idx(idx, p);
      i.remove(events[p]!, l.off);
      if (k.per === 'race') this.onRaceEvent(key, l.visibleAt);
      this.markDependents(i, l.off, raceId);
    }
  }

  private horse(id: string): HorseRecord {
    return this.state.peekHorse(id)!;
  }

  /** The index at position p of a plan, resolved by EngineResidency.ready, marked as changed. */
  private idx(resolved: (ChunkedIndex | undefined)[], p: number): ChunkedIndex {
    const i = resolved[p];
    if (!i) throw new Error('an entity index was not made resident before linking');
    this.state.touchIndex(i);
    return i;
  }

  private setHorsePending(horseId: string, raceId: string, off: number): void {
    const h = this.horse(horseId);
    if (h.pending.get(raceId) !== off) {
      h.pending.set(raceId, off);
      this.state.touchHorse(horseId);
    }
  }

  /** Races that may see a change of this entity at `off`: its pending or run races off later. */
  private markDependents(idx: ChunkedIndex, off: number, self: string): void {
    for (const [rid, o] of idx.pending) if (o > off && rid !== self) this.dirty.add(rid);
    const later = idx.keysOffAfter(off);
    for (let q = 0; q < later.length; q++) {
      const rid = raceIdOf(later[q]!);
      if (rid !== self) this.dirty.add(rid);
    }
  }

  private markHorseDependents(h: HorseRecord, off: number, self: string): void {
    for (const [rid, o] of h.pending) if (o > off && rid !== self) this.dirty.add(rid);
    const runs = h.runs;
    for (let i = runs.length - 1; i >= 0 && runs[i]!.off > off; i--) {
      const rid = runs[i]!.raceId;
      if (rid !== self) this.dirty.add(rid);
    }
  }
}

/** The horse's run of a race, from the race's links and the runner's facts. */
function horseRun(raceId: string, l: RaceLinks, r: RunnerFacts): HorseRun {
  return {
    raceId,
    off: l.off,
    visibleAt: l.visibleAt,
    courseId: l.courseId,
    position: r.position!,
    figure: r.figure ?? null,
    distanceYards: l.distanceYards,
    officialRating: r.officialRating,
    weightLbs: r.weightLbs,
    raceClass: l.raceClass,
    ran: l.ran,
    beatenLengths: r.beatenLengths ?? null,
    startingPrice: r.startingPrice ?? null,
    favourite: r.favourite ?? false,
    deadHeat: r.deadHeat ?? 1,
    surface: l.surface,
    discipline: l.discipline,
    goingGroup: l.goingGroup,
    isHandicap: l.isHandicap,
    headgear: r.headgear,
    jockeyId: r.jockeyId,
    trainerId: r.trainerId,
    ownerId: r.ownerId,
    supersededAt: null,
  };
}

/**
 * Keeps a horse's runs sorted by (off, raceId, visibleAt); replaces a run of the same race and version
 * (the latest version's, or a superseded one's with the same visibleAt).
 */
function upsertRun(runs: HorseRun[], run: HorseRun): void {
  const superseded = run.supersededAt ?? null;
  const existing = runs.findIndex(
    (x) =>
      x.raceId === run.raceId &&
      (x.supersededAt ?? null) === superseded &&
      (superseded === null || x.visibleAt === run.visibleAt),
  );
  if (existing >= 0) runs.splice(existing, 1);
  let i = runs.length;
  while (i > 0 && after(runs[i - 1]!, run)) i--;
  runs.splice(i, 0, run);
}

function after(a: HorseRun, b: HorseRun): boolean {
  if (a.off !== b.off) return a.off > b.off;
  if (a.raceId !== b.raceId) return a.raceId > b.raceId;
  return a.visibleAt > b.visibleAt;
}
