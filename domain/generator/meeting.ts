/**
 * One meeting, end to end: plan the races, declare the fields (the card published the day before),
 * race-day updates (non-runners, jockey changes, going changes) as new full card versions, then run
 * each race and publish its result minutes after the off (later after a stewards' enquiry).
 */
import type { RaceCard, RaceCardRunner } from '../avro-types.generated.js';
import type { Sex } from '../codes.js';
import { courseIdOf } from '../courses.js';
import { makeId } from '../ids.js';
import { isoUtc, MS_PER_DAY, MS_PER_MINUTE } from '../time.js';
import { sexOn } from './attributes.js';
import { awGoing, goingSlowdown, meetingWetness, turfGoing } from './going.js';
import { type Horse, type Horses, merit } from './horses.js';
import type { Owners } from './owners.js';
import { type Circuit, circuitOf, FLAT, type Jockey, People, type Trainer } from './people.js';
import type { Rng } from './prng.js';
import { meetingDisciplines, planRace, type RacePlan } from './race-plan.js';
import { runRace, type Starter, winningTime } from './result.js';
import type { DayInfo, Meeting } from './schedule.js';
import type { FeedEvent } from './types.js';
import type { ZoneClock } from './zones.js';

export interface World {
  readonly rng: Rng;
  readonly horses: Horses;
  readonly people: People;
  readonly owners: Owners;
  readonly clock: ZoneClock;
  /** Until this day, short fields are topped up with already-raced (warm-start) horses. */
  readonly warmUntil: number;
  meetings: number;
  shortFields: number;
  /** Rated horses created after the warm-up to fill a field (should be rare). */
  lateWarmStarts: number;
}

interface Runner {
  readonly horse: Horse;
  readonly trainer: Trainer;
  jockey: Jockey;
  readonly allotted: number;
  claim: number;
  draw: number;
  cloth: number;
  readonly rating: number;
  readonly age: number;
  /** sex and headgear as declared (the horse's state on the day) */
  readonly sex: Sex;
  readonly headgear: string;
  nonRunner: boolean;
  /** The runner's card row as last published; rebuilt only when something about it changes. */
  row: RaceCardRunner | null;
}

const GB = 0;
const IRE = 1;
const FR = 2;
const UAE = 3;

/** Circuits whose horses travel to a race, and how often a runner is such a visitor. */
function visitorsFor(circuit: Circuit, plan: RacePlan): [Circuit[], number] {
  if (circuit === GB && plan.level <= 2) return plan.code === FLAT ? [[IRE, FR], 0.08] : [[IRE], 0.2];
  if (circuit === IRE && plan.level <= 2) return [[GB], 0.1];
  if (circuit === FR && plan.level === 1 && plan.code === FLAT) return [[GB, IRE], 0.12];
  if (circuit === UAE) return [[GB, IRE, FR], 0.45];
  if (circuit > UAE && plan.level === 1) return [[GB, IRE], 0.05];
  return [[], 0];
}

function allotted(plan: RacePlan, h: Horse, age: number, topRating: number): number {
  const flat = plan.code === FLAT;
  if (plan.kind === 'handicap' && h.rating > 0) {
    const top = flat ? 136 : 166;
    return Math.max(flat ? 119 : 147, top - (topRating - h.rating));
  }
  const penalty = Math.min(h.codeWins, flat ? 4 : 2) * (flat ? 3 : 5);
  const base = flat
    ? age <= 2
      ? 123
      : age === 3
        ? 126
        : 132
    : plan.discipline === 'nh-flat'
      ? age <= 4
        ? 152
        : 159
      : age <= 4
        ? 152
        : 161;
  return Math.min(flat ? 140 : 168, Math.max(flat ? 119 : 147, base + penalty));
}

/** Lightest weight carried, after any allowance: 8st (112 lb) on the flat, 10st (140 lb) over jumps. */
const MIN_CARRIED = { flat: 112, jumps: 140 } as const;
const CLAIM_STEPS = [10, 7, 5, 3, 0] as const;

/**
 * The allowance a rider takes off the allotted weight: none in the top two levels; otherwise the
 * rider's claim, stepped down (10, 7, 5, 3) where it would take the weight below the minimum.
 */
function claimTaken(plan: RacePlan, allottedLbs: number, j: Jockey): number {
  if (plan.level <= 2) return 0;
  const room = allottedLbs - (plan.code === FLAT ? MIN_CARRIED.flat : MIN_CARRIED.jumps);
  const claim = Math.min(People.claim(j), room);
  return CLAIM_STEPS.find((x) => x <= claim)!;
}

/**
 * A runner's card row. Unchanged rows are shared between a race's card versions (events are values:
 * consumers must not mutate them), which keeps the full history's allocation rate down.
 */
function cardRunner(r: Runner): RaceCardRunner {
  if (r.row) return r.row;
  const h = r.horse;
  r.row = {
    horseId: h.id,
    horseName: h.name,
    age: r.age,
    sireId: h.sire?.id ?? null,
    sireName: h.sire?.name ?? null,
    jockeyId: r.jockey.id,
    jockeyName: r.jockey.name,
    trainerId: r.trainer.id,
    trainerName: r.trainer.name,
    saddleCloth: r.cloth,
    draw: r.draw,
    weightLbs: r.allotted - r.claim,
    officialRating: r.rating,
    nonRunner: r.nonRunner,
    sex: r.sex,
    headgear: r.headgear,
    jockeyClaimLbs: r.claim,
    ownerId: h.owner.id,
    ownerName: h.owner.name,
    damId: h.dam?.id ?? '',
    damName: h.dam?.name ?? '',
    damSireId: h.dam?.sire.id ?? '',
    damSireName: h.dam?.sire.name ?? '',
  };
  return r.row;
}

const DIST_DRAW = (yards: number) => (yards < 1540 ? 1 : yards < 2200 ? 0.6 : yards < 2860 ? 0.3 : 0.15);

/** Expected performance of a starter in lbs: the latent ability model without luck. */
function expectedPerformance(
  plan: RacePlan,
  r: Runner,
  field: number,
  wet: number,
  drawBias: number,
  day: number,
  year: number,
): number {
  const h = r.horse;
  let e = merit(h, year) - 0.8 * (r.allotted - r.claim);
  const trip = Math.log(plan.yards) - h.tripLog;
  e -= 60 * trip * trip;
  e += plan.surface === 'aw' ? 2.5 * h.awPref : 8 * h.goingPref * (wet - 0.45);
  if (r.draw > 0 && field >= 4 && drawBias !== 0)
    e += drawBias * 8 * (1 - (2 * (r.draw - 1)) / (field - 1)) * DIST_DRAW(plan.yards);
  e += 1.4 * r.jockey.skill + 1.8 * r.trainer.skill;
  if (h.runs === 0) e -= 2;
  else if (day - h.lastRunDay > 120) e -= 2.5;
  return e;
}

/** What every race of a meeting shares. */
interface MeetingContext {
  readonly w: World;
  readonly m: Meeting;
  readonly d: DayInfo;
  readonly circuit: Circuit;
  readonly courseId: string;
  readonly meetingNo: number;
  readonly offs: readonly number[];
  /** Version 1 of the cards: the day before the first off, 09:00-11:00 UTC. */
  readonly cardAt: number;
  /** 07:30 local on race day: the earliest update. */
  readonly morning: number;
  /** Turf wetness as declared the day before. */
  readonly wet: number;
  readonly awGoing: string;
  /** A going change on the day (rain, or drying), from the morning to before the third race. */
  readonly goingChange: { at: number; wet: number } | undefined;
  readonly out: FeedEvent[];
}

export function runMeeting(w: World, m: Meeting, d: DayInfo, out: FeedEvent[]): void {
  const { rng, clock } = w;
  const course = m.course;
  const offs: number[] = [];
  for (let i = 0; i < m.races; i++) offs.push(clock.toUtc(course.zone, m.day, m.firstOff + i * m.interval));
  const cardDay = Math.floor(offs[0]! / MS_PER_DAY) - 1;
  const cardAt = cardDay * MS_PER_DAY + 9 * 3_600_000 + Math.floor(rng.next() * 7_200_000);
  const morning = clock.toUtc(course.zone, m.day, 7 * 60 + 30);
  const wet = meetingWetness(rng, course, d.month);
  const awGoingToday = awGoing(rng);
  let goingChange: MeetingContext['goingChange'];
  if (m.surface === 'turf' && course.region !== 'INT' && rng.chance(0.12)) {
    const last = offs[Math.min(2, offs.length - 1)]! - 30 * MS_PER_MINUTE;
    if (last > morning)
      goingChange = {
        at: Math.floor(rng.uniform(morning, last)),
        wet: Math.min(1, Math.max(0, wet + (rng.chance(0.75) ? 0.12 : -0.08))),
      };
  }
  const ctx: MeetingContext = {
    w,
    m,
    d,
    circuit: circuitOf(course.country),
    courseId: courseIdOf(course.code),
    meetingNo: ++w.meetings,
    offs,
    cardAt,
    morning,
    wet,
    awGoing: awGoingToday,
    goingChange,
    out,
  };
  const disciplines = meetingDisciplines(rng, m, d);
  for (let i = 0; i < m.races; i++) runRaceOf(ctx, i, planRace(rng, m, d, disciplines[i]!));
}

/** Declares the field: selection (debutants or warm-start horses where short), jockeys, weights, stalls. */
function declare(ctx: MeetingContext, plan: RacePlan): { runners: Runner[]; taken: Set<Jockey> } {
  const { w, m, d } = ctx;
  const { rng, horses, people } = w;
  const entry = {
    circuit: ctx.circuit,
    code: plan.code,
    level: plan.level,
    day: m.day,
    year: d.year,
    minAge: plan.minAge,
    maxAge: plan.maxAge,
    kind: plan.kind,
    stage: plan.stage,
    yards: plan.yards,
    lnYards: Math.log(plan.yards),
  };
  const [visitors, share] = visitorsFor(ctx.circuit, plan);
  const field = horses.select(entry, plan.declared, visitors, share);
  if (field.length < plan.declared) {
    // Entry races (maidens, novices, 2-year-olds, bumpers) take debutants; others are topped up with
    // already-rated horses (imports, in effect) only while the population warms up, or when the
    // field would be tiny; otherwise the race runs short.
    const entryRace = plan.kind === 'maiden' || plan.kind === 'novice' || plan.kind === 'bumper' || plan.maxAge === 2;
    if (entryRace) while (field.length < plan.declared) field.push(horses.create(entry, false));
    else if (m.day < w.warmUntil || field.length < Math.min(plan.declared, 4)) {
      if (m.day >= w.warmUntil) w.lateWarmStarts += plan.declared - field.length;
      while (field.length < plan.declared) field.push(horses.create(entry, true));
    } else w.shortFields++;
  }
  const taken = new Set<Jockey>();
  let topRating = 0;
  for (const h of field) topRating = Math.max(topRating, h.rating);
  const runners: Runner[] = field.map((h) => {
    const trainer = people.trainer(h.circuit, h.code, h.trainerSlot);
    const jockey = people.drawJockey(h.circuit, h.code, trainer, m.day, ctx.meetingNo, taken);
    taken.add(jockey);
    jockey.day = m.day;
    jockey.meeting = ctx.meetingNo;
    const age = d.year - h.foaled;
    const allottedLbs = allotted(plan, h, age, topRating);
    return {
      horse: h,
      trainer,
      jockey,
      allotted: allottedLbs,
      claim: claimTaken(plan, allottedLbs, jockey),
      draw: 0,
      cloth: 0,
      rating: h.rating,
      age,
      sex: sexOn(h, m.day, age),
      headgear: h.headgear,
      nonRunner: false,
      row: null,
    };
  });
  if (plan.discipline === 'flat') {
    const stalls = rng.shuffle(runners.map((_, k) => k + 1));
    runners.forEach((r, k) => {
      r.draw = stalls[k]!;
    });
  }
  runners.sort((a, b) => b.allotted - a.allotted || b.rating - a.rating || (a.horse.name < b.horse.name ? -1 : 1));
  runners.forEach((r, k) => {
    r.cloth = k + 1;
  });
  return { runners, taken };
}

function runRaceOf(ctx: MeetingContext, i: number, plan: RacePlan): void {
  const { w, m, d, out } = ctx;
  const { rng, horses, people } = w;
  const course = m.course;
  const off = ctx.offs[i]!;
  const { runners, taken } = declare(ctx, plan);
  const raceId = makeId('race', `gen:race:${course.code}:${isoUtc(off)}`);
  let version = 0;
  let wet = ctx.wet;
  let going = plan.surface === 'aw' ? ctx.awGoing : turfGoing(course, wet);
  const publish = (at: number) => {
    const card: RaceCard = {
      raceId,
      version: ++version,
      publishedAt: at,
      offTime: off,
      meetingDate: m.date,
      courseId: ctx.courseId,
      courseName: course.name,
      country: course.country,
      raceName: plan.name,
      discipline: plan.discipline,
      surface: plan.surface,
      distanceYards: plan.yards,
      going,
      raceClass: plan.raceClass,
      isHandicap: plan.kind === 'handicap',
      pattern: plan.pattern,
      runners: runners.map(cardRunner),
    };
    out.push({ kind: 'card', publishedAt: at, value: card });
  };
  publish(ctx.cardAt + i * 1000 + rng.int(0, 999));

  // Race-day updates, each a new full version: non-runners, jockey changes, a going change.
  const latest = off - 30 * MS_PER_MINUTE;
  const updates: { at: number; apply: () => void }[] = [];
  if (latest > ctx.morning) {
    let canWithdraw = runners.length - 2;
    for (const r of runners) {
      if (canWithdraw > 0 && rng.chance(0.068)) {
        canWithdraw--;
        updates.push({
          at: Math.floor(rng.uniform(ctx.morning, latest)),
          apply: () => {
            r.nonRunner = true;
            r.row = null;
          },
        });
      } else if (rng.chance(0.02)) {
        updates.push({
          at: Math.floor(rng.uniform(ctx.morning, latest - 15 * MS_PER_MINUTE)),
          apply: () => {
            const replacement = people.drawJockey(
              r.horse.circuit,
              r.horse.code,
              r.trainer,
              m.day,
              ctx.meetingNo,
              taken,
            );
            taken.delete(r.jockey);
            taken.add(replacement);
            r.jockey = replacement;
            r.jockey.day = m.day;
            r.jockey.meeting = ctx.meetingNo;
            r.claim = claimTaken(plan, r.allotted, r.jockey);
            r.row = null;
          },
        });
      }
    }
    const gc = ctx.goingChange;
    if (gc && gc.at < latest && plan.surface === 'turf') {
      updates.push({
        at: gc.at,
        apply: () => {
          wet = gc.wet;
        },
      });
    }
  }
  updates.sort((a, b) => a.at - b.at);
  let lastAt = 0;
  for (const u of updates) {
    u.apply();
    going = plan.surface === 'aw' ? ctx.awGoing : turfGoing(course, wet);
    const at = Math.max(u.at, lastAt + 1);
    lastAt = at;
    publish(at);
  }

  // The off, and the result minutes later (after the next race's off when the stewards look at it).
  const starters = runners.filter((r) => !r.nonRunner);
  const outcome = runRace(
    rng,
    starters.map((r): Starter => ({
      horseId: r.horse.id,
      expected: expectedPerformance(plan, r, runners.length, wet, course.drawBias, m.day, d.year),
      frailty: r.horse.frailty,
    })),
    plan.discipline,
    plan.yards,
  );
  const gap = i + 1 < ctx.offs.length ? (ctx.offs[i + 1]! - off) / MS_PER_MINUTE : 0;
  const delayMin = gap > 0 && rng.chance(0.02) ? Math.max(20, gap + rng.uniform(1, 5)) : rng.uniform(2, 10);
  const publishedAt = off + Math.floor(delayMin * MS_PER_MINUTE);
  out.push({
    kind: 'result',
    publishedAt,
    value: {
      raceId,
      publishedAt,
      winningTimeSeconds: rng.chance(0.01)
        ? null
        : winningTime(rng, plan.yards, plan.discipline, goingSlowdown(plan.surface, wet, going)),
      runners: outcome.runners,
    },
  });
  starters.forEach((r, k) => {
    const won = outcome.positions[k] === 1;
    r.jockey.rides++;
    if (won) r.jockey.wins++;
    horses.afterRun(r.horse, m.day, d.year, plan.discipline, won);
  });
  for (const r of runners) if (r.nonRunner) horses.afterNonRunner(r.horse, m.day);
}
