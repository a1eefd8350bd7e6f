import { beforeAll, describe, expect, it } from 'vitest';
import type { RaceCard, RaceResult } from '../../domain/avro-types.generated.js';
import { DISCIPLINES, GOINGS, SURFACES } from '../../domain/codes.js';
import { COURSES, courseIdOf } from '../../domain/courses.js';
import {
  compareFeedEvents,
  type FeedEvent,
  formatGenerationSummary,
  generateFeed,
  generationSummary,
} from '../../domain/generator/index.js';
import { isId } from '../../domain/ids.js';
import { MS_PER_MINUTE } from '../../domain/time.js';

interface Race {
  cards: RaceCard[];
  result: RaceResult | undefined;
}

function byRace(events: readonly FeedEvent[]): Map<string, Race> {
  const races = new Map<string, Race>();
  for (const e of events) {
    if (e.kind === 'course') continue;
    const r = races.get(e.value.raceId) ?? { cards: [], result: undefined };
    if (e.kind === 'card') r.cards.push(e.value);
    else r.result = e.value;
    races.set(e.value.raceId, r);
  }
  return races;
}

const finalCard = (r: Race) => r.cards[r.cards.length - 1]!;
const zoneOf = new Map(COURSES.map((c) => [courseIdOf(c.code), c.zone]));

/** Local wall-clock date and minute of an instant in an IANA zone (reference: the runtime's tz data). */
function localParts(zone: string, ms: number): { date: string; minute: number } {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(ms);
  const get = (t: string) => parts.find((p) => p.type === t)!.value;
  return {
    date: `${get('year')}-${get('month')}-${get('day')}`,
    minute: Number(get('hour')) * 60 + Number(get('minute')),
  };
}

// One summer and one winter month at full scale, generated once (about a second each).
let summer: FeedEvent[];
let winter: FeedEvent[];
let all: FeedEvent[];
let races: Map<string, Race>;

beforeAll(() => {
  summer = [...generateFeed({ from: '2023-06-01', to: '2023-06-30', seed: 7 })];
  winter = [...generateFeed({ from: '2024-01-01', to: '2024-01-31', seed: 7 })];
  all = [...summer, ...winter];
  races = byRace(all);
});

describe('generateFeed: determinism and order', () => {
  it('gives the same events, byte for byte, for the same options', () => {
    const opts = { from: '2022-03-01', to: '2022-03-04', seed: 3, scale: 0.5 };
    const a = JSON.stringify([...generateFeed(opts)]);
    const b = JSON.stringify([...generateFeed(opts)]);
    expect(a).toBe(b);
    const feed = generateFeed(opts);
    expect(JSON.stringify([...feed])).toBe(JSON.stringify([...feed])); // re-iterable
    expect(JSON.stringify([...generateFeed({ ...opts, seed: 4 })])).not.toBe(a);
  });

  it('does not let a later `to` change earlier meetings', () => {
    const opts = { from: '2021-05-01', seed: 2, scale: 0.4 };
    const short = [...generateFeed({ ...opts, to: '2021-05-05' })];
    const long = [...generateFeed({ ...opts, to: '2021-05-09' })];
    const dateOf = new Map<string, string>();
    for (const e of long) if (e.kind === 'card') dateOf.set(e.value.raceId, e.value.meetingDate);
    const early = long.filter((e) => e.kind === 'course' || dateOf.get(e.value.raceId)! <= '2021-05-05');
    expect(short.length).toBeGreaterThan(100);
    expect(JSON.stringify(early)).toBe(JSON.stringify(short));
  });

  it('emits events in feed order: publishedAt, then course < card < result, raceId, version', () => {
    for (const events of [summer, winter]) {
      for (let i = 1; i < events.length; i++) {
        expect(events[i]!.publishedAt).toBeGreaterThanOrEqual(events[i - 1]!.publishedAt);
        expect(compareFeedEvents(events[i - 1]!, events[i]!)).toBeLessThanOrEqual(0);
      }
    }
  });

  it('publishes a course before any card of that course', () => {
    const seen = new Set<string>();
    for (const e of summer) {
      if (e.kind === 'course') seen.add(e.value.courseId);
      else if (e.kind === 'card') expect(seen.has(e.value.courseId)).toBe(true);
    }
  });

  it('rejects bad options', () => {
    expect(() => generateFeed({ from: '2024-02-30', to: '2024-03-01' })).toThrow(RangeError);
    expect(() => generateFeed({ from: '2024-03-02', to: '2024-03-01' })).toThrow(RangeError);
    expect(() => generateFeed({ from: '2024-03-01', to: '2024-03-01', scale: 0 })).toThrow(RangeError);
  });

  it('is lazy: the first events of the whole history come at once', () => {
    const t0 = performance.now();
    let n = 0;
    for (const _ of generateFeed({ from: '1988-01-01', to: '2026-12-31' })) if (++n >= 500) break;
    expect(n).toBe(500);
    expect(performance.now() - t0).toBeLessThan(5000);
  });
});

describe('generateFeed: cards', () => {
  it('publishes version 1 the day before (09:00-11:00 UTC) and every version before the off', () => {
    const bad: string[] = [];
    for (const [id, r] of races) {
      const v1 = r.cards[0]!;
      const hourUtc = new Date(v1.publishedAt).getUTCHours();
      if (v1.version !== 1 || (hourUtc !== 9 && hourUtc !== 10)) bad.push(`${id}: v1`);
      if (v1.offTime - v1.publishedAt < 12 * 60 * MS_PER_MINUTE) bad.push(`${id}: v1 too late`);
      r.cards.forEach((c, k) => {
        if (c.version !== k + 1 || c.offTime !== v1.offTime) bad.push(`${id}: version ${c.version}`);
        if (k > 0 && !(c.publishedAt > r.cards[k - 1]!.publishedAt && c.publishedAt <= c.offTime - 30 * MS_PER_MINUTE))
          bad.push(`${id}: update at ${c.publishedAt}`);
      });
    }
    expect(bad).toEqual([]);
  });

  it('updates cards on race day with non-runners (about 5-8%), jockey and going changes', () => {
    let declared = 0;
    let nonRunners = 0;
    let jockeyChanges = 0;
    let goingChanges = 0;
    for (const r of races.values()) {
      const last = finalCard(r);
      declared += last.runners.length;
      nonRunners += last.runners.filter((x) => x.nonRunner).length;
      const first = new Map(r.cards[0]!.runners.map((x) => [x.horseId, x.jockeyId]));
      jockeyChanges += last.runners.filter((x) => first.get(x.horseId) !== x.jockeyId).length;
      if (r.cards.some((c) => c.going !== r.cards[0]!.going)) goingChanges++;
      expect(r.cards[0]!.runners.every((x) => !x.nonRunner)).toBe(true);
    }
    expect(nonRunners / declared).toBeGreaterThan(0.05);
    expect(nonRunners / declared).toBeLessThan(0.08);
    expect(jockeyChanges).toBeGreaterThan(0);
    expect(goingChanges).toBeGreaterThan(0);
  });

  it('uses well-formed ids and the code tables', () => {
    const bad = new Set<string>();
    const awGoings = ['Standard', 'Standard To Slow', 'Standard To Fast', 'Slow', 'Fast'];
    for (const r of races.values()) {
      for (const c of r.cards) {
        if (!isId('race', c.raceId) || !isId('course', c.courseId)) bad.add(`ids ${c.raceId}`);
        if (!(DISCIPLINES as readonly string[]).includes(c.discipline)) bad.add(`discipline ${c.discipline}`);
        if (!(SURFACES as readonly string[]).includes(c.surface)) bad.add(`surface ${c.surface}`);
        if (!(GOINGS as readonly string[]).includes(c.going)) bad.add(`going ${c.going}`);
        if (c.surface === 'aw' && !awGoings.includes(c.going)) bad.add(`aw going ${c.going}`);
        if (c.raceClass < 0 || c.raceClass > 7 || (c.country !== 'GB' && c.raceClass !== 0))
          bad.add(`class ${c.raceClass}`);
        for (const x of c.runners) {
          if (!isId('horse', x.horseId) || !isId('jockey', x.jockeyId) || !isId('trainer', x.trainerId))
            bad.add('runner ids');
          if (x.sireId === null ? x.sireName !== null : !isId('sire', x.sireId)) bad.add('sire');
        }
      }
    }
    expect([...bad]).toEqual([]);
  });

  it('draws stalls for flat races only, and weights in the flat and jumps ranges', () => {
    const bad: string[] = [];
    for (const [id, r] of races) {
      const c = finalCard(r);
      const draws = c.runners.map((x) => x.draw);
      const flat = c.discipline === 'flat';
      if (flat && [...draws].sort((a, b) => a - b).join() !== draws.map((_, i) => i + 1).join())
        bad.push(`${id}: draws`);
      if (!flat && draws.some((d) => d !== 0)) bad.push(`${id}: jumps draw`);
      for (const x of c.runners) {
        if (x.weightLbs < (flat ? 112 : 140) || x.weightLbs > (flat ? 140 : 168))
          bad.push(`${id}: weight ${x.weightLbs}`);
      }
      if (new Set(c.runners.map((x) => x.jockeyId)).size !== c.runners.length) bad.push(`${id}: jockey twice`);
    }
    expect(bad).toEqual([]);
  });

  it('converts local off times to UTC across clock changes and dates meetings locally', () => {
    const bad: string[] = [];
    for (const [id, r] of races) {
      const c = r.cards[0]!;
      const local = localParts(zoneOf.get(c.courseId)!, c.offTime);
      if (c.meetingDate !== local.date) bad.push(`${id}: ${c.meetingDate} vs ${local.date}`);
      if (
        (c.country === 'GB' || c.country === 'IRE') &&
        (local.minute < 11 * 60 + 30 || local.minute > 21 * 60 + 15 || local.minute % 5 !== 0)
      )
        bad.push(`${id}: off at local minute ${local.minute}`);
    }
    expect(bad).toEqual([]);
    // A 14:00 London off is 13:00Z in July (BST) and 14:00Z in January (GMT).
    const londonAt = (month: string, hour: number) =>
      [...races.values()]
        .map((r) => r.cards[0]!)
        .find(
          (c) =>
            c.country === 'GB' &&
            c.meetingDate.startsWith(month) &&
            localParts('Europe/London', c.offTime).minute === hour * 60,
        );
    const june = londonAt('2023-06', 14);
    const january = londonAt('2024-01', 14);
    expect(new Date(june!.offTime).getUTCHours()).toBe(13);
    expect(new Date(january!.offTime).getUTCHours()).toBe(14);
  });
});

const NON_FINISHES = [
  'pulled-up',
  'fell',
  'unseated',
  'brought-down',
  'refused',
  'ran-out',
  'slipped-up',
  'carried-out',
];

describe('generateFeed: results', () => {
  it('publishes results minutes after the off, for the starters only', () => {
    const bad: string[] = [];
    for (const [id, r] of races) {
      const c = finalCard(r);
      const res = r.result;
      if (!res) {
        bad.push(`${id}: no result`);
        continue;
      }
      if (res.publishedAt < c.offTime + 2 * MS_PER_MINUTE) bad.push(`${id}: result before the off`);
      const starters = c.runners.filter((x) => !x.nonRunner).map((x) => x.horseId);
      if (
        res.runners
          .map((x) => x.horseId)
          .sort()
          .join() !== [...starters].sort().join()
      )
        bad.push(`${id}: runners`);
      if (res.runners.length < 2) bad.push(`${id}: walkover`);
    }
    expect(bad).toEqual([]);
  });

  it('publishes some results late (stewards), after the off of the next race at the meeting', () => {
    const offs = new Map<string, number[]>();
    for (const r of races.values()) {
      const c = r.cards[0]!;
      const k = `${c.courseId}|${c.meetingDate}`;
      offs.set(k, [...(offs.get(k) ?? []), c.offTime]);
    }
    let late = 0;
    for (const r of races.values()) {
      const c = r.cards[0]!;
      const next = offs.get(`${c.courseId}|${c.meetingDate}`)!.filter((o) => o > c.offTime);
      if (next.length > 0 && r.result!.publishedAt > Math.min(...next)) late++;
    }
    expect(late).toBeGreaterThan(0);
    expect(late / races.size).toBeLessThan(0.04);
  });

  it('keeps positions, dead heats and beaten lengths consistent', () => {
    const bad: string[] = [];
    let deadHeats = 0;
    for (const [id, r] of races) {
      const rows = r.result!.runners;
      const finishers = rows.filter((x) => x.status === 'finished');
      if (
        finishers.length === 0 ||
        rows.findIndex((x) => x.status !== 'finished') !== (finishers.length === rows.length ? -1 : finishers.length)
      )
        bad.push(`${id}: finishers not first`);
      finishers.forEach((x, k) => {
        const ahead = finishers.filter((y) => y.position < x.position).length;
        if (x.position !== ahead + 1) bad.push(`${id}: position ${x.position} with ${ahead} ahead`); // 1, 2, 2, 4
        if (k === 0) {
          if (x.beatenLengths !== 0) bad.push(`${id}: winner beaten`);
          return;
        }
        const prev = finishers[k - 1]!;
        if (x.position === prev.position) {
          deadHeats++;
          if (x.beatenLengths !== prev.beatenLengths) bad.push(`${id}: dead heat apart`);
        } else if (!(x.position > prev.position && x.beatenLengths > prev.beatenLengths)) bad.push(`${id}: order`);
      });
      for (const x of rows) {
        if (x.status === 'finished') continue;
        if (x.position !== 0 || x.beatenLengths !== 0) bad.push(`${id}: non-finisher placed`);
        if (!NON_FINISHES.includes(x.status)) bad.push(`${id}: status ${x.status}`);
      }
    }
    expect(bad).toEqual([]);
    expect(deadHeats).toBeGreaterThan(0);
  });

  it('flags the favourite (joint favourites too) on the shortest starting price', () => {
    const bad: string[] = [];
    let joint = 0;
    const books: number[] = [];
    for (const [id, r] of races) {
      const rows = r.result!.runners;
      const shortest = Math.min(...rows.map((x) => x.startingPrice!));
      for (const x of rows) {
        if (!(x.startingPrice! > 1)) bad.push(`${id}: price ${x.startingPrice}`);
        if (x.favourite !== (x.startingPrice === shortest)) bad.push(`${id}: favourite flag`);
      }
      if (rows.filter((x) => x.favourite).length > 1) joint++;
      books.push(rows.reduce((a, x) => a + 1 / x.startingPrice!, 0));
    }
    expect(bad).toEqual([]);
    expect(joint).toBeGreaterThan(0);
    books.sort((a, b) => a - b);
    expect(books[Math.floor(books.length * 0.01)]).toBeGreaterThan(0.98); // bookmakers bet to an overround
    expect(books[Math.floor(books.length / 2)]).toBeGreaterThan(1.1);
  });

  it('gives a plausible winning time', () => {
    for (const r of races.values()) {
      const t = r.result!.winningTimeSeconds;
      if (t === null) continue;
      const c = finalCard(r);
      const yardsPerSecond = c.distanceYards / t;
      expect(yardsPerSecond).toBeGreaterThan(11);
      expect(yardsPerSecond).toBeLessThan(20);
    }
  });
});

describe('generateFeed: volumes and mixes over a month', () => {
  it('has realistic field sizes and a seasonal discipline mix', () => {
    const s = generationSummary(summer);
    const w = generationSummary(winter);
    expect(s.races).toBeGreaterThan(900);
    expect(s.races).toBeLessThan(1700);
    expect(w.races).toBeGreaterThan(700);
    expect(w.races).toBeLessThan(1400);
    expect(s.racesByDiscipline['flat']! / s.races).toBeGreaterThan(0.75); // summer: the flat
    expect((w.racesByDiscipline['hurdle']! + w.racesByDiscipline['chase']!) / w.races).toBeGreaterThan(0.4); // winter: jumps
    expect(w.racesBySurface['aw']! / w.races).toBeGreaterThan(0.25); // and all-weather
    const fs = { ...s.fieldSize.byDiscipline };
    expect(fs['flat']).toBeGreaterThan(8.5);
    expect(fs['flat']).toBeLessThan(11.5);
    expect(w.fieldSize.byDiscipline['hurdle']).toBeGreaterThan(7.5);
    expect(w.fieldSize.byDiscipline['hurdle']).toBeLessThan(10.5);
    expect(w.fieldSize.byDiscipline['chase']).toBeGreaterThan(5.5);
    expect(w.fieldSize.byDiscipline['chase']).toBeLessThan(8.5);
    expect(s.fieldSize.min).toBeGreaterThanOrEqual(2);
    expect(s.fieldSize.max).toBeLessThanOrEqual(40);
    expect(w.jumpsNonFinisherRate).toBeGreaterThan(0.08);
    expect(w.jumpsNonFinisherRate).toBeLessThan(0.16);
    expect(s.favouriteWinRate).toBeGreaterThan(0.25);
    expect(s.favouriteWinRate).toBeLessThan(0.45);
    const byRegion = s.racesByYear['2023']!;
    expect(byRegion.GB).toBeGreaterThan(byRegion.IRE);
    expect(byRegion.IRE).toBeGreaterThan(byRegion.INT);
    expect(byRegion.INT).toBeGreaterThan(0);
    expect(formatGenerationSummary(s)).toContain('races per year');
  });

  it('scales the volume down', () => {
    const small = generationSummary(generateFeed({ from: '2023-06-01', to: '2023-06-30', seed: 7, scale: 0.1 }));
    expect(small.races).toBeGreaterThan(60);
    expect(small.races).toBeLessThan(220);
  });
});
