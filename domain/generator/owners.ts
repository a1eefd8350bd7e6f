/**
 * Owners and broodmares. Owners sit in ranked slots per circuit with Zipf-like weights (a power law: a
 * few owners have hundreds of horses, most one or two); a new horse is bought by the owner in a slot
 * drawn by weight and keeps that owner until it is sold. A retiring owner's slot passes to a newcomer,
 * but the horses already bought stay with their owner. Dams: each broodmare has a target of 1-12
 * offspring in the horse population (foals that race); new horses draw their dam from the active mares
 * of their breeding pool, and a mare that reaches her target leaves it (her slot takes a new mare the
 * next time it is drawn), a new mare's sire (the dam sire) coming from the sire population. Slots are
 * filled when first drawn, so a short run makes only the owners and mares it uses. Everything here
 * draws from the attribute stream.
 */
import { makeId } from '../ids.js';
import { bredSuffix, horseName, ownerName } from './names.js';
import { CIRCUITS, type Circuit, NameBook, type People, type Sire } from './people.js';
import { type Rng, WeightedTable } from './prng.js';

export interface Owner {
  readonly id: string;
  readonly name: string;
  readonly retireYear: number;
}

/** Owner slots per circuit at full scale (GB, IRE, FR, UAE, USA, AUS, HK, JPN). */
const OWNER_SLOTS = [8000, 5000, 1200, 150, 500, 600, 300, 300];
/** Zipf exponent of the slot weights: weight of rank k is k^-s. */
const OWNER_ZIPF = 0.6;

export class Owners {
  /** Owners by slot; a slot is filled the first time it is drawn (most quiet slots buy rarely). */
  private readonly slots: (Owner | undefined)[][] = [];
  private readonly tables: WeightedTable[] = [];
  private readonly names = new NameBook();
  private readonly startYear: number;

  constructor(
    private readonly rng: Rng,
    private readonly seed: number,
    scale: number,
    private year: number,
  ) {
    this.startYear = year;
    for (let c = 0; c < CIRCUITS.length; c++) {
      const n = Math.max(20, Math.round(OWNER_SLOTS[c]! * scale));
      this.tables.push(new WeightedTable(Array.from({ length: n }, (_, k) => (k + 1) ** -OWNER_ZIPF)));
      this.slots.push(new Array<Owner | undefined>(n).fill(undefined));
    }
  }

  private newOwner(year: number, rank: number, initial: boolean): Owner {
    const rng = this.rng;
    const name = this.names.take(rng, ownerName);
    // The big owners (studs, sheikhs, syndicates of syndicates) stay longest.
    const career = rank < 0.01 ? rng.int(20, 40) : rng.int(3, 25);
    return {
      id: makeId('owner', `gen:owner:s${this.seed}:${name}`),
      name,
      retireYear: year + (initial ? rng.int(0, career) : career),
    };
  }

  /** The buyer of a horse trained in a circuit. */
  draw(circuit: Circuit): Owner {
    const slots = this.slots[circuit]!;
    const k = this.tables[circuit]!.draw(this.rng);
    // Owners met in the first year were in racing before it: they are part-way through their time.
    return (slots[k] ??= this.newOwner(this.year, k / slots.length, this.year === this.startYear));
  }

  /** Yearly turnover: a retiring owner's slot passes to a newcomer (made when the slot is next drawn). */
  newYear(year: number): void {
    this.year = year;
    for (const slots of this.slots) {
      for (let k = 0; k < slots.length; k++)
        if (slots[k] !== undefined && slots[k]!.retireYear < year) slots[k] = undefined;
    }
  }
}

export interface Dam {
  readonly id: string;
  readonly name: string;
  readonly sire: Sire;
  readonly target: number;
  foals: number;
  /** foaling years of her offspring so far (a mare has one foal a year) */
  readonly years: number[];
  idx: number;
}

/** Weights of a mare's number of racing offspring, 1..12 (mean about 3.9). */
const FOAL_WEIGHTS = [22, 18, 15, 12, 9, 7, 5, 4, 3, 2, 2, 1];
/** Active mares per breeding pool (0 European flat, 1 other flat, 2 jumps) at full scale: about a year's new horses, so a mare has about one runner a year. */
const ACTIVE_MARES = [9000, 2500, 4500];

export class Dams {
  /** Active mares by slot; a slot is filled when it is first drawn, and emptied when its mare is done. */
  private readonly active: (Dam | undefined)[][] = [];
  private readonly names = new NameBook();

  constructor(
    private readonly rng: Rng,
    private readonly people: People,
    private readonly seed: number,
    scale: number,
  ) {
    for (const n of ACTIVE_MARES) {
      this.active.push(new Array<Dam | undefined>(Math.max(30, Math.round(n * scale))).fill(undefined));
    }
  }

  /** A new mare; `avoid` is a sire she must not be by (her first foal's sire). */
  private newDam(pool: number, country: string, idx: number, avoid: Sire | null = null): Dam {
    const rng = this.rng;
    const name = this.names.take(rng, (r) => horseName(r) + bredSuffix(r, pool === 1 ? 'USA' : country));
    let sire = this.people.drawDamSire(pool, rng);
    for (let i = 0; i < 8 && sire === avoid; i++) sire = this.people.drawDamSire(pool, rng);
    return {
      id: makeId('dam', `gen:dam:s${this.seed}:${name}`),
      name,
      sire,
      target: 1 + rng.weighted(FOAL_WEIGHTS),
      foals: 0,
      years: [],
      idx,
    };
  }

  /**
   * The dam of a new horse of a breeding pool, foaled in `foaled`: an active mare with no other foal
   * that year and not by the horse's own sire (close inbreeding). When a few tries find none, a new mare
   * takes the last one's place. The mare's count goes up; at her target she leaves the pool and a new
   * mare takes her place.
   */
  draw(pool: number, circuit: Circuit, sire: Sire | null, foaled: number): Dam {
    const mares = this.active[pool]!;
    const country = CIRCUITS[circuit]!;
    const pick = (): Dam => {
      const idx = Math.floor(this.rng.next() * mares.length);
      return (mares[idx] ??= this.newDam(pool, country, idx, sire));
    };
    let d = pick();
    for (let i = 0; i < 4 && (d.sire === sire || d.years.includes(foaled)); i++) d = pick();
    if (d.sire === sire || d.years.includes(foaled)) {
      d = this.newDam(pool, country, d.idx, sire);
      mares[d.idx] = d;
    }
    d.foals++;
    d.years.push(foaled);
    if (d.foals >= d.target) mares[d.idx] = undefined;
    return d;
  }
}
