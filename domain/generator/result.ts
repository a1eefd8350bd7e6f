/**
 * Running a race: finishing order from the latent performance of each starter, non-finishers over
 * jumps, dead heats, cumulative beaten lengths on the conventional scale, starting prices from a
 * market that sees the expected performances (with error) and bets to an overround, favourites, and
 * the winning time.
 */
import type { RaceResultRunner } from '../avro-types.generated.js';
import type { Rng } from './prng.js';

export interface Starter {
  readonly horseId: string;
  /** Expected performance, lbs (ability and today's factors, without luck). */
  readonly expected: number;
  /** Jumping frailty (multiplies fall and unseat risk). */
  readonly frailty: number;
}

export interface RaceOutcome {
  /** Result rows in finishing order, non-finishers last. */
  readonly runners: RaceResultRunner[];
  /** Finishing position per starter (same order as the input), 0 for a non-finisher. */
  readonly positions: number[];
  readonly deadHeat: boolean;
}

/** Fractional-odds ladder as decimal odds (1/50 .. 500/1): starting prices are returned on it. */
const LADDER: readonly number[] = [
  [1, 50],
  [1, 33],
  [1, 25],
  [1, 20],
  [1, 16],
  [1, 14],
  [1, 12],
  [1, 10],
  [1, 8],
  [1, 7],
  [1, 6],
  [1, 5],
  [2, 9],
  [1, 4],
  [2, 7],
  [3, 10],
  [1, 3],
  [4, 11],
  [2, 5],
  [4, 9],
  [1, 2],
  [8, 15],
  [4, 7],
  [8, 13],
  [4, 6],
  [8, 11],
  [4, 5],
  [5, 6],
  [10, 11],
  [1, 1],
  [11, 10],
  [6, 5],
  [5, 4],
  [11, 8],
  [6, 4],
  [13, 8],
  [7, 4],
  [15, 8],
  [2, 1],
  [85, 40],
  [9, 4],
  [5, 2],
  [11, 4],
  [3, 1],
  [10, 3],
  [7, 2],
  [4, 1],
  [9, 2],
  [5, 1],
  [11, 2],
  [6, 1],
  [13, 2],
  [7, 1],
  [15, 2],
  [8, 1],
  [17, 2],
  [9, 1],
  [10, 1],
  [11, 1],
  [12, 1],
  [14, 1],
  [16, 1],
  [18, 1],
  [20, 1],
  [22, 1],
  [25, 1],
  [28, 1],
  [33, 1],
  [40, 1],
  [50, 1],
  [66, 1],
  [80, 1],
  [100, 1],
  [125, 1],
  [150, 1],
  [200, 1],
  [250, 1],
  [300, 1],
  [500, 1],
].map(([n, d]) => Math.round((1 + n! / d!) * 100) / 100);

/** Nearest ladder price (by log distance) to a decimal price. */
export function toLadder(decimal: number): number {
  const x = Math.log(decimal);
  let lo = 0;
  let hi = LADDER.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (LADDER[mid]! < decimal) lo = mid + 1;
    else hi = mid;
  }
  const a = LADDER[Math.max(0, lo - 1)]!;
  const b = LADDER[lo]!;
  return Math.abs(Math.log(a) - x) <= Math.abs(Math.log(b) - x) ? a : b;
}

/** Margins the judge calls, in lengths: nose, short head, head, neck, then quarters, halves, wholes. */
const MARGINS = [
  0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1, 1.25, 1.5, 1.75, 2, 2.25, 2.5, 2.75, 3, 3.25, 3.5, 3.75, 4, 4.5, 5, 5.5, 6, 6.5, 7,
  7.5, 8, 8.5, 9, 9.5, 10,
];

export function judgeMargin(lengths: number): number {
  if (lengths > 10) return Math.min(99, Math.round(lengths));
  for (const m of MARGINS) if (lengths <= m * 1.15) return m;
  return 10;
}

/** Pounds per length at a distance (as in features.md's run figure). */
export function lbsPerLength(yards: number): number {
  return Math.min(3, Math.max(0.5, 3300 / yards));
}

const NF = {
  chase: {
    rate: 0.06,
    statuses: ['fell', 'unseated', 'refused', 'brought-down', 'ran-out', 'slipped-up', 'carried-out'],
    w: [0.48, 0.38, 0.05, 0.04, 0.03, 0.01, 0.01],
    pu: 0.085,
  },
  hurdle: {
    rate: 0.02,
    statuses: ['fell', 'unseated', 'brought-down', 'ran-out', 'refused', 'slipped-up'],
    w: [0.5, 0.3, 0.08, 0.06, 0.03, 0.03],
    pu: 0.07,
  },
  'nh-flat': { rate: 0.002, statuses: ['ran-out', 'unseated'], w: [0.5, 0.5], pu: 0.012 },
  flat: { rate: 0.0007, statuses: ['unseated'], w: [1], pu: 0.002 },
} as const;

/** Luck: the standard deviation of performance around expectation, lbs, per discipline. */
export const NOISE_SD: Record<string, number> = { flat: 9, hurdle: 10.5, chase: 11.5, 'nh-flat': 10 };

export function runRace(rng: Rng, starters: readonly Starter[], discipline: string, yards: number): RaceOutcome {
  const n = starters.length;
  const sd = NOISE_SD[discipline] ?? 8;
  const perf = starters.map((s) => s.expected + sd * rng.normal());
  const nf = NF[discipline as keyof typeof NF] ?? NF.flat;

  // Non-finishers: incidents strike anyone; pulling up strikes those going worst.
  const status: string[] = new Array(n).fill('finished');
  const order = perf.map((_, i) => i).sort((a, b) => perf[b]! - perf[a]! || a - b);
  for (let r = 0; r < n; r++) {
    const i = order[r]!;
    if (rng.chance(nf.rate * starters[i]!.frailty)) status[i] = nf.statuses[rng.weighted(nf.w)]!;
    else {
      const fromBottom = n > 1 ? r / (n - 1) : 0;
      if (rng.chance(nf.pu * 3 * fromBottom * fromBottom)) status[i] = 'pulled-up';
    }
  }
  if (status.every((s) => s !== 'finished')) status[order[0]!] = 'finished';

  const finishers = order.filter((i) => status[i] === 'finished');
  const positions: number[] = new Array(n).fill(0);
  const beaten: number[] = new Array(n).fill(0);
  const perLength = lbsPerLength(yards);
  // Finishes are closer than raw ability gaps (horses are ridden out only while it matters).
  const compress = discipline === 'flat' ? 0.6 : 0.8;
  const deadHeat = finishers.length >= 2 && rng.chance(0.005);
  const dhAt = deadHeat ? 1 + Math.floor(rng.next() * Math.min(4, finishers.length - 1)) : -1;
  let cumulative = 0; // hundredths of a length
  for (let k = 0; k < finishers.length; k++) {
    const i = finishers[k]!;
    if (k === 0) {
      positions[i] = 1;
      continue;
    }
    const prev = finishers[k - 1]!;
    if (k === dhAt) {
      positions[i] = positions[prev]!;
    } else {
      cumulative += Math.round(judgeMargin(((perf[prev]! - perf[i]!) / perLength) * compress) * 100);
      positions[i] = k + 1;
    }
    beaten[i] = cumulative / 100;
  }

  const sp = startingPrices(rng, starters, sd);
  let shortest = Number.POSITIVE_INFINITY;
  for (const p of sp) shortest = Math.min(shortest, p);
  const rows: RaceResultRunner[] = [];
  const row = (i: number): RaceResultRunner => ({
    horseId: starters[i]!.horseId,
    position: positions[i]!,
    status: status[i]!,
    beatenLengths: beaten[i]!,
    startingPrice: sp[i]!,
    favourite: sp[i] === shortest,
  });
  for (const i of finishers) rows.push(row(i));
  for (const i of order) if (status[i] !== 'finished') rows.push(row(i));
  return { runners: rows, positions, deadHeat };
}

/**
 * The market: each starter's chance from its expected performance seen with a few pounds of error
 * (softmax with the Gumbel scale matching the race's luck), a favourite-longshot bias, and an
 * overround that grows with the field.
 */
function startingPrices(rng: Rng, starters: readonly Starter[], sd: number): number[] {
  const beta = 0.78 * sd;
  const view = starters.map((s) => s.expected + 5 * rng.normal());
  let top = Number.NEGATIVE_INFINITY;
  for (const v of view) top = Math.max(top, v);
  const p = view.map((v) => Math.exp((v - top) / beta));
  const biased = p.map((x) => x ** 0.9);
  const sum = biased.reduce((a, b) => a + b, 0);
  const overround = Math.min(1.45, 1.08 + 0.018 * starters.length);
  return biased.map((x) => toLadder(Math.max(1.02, 1 / ((x / sum) * overround))));
}

/** Winning time in seconds for a distance, discipline and going slowdown factor. */
export function winningTime(rng: Rng, yards: number, discipline: string, slowdown: number): number {
  const k = yards / 1000;
  let speed: number;
  if (discipline === 'flat') speed = 18.9 - 0.65 * k;
  else if (discipline === 'chase') speed = 15.5 - 0.35 * k;
  else if (discipline === 'nh-flat') speed = 16.1 - 0.35 * k;
  else speed = 15.8 - 0.35 * k;
  const t = (yards / speed) * slowdown * (1 + 0.008 * rng.normal());
  return Math.round(t * 100) / 100;
}
