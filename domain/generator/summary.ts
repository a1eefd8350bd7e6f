/**
 * What a feed contains: volumes per year and region, field sizes, the discipline mix, distinct
 * horses, jockeys, trainers and sires, the sire progeny distribution, favourites' strike rate, late
 * results. Computed from the events alone (so it works on any feed), in one pass, keeping only
 * per-entity counters.
 */
import type { RaceCard } from '../avro-types.generated.js';
import { type Dist, dist, formatInputs, InputsAccumulator, type InputsSummary, round } from './summary-inputs.js';
import type { FeedEvent } from './types.js';

export interface GenerationSummary {
  events: { course: number; card: number; result: number };
  races: number;
  racesByYear: Record<string, { total: number; GB: number; IRE: number; INT: number }>;
  racesByDiscipline: Record<string, number>;
  racesBySurface: Record<string, number>;
  gbClassMix: Record<string, number>;
  starters: number;
  declared: number;
  nonRunnerRate: number;
  cardVersionsPerRace: number;
  fieldSize: { mean: number; min: number; max: number; byDiscipline: Record<string, number> };
  jumpsNonFinisherRate: number;
  favouriteWinRate: number;
  deadHeatRaces: number;
  lateResults: number;
  enquiryStyleResults: number;
  distinct: { horses: number; jockeys: number; trainers: number; sires: number; courses: number };
  unknownSireRate: number;
  /** Share of starters with no official rating (0) on the card. */
  unratedRate: number;
  horseCareerRuns: Dist & { oneRunShare: number };
  sireProgeny: Dist & { top: { sire: string; horses: number; runs: number }[] };
  jockeyRidesLastYear: Dist & { year: string; top: { jockey: string; rides: number }[] };
  trainerRunnersLastYear: Dist & { year: string; top: { trainer: string; runners: number }[] };
  /** The catalogue's new inputs: sex, headgear, claims, owners, dams, handicaps, pattern. */
  inputs: InputsSummary;
}

export function generationSummary(events: Iterable<FeedEvent>): GenerationSummary {
  const counts = { course: 0, card: 0, result: 0 };
  const regionOfCourse = new Map<string, string>();
  const latest = new Map<string, RaceCard>();
  const meetingOffs = new Map<string, number[]>();
  const byYear: GenerationSummary['racesByYear'] = {};
  const byDisc: Record<string, number> = {};
  const bySurface: Record<string, number> = {};
  const gbClass: Record<string, number> = {};
  const fieldByDisc: Record<string, { n: number; sum: number }> = {};
  const horseRuns = new Map<string, number>();
  const sires = new Map<string, { name: string; horses: number; runs: number }>();
  const jockeys = new Map<string, Map<string, { name: string; n: number }>>();
  const trainers = new Map<string, Map<string, { name: string; n: number }>>();
  const allJockeys = new Set<string>();
  const allTrainers = new Set<string>();
  let races = 0;
  let starters = 0;
  let declared = 0;
  let jumpsStarters = 0;
  let jumpsNf = 0;
  let favRaces = 0;
  let favWins = 0;
  let deadHeats = 0;
  let late = 0;
  let slow = 0;
  let minField = Number.POSITIVE_INFINITY;
  let maxField = 0;
  let unknownSire = 0;
  let unrated = 0;
  const inputs = new InputsAccumulator();

  for (const e of events) {
    counts[e.kind]++;
    if (e.kind === 'course') {
      regionOfCourse.set(e.value.courseId, e.value.region);
      continue;
    }
    if (e.kind === 'card') {
      const c = e.value;
      latest.set(c.raceId, c);
      const key = `${c.courseId}|${c.meetingDate}`;
      const offs = meetingOffs.get(key) ?? [];
      if (!offs.includes(c.offTime)) offs.push(c.offTime);
      meetingOffs.set(key, offs);
      continue;
    }
    const r = e.value;
    const card = latest.get(r.raceId);
    if (!card) continue;
    latest.delete(r.raceId);
    races++;
    const year = card.meetingDate.slice(0, 4);
    const region = (regionOfCourse.get(card.courseId) ?? 'INT') as 'GB' | 'IRE' | 'INT';
    const y = byYear[year] ?? { total: 0, GB: 0, IRE: 0, INT: 0 };
    byYear[year] = y;
    y.total++;
    y[region]++;
    inputs.add(card, r, region);
    byDisc[card.discipline] = (byDisc[card.discipline] ?? 0) + 1;
    bySurface[card.surface] = (bySurface[card.surface] ?? 0) + 1;
    if (region === 'GB') gbClass[String(card.raceClass)] = (gbClass[String(card.raceClass)] ?? 0) + 1;
    const n = r.runners.length;
    starters += n;
    declared += card.runners.length;
    minField = Math.min(minField, n);
    maxField = Math.max(maxField, n);
    const fd = fieldByDisc[card.discipline] ?? { n: 0, sum: 0 };
    fieldByDisc[card.discipline] = fd;
    fd.n++;
    fd.sum += n;
    if (card.discipline !== 'flat') {
      jumpsStarters += n;
      jumpsNf += r.runners.filter((x) => x.status !== 'finished').length;
    }
    const favs = r.runners.filter((x) => x.favourite);
    if (favs.length > 0) {
      favRaces++;
      if (favs.some((x) => x.position === 1)) favWins++;
    }
    if (r.runners.filter((x) => x.position === 1).length > 1 || hasTie(r.runners.map((x) => x.position))) deadHeats++;
    const offs = meetingOffs.get(`${card.courseId}|${card.meetingDate}`) ?? [];
    if (offs.some((o) => o > card.offTime && o < r.publishedAt)) late++;
    if (r.publishedAt - card.offTime > 20 * 60_000) slow++;
    const byHorse = new Map(card.runners.map((x) => [x.horseId, x]));
    const jy = jockeys.get(year) ?? new Map();
    jockeys.set(year, jy);
    const ty = trainers.get(year) ?? new Map();
    trainers.set(year, ty);
    for (const x of r.runners) {
      const cr = byHorse.get(x.horseId);
      if (!cr) continue;
      const runs = horseRuns.get(x.horseId);
      horseRuns.set(x.horseId, (runs ?? 0) + 1);
      if (cr.officialRating === 0) unrated++;
      if (cr.sireId === null) unknownSire++;
      else {
        const s = sires.get(cr.sireId) ?? { name: cr.sireName ?? '', horses: 0, runs: 0 };
        s.runs++;
        if (runs === undefined) s.horses++;
        sires.set(cr.sireId, s);
      }
      const j = jy.get(cr.jockeyId) ?? { name: cr.jockeyName, n: 0 };
      j.n++;
      jy.set(cr.jockeyId, j);
      allJockeys.add(cr.jockeyId);
      const t = ty.get(cr.trainerId) ?? { name: cr.trainerName, n: 0 };
      t.n++;
      ty.set(cr.trainerId, t);
      allTrainers.add(cr.trainerId);
    }
    if (races % 5000 === 0) {
      for (const [k, offsK] of meetingOffs)
        if (Math.max(...offsK) < r.publishedAt - 3 * 86_400_000) meetingOffs.delete(k);
    }
  }

  const runs = [...horseRuns.values()];
  const sireList = [...sires.values()].sort((a, b) => b.horses - a.horses || b.runs - a.runs);
  const years = Object.keys(byYear).sort();
  const lastYear = [...years].reverse().find((yy) => (jockeys.get(yy)?.size ?? 0) > 0) ?? '';
  const topOf = (m: Map<string, { name: string; n: number }> | undefined) =>
    [...(m?.values() ?? [])].sort((a, b) => b.n - a.n);
  const jl = topOf(jockeys.get(lastYear));
  const tl = topOf(trainers.get(lastYear));
  return {
    events: counts,
    races,
    racesByYear: Object.fromEntries(years.map((yy) => [yy, byYear[yy]!])),
    racesByDiscipline: byDisc,
    racesBySurface: bySurface,
    gbClassMix: gbClass,
    starters,
    declared,
    nonRunnerRate: declared ? round(1 - starters / declared, 4) : 0,
    cardVersionsPerRace: races ? round(counts.card / races, 2) : 0,
    fieldSize: {
      mean: races ? round(starters / races, 2) : 0,
      min: races ? minField : 0,
      max: maxField,
      byDiscipline: Object.fromEntries(Object.entries(fieldByDisc).map(([k, v]) => [k, round(v.sum / v.n, 2)])),
    },
    jumpsNonFinisherRate: jumpsStarters ? round(jumpsNf / jumpsStarters, 4) : 0,
    favouriteWinRate: favRaces ? round(favWins / favRaces, 4) : 0,
    deadHeatRaces: deadHeats,
    lateResults: late,
    enquiryStyleResults: slow,
    distinct: {
      horses: horseRuns.size,
      jockeys: allJockeys.size,
      trainers: allTrainers.size,
      sires: sires.size,
      courses: regionOfCourse.size,
    },
    unknownSireRate: starters ? round(unknownSire / starters, 4) : 0,
    unratedRate: starters ? round(unrated / starters, 4) : 0,
    horseCareerRuns: {
      ...dist(runs),
      oneRunShare: runs.length ? round(runs.filter((x) => x === 1).length / runs.length, 4) : 0,
    },
    sireProgeny: {
      ...dist(sireList.map((s) => s.horses)),
      top: sireList.slice(0, 5).map((s) => ({ sire: s.name, horses: s.horses, runs: s.runs })),
    },
    jockeyRidesLastYear: {
      ...dist(jl.map((x) => x.n)),
      year: lastYear,
      top: jl.slice(0, 5).map((x) => ({ jockey: x.name, rides: x.n })),
    },
    trainerRunnersLastYear: {
      ...dist(tl.map((x) => x.n)),
      year: lastYear,
      top: tl.slice(0, 5).map((x) => ({ trainer: x.name, runners: x.n })),
    },
    inputs: inputs.summary(),
  };
}

function hasTie(positions: number[]): boolean {
  const seen = new Set<number>();
  for (const p of positions) {
    if (p === 0) continue;
    if (seen.has(p)) return true;
    seen.add(p);
  }
  return false;
}

/** A human-readable multi-line report of a summary (for the CLI). */
export function formatGenerationSummary(s: GenerationSummary): string {
  const lines: string[] = [];
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  lines.push(`events: ${s.events.course} course, ${s.events.card} card versions, ${s.events.result} results`);
  lines.push(
    `races: ${s.races} (${s.cardVersionsPerRace} card versions per race); starters: ${s.starters}; non-runners: ${pct(s.nonRunnerRate)}`,
  );
  lines.push('races per year (GB / IRE / INT):');
  for (const [y, v] of Object.entries(s.racesByYear)) lines.push(`  ${y}  ${v.total}  (${v.GB} / ${v.IRE} / ${v.INT})`);
  lines.push(
    `disciplines: ${Object.entries(s.racesByDiscipline)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  lines.push(
    `surfaces: ${Object.entries(s.racesBySurface)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  lines.push(
    `field size: mean ${s.fieldSize.mean} (min ${s.fieldSize.min}, max ${s.fieldSize.max}); ${Object.entries(
      s.fieldSize.byDiscipline,
    )
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}`,
  );
  lines.push(
    `jumps non-finishers: ${pct(s.jumpsNonFinisherRate)}; favourites won: ${pct(s.favouriteWinRate)}; dead heats: ${s.deadHeatRaces}; late results (after the next off): ${s.lateResults}`,
  );
  lines.push(
    `distinct: ${s.distinct.horses} horses, ${s.distinct.jockeys} jockeys, ${s.distinct.trainers} trainers, ${s.distinct.sires} sires, ${s.distinct.courses} courses; unknown sire on ${pct(s.unknownSireRate)} of runs; unrated runners: ${pct(s.unratedRate)}`,
  );
  const h = s.horseCareerRuns;
  lines.push(
    `runs per horse: mean ${h.mean}, median ${h.median}, p90 ${h.p90}, max ${h.max}; one run only: ${pct(h.oneRunShare)}`,
  );
  const sp = s.sireProgeny;
  lines.push(
    `progeny per sire: median ${sp.median}, p90 ${sp.p90}, max ${sp.max}; top: ${sp.top.map((t) => `${t.sire} ${t.horses}`).join(', ')}`,
  );
  const j = s.jockeyRidesLastYear;
  lines.push(
    `jockey rides in ${j.year}: median ${j.median}, p90 ${j.p90}, max ${j.max}; top: ${j.top.map((t) => `${t.jockey} ${t.rides}`).join(', ')}`,
  );
  const t = s.trainerRunnersLastYear;
  lines.push(
    `trainer runners in ${t.year}: median ${t.median}, p90 ${t.p90}, max ${t.max}; top: ${t.top.map((x) => `${x.trainer} ${x.runners}`).join(', ')}`,
  );
  lines.push(...formatInputs(s.inputs));
  return lines.join('\n');
}
