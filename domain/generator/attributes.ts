/**
 * A horse's sex and headgear. Sex is fixed at birth (female, male or rig) and a male may be gelded at
 * any point of his career; the published sex follows from that and the horse's age (c/f up to 3 years
 * old, h/m from 4, catalogue.md). Headgear is the trainer's choice for each run: a horse starts
 * without (a few wear a hood or a tongue strap on debut), may be fitted with it (the first time), and
 * from then on keeps, swaps, drops or refits items from run to run. Everything here draws from the
 * generator's attribute stream, so the racing itself is unchanged by it.
 */
import type { Sex } from '../codes.js';
import type { Dam, Dams, Owner, Owners } from './owners.js';
import { type Circuit, type Code, FLAT, type Sire } from './people.js';
import type { Rng } from './prng.js';

/** The attribute stream and the populations that only it draws from (owners, dams). */
export interface Attributes {
  readonly rng: Rng;
  readonly owners: Owners;
  readonly dams: Dams;
}

/** What a horse carries besides its racing: sex, headgear, owner, dam. */
export interface HorseAttributes extends SexTraits, HeadgearState {
  owner: Owner;
  /** null when the pedigree is unknown (as the sire) */
  readonly dam: Dam | null;
}

/** Per run, the chance a horse is sold (or claimed) to a new owner before its next run. */
export const SALE_PER_RUN = 0.012;
/** Chance a flat horse going jumping changes hands. */
export const SALE_FOR_JUMPS = 0.6;

/** The attributes of a new horse, computed once (only the headgear, gelding and owner change later). */
export function newAttributes(
  a: Attributes,
  h: {
    code: Code;
    age: number;
    warm: boolean;
    careerTarget: number;
    circuit: Circuit;
    sirePool: number;
    sire: Sire | null;
    foaled: number;
  },
): HorseAttributes {
  const dam = h.sire === null ? null : a.dams.draw(h.sirePool, h.circuit, h.sire, h.foaled);
  const owner = a.owners.draw(h.circuit);
  const sex = newSex(a.rng, h.code, h.age);
  const hg = newHeadgear(a.rng, h.warm, h.careerTarget);
  // Written out (no spread): every horse gets the same object shape, with its fields in-object.
  return {
    dam,
    owner,
    birthSex: sex.birthSex,
    geldDay: sex.geldDay,
    headgear: hg.headgear,
    headgearWorn: hg.headgearWorn,
    lastHeadgear: hg.lastHeadgear,
    fitAt: hg.fitAt,
  };
}

/** After a run (`h.runs` counts it): headgear for the next one, perhaps gelded, perhaps sold. */
export function attributesAfterRun(
  a: Attributes,
  h: HorseAttributes & { runs: number; code: Code; circuit: Circuit },
  day: number,
): void {
  nextHeadgear(a.rng, h, h.runs);
  if (h.birthSex === MALE && h.geldDay > day && h.code === FLAT && a.rng.chance(GELD_PER_RUN)) h.geldDay = day + 1;
  if (a.rng.chance(SALE_PER_RUN)) h.owner = a.owners.draw(h.circuit);
}

/** A flat horse going jumping: most entire males are gelded first, and many change hands. */
export function attributesGoingJumping(a: Attributes, h: HorseAttributes & { circuit: Circuit }, day: number): void {
  if (h.birthSex === MALE && h.geldDay > day && a.rng.chance(GELD_FOR_JUMPS)) h.geldDay = day + 1;
  if (a.rng.chance(SALE_FOR_JUMPS)) h.owner = a.owners.draw(h.circuit);
}

/** Sex at birth: 0 female, 1 male, 2 rig (a male with an undescended testicle; never gelded here). */
export type BirthSex = 0 | 1 | 2;
export const FEMALE = 0;
export const MALE = 1;
export const RIG = 2;

/** Never gelded: a day beyond any date (a small integer, so the field keeps one representation). */
export const ENTIRE = 1_000_000_000;

export interface SexTraits {
  readonly birthSex: BirthSex;
  /** The day from which a male is a gelding (ENTIRE when never; 0 when gelded before his first run). */
  geldDay: number;
}

/**
 * Sex of a new horse. Flat: 40% fillies; colts gelded before their first run 15% at two, 40% at three
 * and 65% at four or more (older flat horses coming in are mostly handicappers). Jumps: 11% mares;
 * 98.5% of the males are geldings. A rig in 250 males.
 */
export function newSex(rng: Rng, code: Code, age: number): SexTraits {
  const flat = code === FLAT;
  if (rng.chance(flat ? 0.4 : 0.11)) return { birthSex: FEMALE, geldDay: ENTIRE };
  if (rng.chance(0.004)) return { birthSex: RIG, geldDay: ENTIRE };
  const gelded = flat ? (age <= 2 ? 0.15 : age === 3 ? 0.4 : 0.65) : 0.985;
  return { birthSex: MALE, geldDay: rng.chance(gelded) ? 0 : ENTIRE };
}

/** Per run, the chance an entire flat male is gelded before his next run. */
export const GELD_PER_RUN = 0.06;
/** Chance an entire male is gelded when he leaves the flat to go jumping. */
export const GELD_FOR_JUMPS = 0.97;

/** The published sex of a horse on a day at an age. */
export function sexOn(t: SexTraits, day: number, age: number): Sex {
  if (t.birthSex === FEMALE) return age <= 3 ? 'f' : 'm';
  if (t.birthSex === RIG) return 'r';
  return day >= t.geldDay ? 'g' : age <= 3 ? 'c' : 'h';
}

/**
 * Canonical headgear combinations and their weights: the results files' 2021-22 and 2026 rows (first
 * time markers merged), about 57,000 runners with headgear. Tongue strap and cheekpieces lead.
 */
const COMBOS: readonly (readonly [string, number])[] = [
  ['t', 16484],
  ['p', 12273],
  ['b', 7507],
  ['pt', 5074],
  ['h', 4718],
  ['bt', 3586],
  ['v', 2817],
  ['ht', 2336],
  ['vt', 846],
  ['e', 183],
  ['hp', 134],
  ['te', 118],
  ['bh', 89],
  ['hte', 74],
  ['bht', 73],
  ['hpt', 68],
  ['he', 34],
  ['bte', 31],
  ['be', 28],
  ['bp', 13],
  ['vht', 11],
];
const COMBO_NAMES = COMBOS.map(([c]) => c);
const COMBO_WEIGHTS = COMBOS.map(([, w]) => w);
/** First fittings on debut: hoods and tongue straps (to settle a horse, or for its wind). */
const DEBUT_COMBOS = ['h', 't', 'ht', 'p'] as const;
const DEBUT_WEIGHTS = [5, 4, 1, 1];

export function drawHeadgear(rng: Rng): string {
  return COMBO_NAMES[rng.weighted(COMBO_WEIGHTS)]!;
}

export interface HeadgearState {
  /** What the horse wears in its next race (canonical; '' none). */
  headgear: string;
  /** Worn in a run already (so a fitting now is not the first time). */
  headgearWorn: boolean;
  /** The last combination worn, which a trainer often goes back to. */
  lastHeadgear: string;
  /** The run (1 = debut) at which a horse that has never worn headgear is first fitted; 0 never. */
  fitAt: number;
}

/**
 * Headgear rates; docs/generator.md gives the resulting shares. Whether and when a horse is first
 * fitted is decided once, when it is made: the horses with long careers ahead (the exposed handicappers)
 * are the ones that end up in blinkers, cheekpieces or a tongue strap, and early in their careers.
 */
export const HEADGEAR = {
  /** chance of ever being fitted: base + per run of the horse's career target, at most max */
  fitBase: 0.06,
  fitPerRun: 0.024,
  fitMax: 0.85,
  /** the first fitting comes within the first `fitWithin` runs (or the career target), early ones likelier */
  fitWithin: 10,
  /** a horse wearing headgear: it comes off, or is changed for another combination, before its next run */
  remove: 0.04,
  swap: 0.08,
  /** a horse that wore headgear before but not last time: refitted (half the time the last combination) */
  refit: 0.3,
  /** a horse made already raced (warm start): wearing, and having worn some before */
  warmWearing: 0.5,
  warmWorn: 0.6,
} as const;

/** When a horse that has not worn headgear will first be fitted (0: never), from its career target. */
function fitRun(rng: Rng, careerTarget: number, runsDone: number): number {
  const p = Math.min(HEADGEAR.fitMax, HEADGEAR.fitBase + HEADGEAR.fitPerRun * careerTarget);
  if (!rng.chance(p)) return 0;
  return runsDone + 1 + Math.floor(rng.next() ** 2 * Math.min(careerTarget, HEADGEAR.fitWithin));
}

/** Headgear of a new horse: a debutant may be fitted on debut or later; warm-start horses as the population wears it. */
export function newHeadgear(rng: Rng, warm: boolean, careerTarget: number): HeadgearState {
  if (warm) {
    const wearing = rng.chance(HEADGEAR.warmWearing);
    const hg = wearing ? drawHeadgear(rng) : '';
    const worn = wearing || rng.chance((HEADGEAR.warmWorn - HEADGEAR.warmWearing) / (1 - HEADGEAR.warmWearing));
    if (worn) return { headgear: hg, headgearWorn: worn, lastHeadgear: wearing ? hg : drawHeadgear(rng), fitAt: 0 };
    return { headgear: '', headgearWorn: false, lastHeadgear: '', fitAt: fitRun(rng, careerTarget, 1) };
  }
  const fitAt = fitRun(rng, careerTarget, 0);
  const hg = fitAt === 1 ? DEBUT_COMBOS[rng.weighted(DEBUT_WEIGHTS)]! : '';
  return { headgear: hg, headgearWorn: false, lastHeadgear: hg, fitAt };
}

/** After a run (`runs` counts it): the trainer's choice for the next one. */
export function nextHeadgear(rng: Rng, s: HeadgearState, runs: number): void {
  if (s.headgear !== '') {
    s.headgearWorn = true;
    s.lastHeadgear = s.headgear;
    const r = rng.next();
    if (r < HEADGEAR.remove) s.headgear = '';
    else if (r < HEADGEAR.remove + HEADGEAR.swap) {
      let next = drawHeadgear(rng);
      if (next === s.headgear) next = drawHeadgear(rng);
      s.headgear = next;
    }
    return;
  }
  if (s.headgearWorn) {
    if (rng.chance(HEADGEAR.refit)) s.headgear = rng.chance(0.5) ? s.lastHeadgear : drawHeadgear(rng);
    return;
  }
  if (s.fitAt === runs + 1) s.headgear = drawHeadgear(rng);
}
