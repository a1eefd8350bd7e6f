/**
 * Jockeys, trainers and sires. Jockeys and trainers sit in ranked slots per circuit and code (flat or
 * jumps); a slot's weight fixes its share of rides or horses (a Zipf-like power law: a few jockeys ride
 * about 1,000 times a year, a long tail a handful). When a person retires a newcomer takes the slot, so
 * a trainer's horses pass to the successor, as when a yard changes hands. Sires have heavy-tailed
 * (Pareto) popularity and a career of crops, giving the power-law progeny counts.
 */
import { makeId } from '../ids.js';
import { personName, sireName } from './names.js';
import { type Rng, WeightedTable } from './prng.js';

export const FLAT = 0;
export const JUMPS = 1;
export type Code = typeof FLAT | typeof JUMPS;

/** Racing circuits: where a horse is trained and its jockeys and trainers come from. */
export const CIRCUITS = ['GB', 'IRE', 'FR', 'UAE', 'USA', 'AUS', 'HK', 'JPN'] as const;
export type Circuit = number;

export function circuitOf(country: string): Circuit {
  const i = (CIRCUITS as readonly string[]).indexOf(country);
  return Math.max(0, i);
}

export type ClaimKind = 'none' | 'apprentice' | 'conditional' | 'amateur';

export interface Jockey {
  readonly id: string;
  readonly name: string;
  readonly slot: number;
  readonly skill: number;
  readonly kind: ClaimKind;
  readonly retireYear: number;
  wins: number;
  rides: number;
  /** Last day ridden and the meeting, so a jockey rides at one meeting a day. */
  day: number;
  meeting: number;
}

export interface Trainer {
  readonly id: string;
  readonly name: string;
  readonly slot: number;
  readonly skill: number;
  readonly retireYear: number;
  /** Slot of the retained jockey, or -1. */
  readonly stableJockey: number;
}

export interface Sire {
  readonly id: string;
  readonly name: string;
  readonly quality: number;
  readonly weight: number;
  /** Usual best trip of the progeny, ln yards. */
  readonly tripLog: number;
  readonly lastCrop: number;
}

/** Slots (jockeys, trainers) per circuit and code at full scale. Index = circuit * 2 + code. */
const JOCKEY_SLOTS = [260, 220, 110, 150, 40, 30, 30, 0, 30, 0, 30, 0, 25, 0, 30, 0];
const TRAINER_SLOTS = [320, 380, 180, 260, 50, 40, 35, 0, 40, 0, 40, 0, 25, 0, 35, 0];

/**
 * Share of riders who claim an allowance (apprentices on the flat; conditionals and amateurs over
 * jumps), by the rank of the slot: the busiest slots are mostly professionals, the quiet ones often
 * young riders. Tuned for claims on about 10% of rides.
 */
const APPRENTICE_SHARE = {
  /** of the jockeys at the start of a run: base + by rank (0 busiest .. 1 quietest slot) */
  initialBase: 0.04,
  initialByRank: 0.45,
  /** of the newcomers taking a retiring jockey's slot */
  newBase: 0.15,
  newByRank: 0.6,
  /** a claiming rider's career is this fraction of a professional's (most young riders do not last) */
  career: 0.4,
} as const;

/** Inverse standard normal CDF (Acklam's rational approximation, |error| < 1.2e-9). */
function probit(p: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
  ];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const poly = (k: number[], x: number) => k.reduce((acc, v) => acc * x + v, 0);
  if (p < 0.02425) {
    const q = Math.sqrt(-2 * Math.log(p));
    return poly(c, q) / (poly(d, q) * q + 1);
  }
  if (p > 1 - 0.02425) return -probit(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (poly(a, r) * q) / (poly(b, r) * r + 1);
}

/**
 * Slot weights: lognormal by rank (sigma 1.2), capped at the `capZ` quantile. The cap is the
 * physical limit of one meeting a day: a plateau of top jockeys and yards near 1,000 rides or
 * runners a year, then a long tail of part-timers with a handful.
 */
function slotWeights(n: number, capZ: number): number[] {
  const cap = Math.exp(1.2 * capZ);
  return Array.from({ length: n }, (_, i) => Math.min(cap, Math.exp(1.2 * probit(1 - (i + 0.5) / n))));
}

/** Slots at a scale, never fewer than `min` (a race of 40 needs 40 different jockeys). */
function scaled(n: number, scale: number, min: number): number {
  return n === 0 ? 0 : Math.max(min, Math.round(n * scale));
}

/** Distinct names within a kind (jockeys, trainers, sires, owners, dams) over a whole run. */
export class NameBook {
  private readonly used = new Set<string>();
  take(rng: Rng, make: (rng: Rng) => string): string {
    for (let i = 0; ; i++) {
      const base = make(rng);
      const name = i < 20 ? base : `${base} ${i}`;
      if (!this.used.has(name)) {
        this.used.add(name);
        return name;
      }
    }
  }
}

interface SlotTable<T> {
  readonly people: T[];
  readonly table: WeightedTable;
}

export class People {
  private readonly jockeys: (SlotTable<Jockey> | null)[] = [];
  private readonly trainers: (SlotTable<Trainer> | null)[] = [];
  private readonly sires: { active: Sire[]; table: WeightedTable; size: number }[] = [];
  /** Recently retired sires per pool (the last few hundred), for dam sires: a broodmare's sire is often an older stallion. */
  private readonly retiredSires: { list: Sire[]; table: WeightedTable | null }[] = [];
  private readonly jockeyNames = new NameBook();
  private readonly trainerNames = new NameBook();
  private readonly sireNames = new NameBook();

  constructor(
    private readonly rng: Rng,
    private readonly seed: number,
    scale: number,
    year: number,
  ) {
    for (let i = 0; i < JOCKEY_SLOTS.length; i++) {
      const code = (i % 2) as Code;
      const nj = scaled(JOCKEY_SLOTS[i]!, scale, 40);
      const nt = scaled(TRAINER_SLOTS[i]!, scale, 8);
      if (nj === 0) {
        this.jockeys.push(null);
        this.trainers.push(null);
        continue;
      }
      const jw = slotWeights(nj, 2.2);
      const js = Array.from({ length: nj }, (_, slot) => this.newJockey(code, slot, nj, year, true));
      this.jockeys.push({ people: js, table: new WeightedTable(jw) });
      const tw = slotWeights(nt, 1.9);
      const ts = Array.from({ length: nt }, (_, slot) => this.newTrainer(slot, nt, nj, year, true));
      this.trainers.push({ people: ts, table: new WeightedTable(tw) });
    }
    // Sire pools: 0 flat (Europe and Dubai), 1 flat (rest of the world), 2 jumps.
    for (const size of [320, 220, 260]) {
      const n = Math.max(12, Math.round(size * Math.sqrt(scale)));
      const active = Array.from({ length: n }, () => this.newSire(year, true));
      this.sires.push({ active, table: new WeightedTable(active.map((s) => s.weight)), size: n });
      this.retiredSires.push({ list: [], table: null });
    }
  }

  private newJockey(code: Code, slot: number, n: number, year: number, initial: boolean): Jockey {
    const rng = this.rng;
    const rank = slot / n;
    const a = APPRENTICE_SHARE;
    const apprentice = rng.chance(initial ? a.initialBase + a.initialByRank * rank : a.newBase + a.newByRank * rank);
    const kind: ClaimKind = !apprentice
      ? 'none'
      : code === FLAT
        ? 'apprentice'
        : rng.chance(0.2)
          ? 'amateur'
          : 'conditional';
    const name = this.jockeyNames.take(rng, personName);
    const span = initial ? rng.int(1, 20) : rng.int(4, 24);
    const career = apprentice ? Math.max(1, Math.round(span * a.career)) : span;
    return {
      id: makeId('jockey', `gen:jockey:s${this.seed}:${name}`),
      name,
      slot,
      skill: 1.2 * (1 - 2 * rank) + 0.7 * rng.normal() - (apprentice ? 0.5 : 0),
      kind,
      retireYear: year + career,
      // Riders already claiming at the start: most still early in their claim (one draw, as before).
      wins: apprentice ? (initial ? Math.floor(61 * rng.next() ** 2) : 0) : 100,
      rides: 0,
      day: -1,
      meeting: -1,
    };
  }

  private newTrainer(slot: number, n: number, jockeySlots: number, year: number, initial: boolean): Trainer {
    const rng = this.rng;
    const rank = slot / n;
    const name = this.trainerNames.take(rng, personName);
    const retained = rank < 0.3 ? Math.min(jockeySlots - 1, Math.floor(rng.next() ** 2 * jockeySlots * 0.4)) : -1;
    return {
      id: makeId('trainer', `gen:trainer:s${this.seed}:${name}`),
      name,
      slot,
      skill: 1.2 * (1 - 2 * rank) + 0.8 * rng.normal(),
      retireYear: year + (initial ? rng.int(1, 30) : rng.int(8, 40)),
      stableJockey: retained,
    };
  }

  private newSire(year: number, initial: boolean): Sire {
    const rng = this.rng;
    // Pareto(alpha 1.2) popularity, capped: most stallions cover a few mares, a few cover hundreds.
    const weight = Math.min(25, (1 - rng.next()) ** (-1 / 1.2));
    const crops = Math.max(1, Math.round(2 + 3 * Math.log(weight) + rng.gamma(2) * 2));
    const name = this.sireNames.take(rng, sireName);
    return {
      id: makeId('sire', `gen:sire:s${this.seed}:${name}`),
      name,
      quality: 1.6 * (Math.log(weight) - 0.8) + 2 * rng.normal(),
      weight,
      tripLog: Math.log(1760) + 0.35 * rng.normal(),
      lastCrop: year + (initial ? rng.int(0, crops) : crops),
    };
  }

  /** Sire pool for a horse: 0 European flat, 1 other flat, 2 jumps. */
  drawSire(pool: number, rng: Rng = this.rng): Sire {
    const p = this.sires[pool]!;
    return p.active[p.table.draw(rng)]!;
  }

  /**
   * The sire of a new broodmare (a dam sire), by popularity: half the time an active stallion, half the
   * time one retired in the last years (when there is one). Same sires, same ids: a dam sire is a sire.
   */
  drawDamSire(pool: number, rng: Rng): Sire {
    const r = this.retiredSires[pool]!;
    if (r.table && rng.chance(0.5)) return r.list[r.table.draw(rng)]!;
    return this.drawSire(pool, rng);
  }

  /** Slot index of a trainer for a new horse of that circuit and code, by slot weight. */
  drawTrainerSlot(circuit: Circuit, code: Code): number {
    return this.trainerTable(circuit, code).table.draw(this.rng);
  }

  trainer(circuit: Circuit, code: Code, slot: number): Trainer {
    return this.trainerTable(circuit, code).people[slot]!;
  }

  private trainerTable(circuit: Circuit, code: Code): SlotTable<Trainer> {
    return this.trainers[circuit * 2 + code] ?? this.trainers[circuit * 2]!;
  }

  private jockeyTable(circuit: Circuit, code: Code): SlotTable<Jockey> {
    return this.jockeys[circuit * 2 + code] ?? this.jockeys[circuit * 2]!;
  }

  /**
   * A jockey for a ride: the trainer's retained jockey about a third of the time, otherwise by slot
   * weight. Never one already in this race, and one meeting a day where possible.
   */
  drawJockey(circuit: Circuit, code: Code, trainer: Trainer, day: number, meeting: number, taken: Set<Jockey>): Jockey {
    const t = this.jockeyTable(circuit, code);
    if (trainer.stableJockey >= 0 && this.rng.chance(0.35)) {
      const j = t.people[trainer.stableJockey % t.people.length]!;
      if (!taken.has(j) && (j.day !== day || j.meeting === meeting)) return j;
    }
    let fallback: Jockey | undefined;
    for (let i = 0; i < 12; i++) {
      const j = t.people[t.table.draw(this.rng)]!;
      if (taken.has(j)) continue;
      if (j.day !== day || j.meeting === meeting) return j;
      fallback ??= j;
    }
    if (fallback) return fallback;
    for (const j of t.people) if (!taken.has(j)) return j;
    return t.people[0]!;
  }

  /** Apprentice, conditional and amateur allowance in lbs (0 for a full professional). */
  static claim(j: Jockey): number {
    if (j.kind === 'none') return 0;
    if (j.kind === 'conditional' && j.wins < 5) return 10;
    const [a, b, c] = j.kind === 'apprentice' ? [20, 50, 95] : [20, 40, 75];
    return j.wins < a ? 7 : j.wins < b ? 5 : j.wins < c ? 3 : 0;
  }

  /** Yearly turnover: retiring jockeys, trainers and sires are replaced in their slots. */
  newYear(year: number): void {
    for (let i = 0; i < this.jockeys.length; i++) {
      const jt = this.jockeys[i];
      const tt = this.trainers[i];
      if (!jt || !tt) continue;
      const code = (i % 2) as Code;
      const nj = jt.people.length;
      for (let s = 0; s < nj; s++) {
        if (jt.people[s]!.retireYear < year) jt.people[s] = this.newJockey(code, s, nj, year, false);
      }
      for (let s = 0; s < tt.people.length; s++) {
        if (tt.people[s]!.retireYear < year) tt.people[s] = this.newTrainer(s, tt.people.length, nj, year, false);
      }
    }
    this.sires.forEach((p, i) => {
      const kept = p.active.filter((s) => s.lastCrop >= year);
      const retired = this.retiredSires[i]!;
      for (const s of p.active) if (s.lastCrop < year) retired.list.push(s);
      if (retired.list.length > 2 * p.size) retired.list.splice(0, retired.list.length - 2 * p.size);
      retired.table = retired.list.length > 0 ? new WeightedTable(retired.list.map((s) => s.weight)) : null;
      while (kept.length < p.size) kept.push(this.newSire(year, false));
      p.active = kept;
      p.table = new WeightedTable(kept.map((s) => s.weight));
    });
  }
}
