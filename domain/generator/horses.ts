/**
 * The horse population: careers, latent ability and the pools races draw their fields from. Horses
 * sit in pools by circuit, code (flat or jumps) and level (1..7, the class they are good enough for).
 * Pools hold only horses ready to run: after a run a horse rests on a day wheel and rejoins its pool
 * the day it is ready. A race samples its field from the pools around its level, taking horses of the
 * right age and stage and suited by the trip; when too few are ready, new horses are foaled into the
 * sport (debutants) to fill it, so the population sizes itself to the fixture list.
 */
import { makeId } from '../ids.js';
import {
  attributesAfterRun,
  type Attributes,
  attributesGoingJumping,
  type HorseAttributes,
  newAttributes,
} from './attributes.js';
import { bredSuffix, horseName } from './names.js';
import { CIRCUITS, type Circuit, type Code, FLAT, JUMPS, type People, type Sire } from './people.js';
import type { Rng } from './prng.js';

export const LEVELS = 7;
const GROUPS = 3;
const BANDS = 4;

/** Trip band of a distance (ln yards): flat sprint/mile/middle/staying; jumps up to 2m3f, 3m, beyond. */
function bandOf(code: Code, lnYards: number): number {
  const y = Math.exp(lnYards);
  if (code === FLAT) return y < 1450 ? 0 : y < 2000 ? 1 : y < 2750 ? 2 : 3;
  return y < 4100 ? 0 : y < 5000 ? 1 : 2;
}

export type Stage = 0 | 1 | 2; // jumps: 0 bumper, 1 hurdler, 2 chaser

/** A horse in training; its sex, headgear, owner and dam are the HorseAttributes (attributes.ts). */
export interface Horse extends HorseAttributes {
  readonly id: string;
  readonly name: string;
  readonly foaled: number;
  readonly circuit: Circuit;
  code: Code;
  readonly sire: Sire | null;
  trainerSlot: number;
  /** Peak merit in lbs on the code's rating scale (flat about 40-120, jumps about 70-170). */
  talent: number;
  /** Slow random walk of well-being, lbs. */
  form: number;
  tripLog: number;
  /** Trip band (pool key), from tripLog. */
  band: number;
  readonly goingPref: number;
  readonly awPref: number;
  /** Jumping frailty multiplier on fall and unseat risk. */
  readonly frailty: number;
  readonly maxAge: number;
  readonly warm: boolean;
  runs: number;
  codeRuns: number;
  codeWins: number;
  bumperRuns: number;
  hurdleRuns: number;
  chaseRuns: number;
  stage: Stage;
  readonly willChase: boolean;
  careerTarget: number;
  lastRunDay: number;
  nextReady: number;
  readonly createdDay: number;
  rating: number;
  level: number;
  pool: number;
  idx: number;
}

/** Merit change with age, lbs, per code. */
const FLAT_AGE = [-30, -30, -12, -4, 0, 0, -1, -3, -5, -8, -11, -14];
const JUMPS_AGE = [-30, -30, -30, -30, -12, -6, -2, 0, 0, 0, -2, -5, -9, -13, -17, -20];

export function ageCurve(code: Code, age: number): number {
  const t = code === FLAT ? FLAT_AGE : JUMPS_AGE;
  return t[Math.min(age, t.length - 1)] ?? -30;
}

const FLAT_BANDS = [100, 90, 80, 70, 60, 50];
const JUMPS_BANDS = [140, 128, 116, 104, 92, 80];

/** Level 1..7 of a merit on a code's scale. */
export function levelOf(code: Code, merit: number): number {
  const bands = code === FLAT ? FLAT_BANDS : JUMPS_BANDS;
  for (let i = 0; i < bands.length; i++) if (merit >= bands[i]!) return i + 1;
  return LEVELS;
}

/** Centre of a level's merit band. */
export function levelCentre(code: Code, level: number): number {
  const bands = code === FLAT ? FLAT_BANDS : JUMPS_BANDS;
  const step = code === FLAT ? 10 : 12;
  return level <= 1 ? bands[0]! + step / 2 + 4 : (bands[level - 1] ?? bands[5]! - step) + step / 2;
}

export function merit(h: Horse, year: number): number {
  return h.talent + ageCurve(h.code, year - h.foaled) + h.form;
}

/** What a race asks of its runners. */
export interface Entry {
  circuit: Circuit;
  code: Code;
  level: number;
  day: number;
  year: number;
  minAge: number;
  maxAge: number;
  /** maiden: no win; novice: at most 1 win; handicap: rated; bumper: no hurdle or chase run; open */
  kind: 'maiden' | 'novice' | 'handicap' | 'bumper' | 'open';
  stage: Stage | -1;
  yards: number;
  /** ln(yards), cached for the trip check. */
  lnYards: number;
}

export interface Creation {
  warm: boolean;
}

export class Horses {
  private readonly pools: Horse[][] = [];
  private readonly namesByYear = new Map<number, Set<string>>();
  /** Resting horses by the day they are ready again. */
  private readonly wheel = new Map<number, Horse[]>();
  private resting = 0;
  created = 0;
  warmCreated = 0;

  constructor(
    private readonly rng: Rng,
    private readonly people: People,
    private readonly seed: number,
    private readonly attrs: Attributes,
  ) {
    for (let i = 0; i < CIRCUITS.length * 2 * GROUPS * LEVELS * BANDS; i++) this.pools.push([]);
  }

  /** Horses in training: ready in the pools or resting. */
  get size(): number {
    let n = this.resting;
    for (const p of this.pools) n += p.length;
    return n;
  }

  /** Puts a horse out to rest until `h.nextReady`. */
  private rest(h: Horse): void {
    const list = this.wheel.get(h.nextReady);
    if (list) list.push(h);
    else this.wheel.set(h.nextReady, [h]);
    this.resting++;
  }

  /** Start of a day: horses whose rest ends today rejoin their pools (re-levelled for age and form). */
  wake(day: number, year: number): void {
    const list = this.wheel.get(day);
    if (!list) return;
    this.wheel.delete(day);
    this.resting -= list.length;
    for (const h of list) {
      h.level = levelOf(h.code, merit(h, year));
      this.add(h, year);
    }
  }

  /**
   * Pools split by circuit, code, group, level and trip band. Flat groups: 0 two-year-olds, 1 older and lightly
   * raced (novice material), 2 older and exposed; jumps groups: the stage (0 bumper, 1 hurdler, 2
   * chaser). Races look only where their runners can be.
   */
  private poolIndex(circuit: Circuit, code: Code, group: number, level: number, band: number): number {
    return (((circuit * 2 + code) * GROUPS + group) * LEVELS + (level - 1)) * BANDS + band;
  }

  private groupOf(h: Horse, year: number): number {
    if (h.code === JUMPS) return h.stage;
    if (year - h.foaled <= 2) return 0;
    return h.codeRuns < 6 && h.codeWins <= 1 ? 1 : 2;
  }

  /** The group a race looks in for one runner (r uniform in [0, 1)). */
  private static groupFor(e: Entry, r: number): number {
    if (e.code === FLAT) {
      if (e.maxAge <= 2) return 0;
      if (e.kind === 'maiden' || e.kind === 'novice') return 1;
      return e.kind === 'handicap' ? (r < 0.1 ? 1 : 2) : r < 0.25 ? 1 : 2;
    }
    if (e.kind === 'bumper' || e.stage === 0) return 0;
    if (e.stage === 2) return 2;
    if (e.kind === 'maiden' || e.kind === 'novice') return r < 0.35 ? 0 : 1;
    return r < 0.06 ? 2 : r < 0.1 ? 0 : 1;
  }

  private add(h: Horse, year: number): void {
    h.pool = this.poolIndex(h.circuit, h.code, this.groupOf(h, year), h.level, h.band);
    const pool = this.pools[h.pool]!;
    h.idx = pool.length;
    pool.push(h);
  }

  private remove(h: Horse): void {
    const pool = this.pools[h.pool]!;
    const last = pool.pop()!;
    if (last !== h) {
      pool[h.idx] = last;
      last.idx = h.idx;
    }
    h.idx = -1;
  }

  private relevel(h: Horse, year: number): void {
    const lvl = levelOf(h.code, merit(h, year));
    if (lvl !== h.level || this.poolIndex(h.circuit, h.code, this.groupOf(h, year), lvl, h.band) !== h.pool) {
      this.remove(h);
      h.level = lvl;
      this.add(h, year);
    }
  }

  private uniqueName(rng: Rng, foaled: number, suffix: string): string {
    let names = this.namesByYear.get(foaled);
    if (!names) {
      names = new Set();
      this.namesByYear.set(foaled, names);
    }
    for (let i = 0; ; i++) {
      const name = horseName(rng) + (i > 30 ? ` ${['II', 'III', 'IV', 'V'][i % 4]}` : '') + suffix;
      if (!names.has(name)) {
        names.add(name);
        return name;
      }
    }
  }

  /** A new horse for an entry: a debutant, or (warm start / short fields) an already-rated horse. */
  create(e: Entry, warm: boolean): Horse {
    const rng = this.rng;
    const code = e.code;
    let age: number;
    if (code === FLAT) {
      if (e.maxAge === 2) age = 2;
      else if (!warm) age = Math.max(e.minAge, rng.chance(0.8) ? 3 : 4);
      else age = Math.max(e.minAge, Math.min(e.maxAge, 3 + Math.floor(rng.gamma(1.2) * 1.4)));
    } else if (e.kind === 'bumper' || !warm) {
      age = Math.max(e.minAge, 4 + (rng.chance(0.55) ? 0 : rng.chance(0.7) ? 1 : 2));
    } else {
      age = Math.max(e.minAge, Math.min(e.maxAge, 5 + Math.floor(rng.gamma(1.5) * 1.6)));
    }
    const foaled = e.year - age;
    const circuit = e.circuit;
    const sirePool = code === JUMPS ? 2 : circuit <= 3 ? 0 : 1;
    const sire = rng.chance(circuit <= 2 ? 0.02 : 0.08) ? null : this.people.drawSire(sirePool);
    const q = sire?.quality ?? 0;
    // A debutant's ability comes from the whole crop (maiden fields mix good and bad horses); a
    // warm-start horse is made for the race it fills.
    const talent = warm
      ? levelCentre(code, e.level) + 5 * rng.normal() + 0.6 * q - ageCurve(code, age)
      : (code === FLAT ? 70 + 15 * rng.normal() : 110 + 17 * rng.normal()) + 0.6 * q;
    const tripBase = code === FLAT ? (sire?.tripLog ?? Math.log(1760)) : Math.log(e.yards);
    const tripLog =
      code === FLAT ? 0.5 * tripBase + 0.5 * Math.log(e.yards) + 0.18 * rng.normal() : tripBase + 0.15 * rng.normal();
    const name = this.uniqueName(rng, foaled, bredSuffix(rng, CIRCUITS[circuit]!));
    const career = rng.chance(0.08) ? rng.int(1, 2) : Math.round(Math.exp(Math.log(16) + 0.8 * rng.normal()));
    const careerTarget = Math.max(1, Math.min(160, career));
    const attrs = newAttributes(this.attrs, { code, age, warm, careerTarget, circuit, sirePool, sire, foaled });
    const h: Horse = {
      id: makeId('horse', `gen:horse:s${this.seed}:${foaled}:${name}`),
      name,
      foaled,
      circuit,
      code,
      sire,
      dam: attrs.dam,
      owner: attrs.owner,
      birthSex: attrs.birthSex,
      geldDay: attrs.geldDay,
      headgear: attrs.headgear,
      headgearWorn: attrs.headgearWorn,
      lastHeadgear: attrs.lastHeadgear,
      fitAt: attrs.fitAt,
      trainerSlot: this.people.drawTrainerSlot(circuit, code),
      talent,
      form: 0,
      tripLog,
      band: bandOf(code, tripLog),
      goingPref: rng.normal(),
      awPref: rng.normal(),
      frailty: 0.5 + rng.gamma(2) / 2,
      maxAge: code === FLAT ? (rng.chance(0.6) ? rng.int(4, 6) : rng.int(7, 10)) : rng.int(9, 13),
      warm,
      runs: 0,
      codeRuns: 0,
      codeWins: 0,
      bumperRuns: 0,
      hurdleRuns: 0,
      chaseRuns: 0,
      stage: code === FLAT ? 0 : e.stage === 2 ? 2 : e.kind === 'bumper' ? 0 : 1,
      willChase: rng.chance(0.6),
      careerTarget,
      lastRunDay: -1e6,
      nextReady: e.day,
      createdDay: e.day,
      rating: 0,
      level: e.level,
      pool: -1,
      idx: -1,
    };
    if (warm) {
      h.codeRuns = 3 + Math.floor(rng.gamma(1.5) * 4);
      h.rating = this.assess(h, e.year);
      if (code === JUMPS) {
        h.hurdleRuns = h.codeRuns;
        if (h.stage === 2) h.chaseRuns = Math.floor(h.codeRuns / 2);
      }
    }
    h.level = levelOf(code, merit(h, e.year));
    this.created++;
    if (warm) this.warmCreated++;
    return h;
  }

  /** The handicapper's mark: merit seen through a few pounds of error. */
  private assess(h: Horse, year: number): number {
    const m = merit(h, year) + 3 * this.rng.normal();
    const [lo, hi] = h.code === FLAT ? [20, 135] : [60, 180];
    const fresh = Math.round(Math.min(hi, Math.max(lo, m)));
    return h.rating > 0 ? Math.round(0.6 * h.rating + 0.4 * fresh) : fresh;
  }

  private eligible(h: Horse, e: Entry, anyTrip: boolean): boolean {
    const age = e.year - h.foaled;
    if (age < e.minAge || age > e.maxAge) return false;
    switch (e.kind) {
      // Exposed horses move on to handicaps: entry races are for the lightly raced.
      case 'maiden':
        if (h.codeWins > 0 || h.codeRuns >= 5) return false;
        break;
      case 'novice':
        if (h.codeWins > 1 || h.codeRuns >= 6) return false;
        break;
      case 'handicap':
        if (h.rating === 0) return false;
        break;
      case 'bumper':
        if (h.hurdleRuns + h.chaseRuns > 0 || h.bumperRuns >= 4) return false;
        break;
      default:
        break;
    }
    if (e.code === JUMPS && e.stage === 2 && h.stage !== 2) return false;
    if (anyTrip) return true;
    const x = (e.lnYards - h.tripLog) * (e.code === FLAT ? 3.33 : 2.86);
    return this.rng.next() < Math.exp(-x * x) + 0.03;
  }

  /**
   * Up to `n` horses for an entry, drawn from the pools around its level (visitors from another
   * circuit with probability `visitShare`). Chosen horses are marked busy for the day.
   */
  select(e: Entry, n: number, visitors: readonly Circuit[], visitShare: number): Horse[] {
    const rng = this.rng;
    const out: Horse[] = [];
    const entryRace = e.kind === 'maiden' || e.kind === 'bumper' || e.kind === 'novice' || e.maxAge <= 2;
    const visiting = visitors.length > 0 && visitShare > 0;
    const raceBand = bandOf(e.code, e.lnYards);
    // Entry races give up sooner (debutants fill them); others get a second, wider pass (two
    // levels either side, any trip) to top up a field the first pass left short.
    let attempts = n * (entryRace ? 10 : 16);
    let relaxed = false;
    for (;;) {
      if (out.length >= n) break;
      if (attempts-- <= 0) {
        if (relaxed || entryRace) break;
        relaxed = true;
        attempts = n * 8;
      }
      const circuit = visiting && rng.next() < visitShare ? rng.pick(visitors) : e.circuit;
      const r = rng.next();
      const step = (entryRace || relaxed) && r < 0.18 ? 2 : 1;
      const level = Math.min(LEVELS, Math.max(1, r < 0.55 ? e.level : r < 0.775 ? e.level - step : e.level + step));
      const group = Horses.groupFor(e, rng.next());
      const rb = rng.next();
      const band = relaxed
        ? Math.floor(rb * (e.code === FLAT ? 4 : 3))
        : rb < 0.7
          ? raceBand
          : rb < 0.85
            ? Math.max(0, raceBand - 1)
            : Math.min(e.code === FLAT ? 3 : 2, raceBand + 1);
      const pool = this.pools[this.poolIndex(circuit, e.code, group, level, band)]!;
      if (pool.length === 0) continue;
      const h = pool[Math.floor(rng.next() * pool.length)]!;
      if (!this.eligible(h, e, relaxed)) continue;
      this.remove(h);
      out.push(h);
    }
    return out;
  }

  /** After a start: career counters, rest, the handicapper's mark, stage moves and retirement. */
  afterRun(h: Horse, day: number, year: number, discipline: string, won: boolean): void {
    const rng = this.rng;
    h.runs++;
    h.codeRuns++;
    if (won) h.codeWins++;
    if (discipline === 'nh-flat') h.bumperRuns++;
    else if (discipline === 'hurdle') h.hurdleRuns++;
    else if (discipline === 'chase') h.chaseRuns++;
    h.lastRunDay = day;
    h.nextReady = day + (h.code === FLAT ? 6 + Math.round(rng.gamma(2) * 8) : 10 + Math.round(rng.gamma(2) * 12));
    h.form = 0.85 * h.form + 1.6 * rng.normal();
    if (h.codeRuns >= 3 || won || h.rating > 0) h.rating = this.assess(h, year);
    attributesAfterRun(this.attrs, h, day);
    if (h.code === JUMPS) {
      if (h.stage === 0 && (h.bumperRuns >= 2 || rng.chance(0.4))) h.stage = 1;
      else if (h.stage === 1 && h.willChase && h.hurdleRuns >= 4 && year - h.foaled >= 5 && rng.chance(0.25))
        h.stage = 2;
    }
    if (h.runs >= h.careerTarget || year - h.foaled > h.maxAge) this.retire(h, day, year);
    else this.rest(h);
  }

  /** A withdrawn horse is ready again within days. */
  afterNonRunner(h: Horse, day: number): void {
    h.nextReady = day + 3 + Math.floor(this.rng.next() * 10);
    this.rest(h);
  }

  /** Leaves the sport, or (some young flat horses in Britain, Ireland, France) goes jumping. */
  private retire(h: Horse, day: number, year: number): void {
    if (h.idx >= 0) this.remove(h);
    const age = year - h.foaled;
    if (h.code === FLAT && h.circuit <= 2 && age >= 3 && age <= 6 && this.rng.chance(0.18)) {
      h.code = JUMPS;
      h.tripLog = Math.log(3700) + 0.15 * this.rng.normal() + 0.3 * (h.tripLog - Math.log(1760));
      h.band = bandOf(JUMPS, h.tripLog);
      h.talent = 0.55 * h.talent + 72 + 6 * this.rng.normal();
      h.rating = 0;
      h.codeRuns = 0;
      h.codeWins = 0;
      h.stage = 1;
      h.trainerSlot = this.people.drawTrainerSlot(h.circuit, JUMPS);
      attributesGoingJumping(this.attrs, h, day);
      h.careerTarget = h.runs + Math.max(1, Math.round(Math.exp(Math.log(9) + 0.7 * this.rng.normal())));
      h.nextReady = Math.max(day + 1, h.lastRunDay + 60 + Math.floor(this.rng.next() * 60));
      this.rest(h);
    }
  }

  /** New Year sweep: ageing re-levels everyone; the old and long idle retire; old name books go. */
  newYear(year: number, day: number): void {
    for (const pool of this.pools) {
      for (let i = pool.length - 1; i >= 0; i--) {
        const h = pool[i]!;
        if (year - h.foaled > h.maxAge || (day - h.lastRunDay > 450 && day - h.createdDay > 450))
          this.retire(h, day, year);
      }
    }
    for (const pool of this.pools) {
      for (let i = pool.length - 1; i >= 0; i--) {
        const h = pool[i];
        if (h) this.relevel(h, year);
      }
    }
    for (const y of this.namesByYear.keys()) if (y < year - 16) this.namesByYear.delete(y);
  }
}
