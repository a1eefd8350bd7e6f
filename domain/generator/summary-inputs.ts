/**
 * The summary of the catalogue's new inputs (catalogue.md "New inputs"): sex, headgear (and first-time
 * headgear), claims, owners, dams and dam sires, handicaps and black type. Fed race by race (the final
 * card and the result) by generationSummary; per-entity counters only.
 */
import type { RaceCard, RaceResult } from '../avro-types.generated.js';

export interface Dist {
  count: number;
  mean: number;
  median: number;
  p90: number;
  max: number;
}

export const round = (x: number, dp: number) => Math.round(x * 10 ** dp) / 10 ** dp;

export function dist(values: number[]): Dist {
  if (values.length === 0) return { count: 0, mean: 0, median: 0, p90: 0, max: 0 };
  const v = [...values].sort((a, b) => a - b);
  const at = (q: number) => v[Math.min(v.length - 1, Math.floor(q * v.length))]!;
  return {
    count: v.length,
    mean: round(v.reduce((a, b) => a + b, 0) / v.length, 2),
    median: at(0.5),
    p90: at(0.9),
    max: v[v.length - 1]!,
  };
}

export interface InputsSummary {
  /** Share of starters by sex (`unknown` for ''), flat races and jumps races (hurdles, chases, bumpers). */
  sex: { flat: Record<string, number>; jumps: Record<string, number> };
  headgear: {
    /** share of starters wearing headgear */
    rate: number;
    /** share of starters wearing headgear with no earlier run in headgear in this feed */
    firstTimeRate: number;
    /**
     * the same over the runs from a year after the feed's first race (null for a shorter feed): in the
     * first year, horses made already raced first appear without their history, so their headgear
     * counts as first time
     */
    firstTimeRateAfterFirstYear: number | null;
    /** the commonest combinations, share of starters */
    top: { headgear: string; share: number }[];
  };
  /** share of starters whose rider claimed, and the claims' lbs (share of claiming rides) */
  claims: { rate: number; byLbs: Record<string, number> };
  owners: {
    distinct: number;
    /** distinct horses run per owner */
    horsesPerOwner: Dist;
    top: { owner: string; horses: number; runs: number }[];
    /** share of horses that ran for more than one owner */
    changedOwnerShare: number;
    unknownRate: number;
  };
  dams: {
    distinct: number;
    /** distinct horses run per dam */
    offspringPerDam: Dist;
    /** share of dams with 1, 2, ... offspring (keys 1..12 and more) */
    offspringShare: Record<string, number>;
    distinctDamSires: number;
    /** dam sires that are also sires of runners in the feed (one id space) */
    damSiresAlsoSires: number;
    unknownRate: number;
  };
  /** share of races that are handicaps, GB and IRE races, flat and jumps */
  handicapShare: { flat: number; jumps: number };
  /** races by pattern value */
  patterns: Record<string, number>;
}

interface PerOwner {
  name: string;
  horses: number;
  runs: number;
}

export class InputsAccumulator {
  private starters = 0;
  private readonly sex = { flat: new Map<string, number>(), jumps: new Map<string, number>() };
  private readonly sexTotal = { flat: 0, jumps: 0 };
  private headgear = 0;
  private firstTime = 0;
  private lateRuns = 0;
  private lateFirstTime = 0;
  private firstOff = Number.NaN;
  private readonly worn = new Set<string>();
  private readonly combos = new Map<string, number>();
  private claims = 0;
  private readonly claimLbs = new Map<number, number>();
  private readonly owners = new Map<string, PerOwner>();
  private readonly ownerOf = new Map<string, string>();
  private readonly changedOwner = new Set<string>();
  private unknownOwner = 0;
  private readonly dams = new Map<string, number>();
  private readonly seenHorse = new Set<string>();
  private readonly damSires = new Set<string>();
  private readonly sires = new Set<string>();
  private unknownDam = 0;
  private readonly handicaps = { flat: [0, 0], jumps: [0, 0] };
  private readonly patterns = new Map<string, number>();

  /** One run race: its final card and result; `region` is the course's. */
  add(card: RaceCard, result: RaceResult, region: string): void {
    if (Number.isNaN(this.firstOff)) this.firstOff = card.offTime;
    const late = card.offTime >= this.firstOff + 365 * 86_400_000;
    const code = card.discipline === 'flat' ? 'flat' : 'jumps';
    if (region === 'GB' || region === 'IRE') {
      this.handicaps[code][1]!++;
      if (card.isHandicap) this.handicaps[code][0]!++;
    }
    this.patterns.set(card.pattern, (this.patterns.get(card.pattern) ?? 0) + 1);
    const byHorse = new Map(card.runners.map((x) => [x.horseId, x]));
    for (const rr of result.runners) {
      const r = byHorse.get(rr.horseId);
      if (!r) continue;
      this.starters++;
      const sexMap = this.sex[code];
      sexMap.set(r.sex || 'unknown', (sexMap.get(r.sex || 'unknown') ?? 0) + 1);
      this.sexTotal[code]++;
      if (late) this.lateRuns++;
      if (r.headgear !== '') {
        this.headgear++;
        this.combos.set(r.headgear, (this.combos.get(r.headgear) ?? 0) + 1);
        if (!this.worn.has(r.horseId)) {
          this.worn.add(r.horseId);
          this.firstTime++;
          if (late) this.lateFirstTime++;
        }
      }
      if (r.jockeyClaimLbs > 0) {
        this.claims++;
        this.claimLbs.set(r.jockeyClaimLbs, (this.claimLbs.get(r.jockeyClaimLbs) ?? 0) + 1);
      }
      this.addOwner(r.horseId, r.ownerId, r.ownerName);
      const first = !this.seenHorse.has(r.horseId);
      if (first) this.seenHorse.add(r.horseId);
      if (r.sireId !== null) this.sires.add(r.sireId);
      if (r.damId === '') this.unknownDam++;
      else if (first) this.dams.set(r.damId, (this.dams.get(r.damId) ?? 0) + 1);
      if (r.damSireId !== '') this.damSires.add(r.damSireId);
    }
  }

  private addOwner(horseId: string, ownerId: string, ownerName: string): void {
    if (ownerId === '') {
      this.unknownOwner++;
      return;
    }
    let o = this.owners.get(ownerId);
    if (!o) {
      o = { name: ownerName, horses: 0, runs: 0 };
      this.owners.set(ownerId, o);
    }
    o.runs++;
    const before = this.ownerOf.get(horseId);
    if (before !== ownerId) {
      // A horse counts once per owner it ran for (a horse sold back counts again: rare).
      o.horses++;
      if (before !== undefined) this.changedOwner.add(horseId);
      this.ownerOf.set(horseId, ownerId);
    }
  }

  summary(): InputsSummary {
    const share = (n: number, d: number, dp = 4) => (d > 0 ? round(n / d, dp) : 0);
    const shares = (m: Map<string, number>, total: number) =>
      Object.fromEntries([...m.entries()].sort((a, b) => b[1] - a[1]).map(([k, v]) => [k, share(v, total)]));
    const owners = [...this.owners.values()];
    const damCounts = [...this.dams.values()];
    const offspringShare: Record<string, number> = {};
    for (const c of damCounts) {
      const k = c > 12 ? 'more' : String(c);
      offspringShare[k] = (offspringShare[k] ?? 0) + 1;
    }
    for (const k of Object.keys(offspringShare)) offspringShare[k] = share(offspringShare[k]!, damCounts.length);
    let alsoSires = 0;
    for (const d of this.damSires) if (this.sires.has(d)) alsoSires++;
    const [hf, nf] = this.handicaps.flat;
    const [hj, nj] = this.handicaps.jumps;
    return {
      sex: { flat: shares(this.sex.flat, this.sexTotal.flat), jumps: shares(this.sex.jumps, this.sexTotal.jumps) },
      headgear: {
        rate: share(this.headgear, this.starters),
        firstTimeRate: share(this.firstTime, this.starters),
        firstTimeRateAfterFirstYear: this.lateRuns > 0 ? share(this.lateFirstTime, this.lateRuns) : null,
        top: [...this.combos.entries()]
          .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
          .slice(0, 6)
          .map(([headgear, n]) => ({ headgear, share: share(n, this.starters) })),
      },
      claims: {
        rate: share(this.claims, this.starters),
        byLbs: Object.fromEntries(
          [...this.claimLbs.entries()].sort((a, b) => a[0] - b[0]).map(([k, v]) => [String(k), share(v, this.claims)]),
        ),
      },
      owners: {
        distinct: owners.length,
        horsesPerOwner: dist(owners.map((o) => o.horses)),
        top: owners
          .sort((a, b) => b.horses - a.horses || b.runs - a.runs)
          .slice(0, 5)
          .map((o) => ({ owner: o.name, horses: o.horses, runs: o.runs })),
        changedOwnerShare: share(this.changedOwner.size, this.ownerOf.size),
        unknownRate: share(this.unknownOwner, this.starters),
      },
      dams: {
        distinct: damCounts.length,
        offspringPerDam: dist(damCounts),
        offspringShare,
        distinctDamSires: this.damSires.size,
        damSiresAlsoSires: alsoSires,
        unknownRate: share(this.unknownDam, this.starters),
      },
      handicapShare: { flat: share(hf!, nf!), jumps: share(hj!, nj!) },
      patterns: Object.fromEntries([...this.patterns.entries()].sort((a, b) => b[1] - a[1])),
    };
  }
}

/** The new inputs as report lines (for formatGenerationSummary). */
export function formatInputs(s: InputsSummary): string[] {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  const list = (r: Record<string, number>) =>
    Object.entries(r)
      .map(([k, v]) => `${k} ${pct(v)}`)
      .join(', ');
  const h = s.headgear;
  const o = s.owners;
  const d = s.dams;
  return [
    `sex, flat runners: ${list(s.sex.flat)}; jumps runners: ${list(s.sex.jumps)}`,
    `headgear: ${pct(h.rate)} of runners; first time ${pct(h.firstTimeRate)}` +
      (h.firstTimeRateAfterFirstYear === null ? '' : ` (${pct(h.firstTimeRateAfterFirstYear)} after the first year)`) +
      `; top: ${h.top.map((x) => `${x.headgear} ${pct(x.share)}`).join(', ')}`,
    `claims: ${pct(s.claims.rate)} of rides; of those ${Object.entries(s.claims.byLbs)
      .map(([k, v]) => `${k} lb ${pct(v)}`)
      .join(', ')}`,
    `owners: ${o.distinct}; horses per owner median ${o.horsesPerOwner.median}, p90 ${o.horsesPerOwner.p90}, max ${o.horsesPerOwner.max}; ` +
      `${pct(o.changedOwnerShare)} of horses ran for two owners or more; top: ${o.top.map((x) => `${x.owner} ${x.horses}`).join(', ')}`,
    `dams: ${d.distinct}; offspring per dam mean ${d.offspringPerDam.mean}, median ${d.offspringPerDam.median}, p90 ${d.offspringPerDam.p90}, max ${d.offspringPerDam.max}; ` +
      `dam sires: ${d.distinctDamSires} (${d.damSiresAlsoSires} also sires of runners); unknown dam on ${pct(d.unknownRate)} of runs`,
    `handicaps (GB and IRE races): flat ${pct(s.handicapShare.flat)}, jumps ${pct(s.handicapShare.jumps)}; pattern: ${Object.entries(
      s.patterns,
    )
      .map(([k, v]) => `${k === '' ? 'unknown' : k} ${v}`)
      .join(', ')}`,
  ];
}
