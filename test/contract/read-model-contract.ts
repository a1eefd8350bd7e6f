/**
 * The ReadModel contract: the real read model (LevelReadModel over classic-level, fed through apply)
 * and the API tests' FakeReadModel both run it, so the API tests exercise a fake that behaves like
 * production. Inputs are topic values (cards, results, analytics rows, tombstones) built with
 * test/support/builders.ts; expectations are written out by hand from the port's documentation.
 *
 * The cases are a table rather than inline it() calls so that read-model.test.ts can also run them
 * against deliberately broken models and show that each break is caught.
 */
import { describe, expect, it } from 'vitest';
import type { AnalyticsRow, Course, CourseSnapshot, RaceCard, RaceResult } from '../../domain/avro-types.generated.js';
import type { RaceDetail, RaceRunner, RaceSummary, ReadModel } from '../../state/read-model-port.js';
import {
  type CardSpec,
  card,
  course,
  dam,
  horse,
  jockey,
  owner,
  race,
  result,
  sire,
  trainer,
} from '../support/builders.js';
import { makeRow } from '../support/fake-read-model.js';
import { courseVersion, snapshotKey, snapshotRow, topologyBlock } from '../support/course-builders.js';

/**
 * Topic values to publish. One load publishes its cards, then its results, then its rows, then its
 * tombstones, each in array order; a test needing another interleaving calls load again.
 */
export interface ReadModelInput {
  cards: RaceCard[];
  results: RaceResult[];
  rows: AnalyticsRow[];
  tombstones?: { raceId: string; horseId: string }[];
  /** course versions (racing.courses.v1), published after the tombstones */
  courses?: Course[];
  /** course snapshot rows (racing.course-snapshots.v1), then their tombstones by topic key */
  snapshots?: CourseSnapshot[];
  snapshotTombstones?: string[];
}

/** One fresh, empty read model and the way to feed it; `close` releases whatever backs it. */
export interface ReadModelHarness {
  model: ReadModel;
  load(input: ReadModelInput): Promise<void>;
  close?(): Promise<void>;
}

export type ReadModelFactory = () => ReadModelHarness | Promise<ReadModelHarness>;

export interface ContractCase {
  /** short stable id, used by the mutation tests */
  id: string;
  name: string;
  /** the case applies only to models with this capability (e.g. the optional revision()) */
  requires?: (model: ReadModel) => boolean;
  run(h: ReadModelHarness): Promise<void>;
}

// ---- helpers ----

const feed = (h: ReadModelHarness, input: Partial<ReadModelInput>) =>
  h.load({ cards: [], results: [], rows: [], ...input });

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const raceIds = (xs: readonly { raceId: string }[]) => xs.map((x) => x.raceId);
/** Race ids in ascending id order: the tie-break of races off at the same instant. */
const sortedRaces = (...names: string[]) => names.map(race).sort(cmp);

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** The port promises no runner order (the API sorts), so runners are compared by horse name. */
function runnersByName(d: RaceDetail | undefined): Record<string, RaceRunner> {
  expect(d, 'race should be known').toBeDefined();
  const out: Record<string, RaceRunner> = {};
  for (const r of d!.runners) out[r.horseName] = r;
  expect(Object.keys(out)).toHaveLength(d!.runners.length);
  return out;
}

const NO_RESULT = {
  position: null,
  resultStatus: null,
  beatenLengths: null,
  startingPrice: null,
  favourite: null,
} as const;

/** A card runner's own facts as the builders make them (ids from names), for runner `h`. */
function cardFacts(h: string, saddleCloth: number, extra: Partial<RaceRunner> = {}) {
  return {
    horseId: horse(h),
    horseName: h,
    age: 4,
    sireId: sire(`S-${h}`),
    sireName: `S-${h}`,
    jockeyId: jockey(`J-${h}`),
    jockeyName: `J-${h}`,
    trainerId: trainer(`T-${h}`),
    trainerName: `T-${h}`,
    saddleCloth,
    draw: 0,
    weightLbs: 140,
    officialRating: 0,
    nonRunner: false,
    sex: '',
    headgear: '',
    jockeyClaimLbs: 0,
    ownerId: '',
    ownerName: '',
    damId: '',
    damName: '',
    damSireId: '',
    damSireName: '',
    ...extra,
  };
}

const twoRunners = (r: string) => [{ h: `${r}-1` }, { h: `${r}-2` }];

/** The New York rule: a 01:00 UTC off belongs to the previous local day, which the card's meetingDate says. */
function newYorkCard(r: string, off: string, meetingDate: string): RaceCard {
  return {
    ...card({ r, off, c: 'Belmont', runners: twoRunners(r) }),
    meetingDate,
    country: 'USA',
  };
}

const simple = (r: string, off: string, extra: Partial<CardSpec> = {}) =>
  card({ r, off, runners: twoRunners(r), ...extra });
const resultOf = (r: string, pub: string) =>
  result({
    r,
    pub,
    runners: [
      { h: `${r}-1`, pos: 1 },
      { h: `${r}-2`, pos: 2, bl: 1 },
    ],
  });

const row = (r: string, h: string, extra: Partial<AnalyticsRow> = {}) =>
  makeRow({ raceId: race(r), horseId: horse(h), ...extra });
/** Expected row order: by raceId, then horseId. */
const rowOrder = (a: AnalyticsRow, b: AnalyticsRow) => cmp(a.raceId, b.raceId) || cmp(a.horseId, b.horseId);

// ---- the cases ----

export const readModelContract: readonly ContractCase[] = [
  {
    id: 'race-days',
    name: 'raceDays: races per meeting date within [from, to] inclusive, ascending; a race counts on its meetingDate',
    async run(h) {
      // Published out of date order; the New York race is off 01:00 UTC on the 10th but meets on the 9th.
      await feed(h, {
        cards: [
          simple('d11b', '2024-05-11T23:00:00.000Z'),
          simple('after', '2024-05-12T00:00:00.000Z'),
          simple('d9a', '2024-05-09T13:00:00.000Z'),
          newYorkCard('ny', '2024-05-10T01:00:00.000Z', '2024-05-09'),
          simple('d11a', '2024-05-11T00:00:00.000Z'),
          simple('before', '2024-05-08T23:59:59.999Z'),
          simple('d10', '2024-05-10T14:00:00.000Z'),
          simple('d9b', '2024-05-09T15:00:00.000Z'),
        ],
      });
      expect(await h.model.raceDays('2024-05-09', '2024-05-11')).toEqual([
        { date: '2024-05-09', races: 3 },
        { date: '2024-05-10', races: 1 },
        { date: '2024-05-11', races: 2 },
      ]);
      expect(await h.model.raceDays('2024-05-10', '2024-05-10')).toEqual([{ date: '2024-05-10', races: 1 }]);
      expect(await h.model.raceDays('2024-05-08', '2024-05-08')).toEqual([{ date: '2024-05-08', races: 1 }]);
      expect(await h.model.raceDays('2024-05-13', '2024-05-31')).toEqual([]);
      expect(await h.model.raceDays('2024-05-01', '2024-05-07')).toEqual([]);
    },
  },
  {
    id: 'race-moved',
    name: 'raceDays, racesOn, racesOffBetween: a race moved by a later card is found at its new day and time only',
    async run(h) {
      await feed(h, { cards: [simple('m', '2024-05-09T14:00:00.000Z'), simple('stay', '2024-05-09T15:00:00.000Z')] });
      expect(await h.model.raceDays('2024-05-01', '2024-05-31')).toEqual([{ date: '2024-05-09', races: 2 }]);
      // Version 2, published the day before the original off, moves it to the 10th at 16:00.
      await feed(h, {
        cards: [simple('m', '2024-05-10T16:00:00.000Z', { v: 2, pub: '2024-05-08T14:00:00.000Z' })],
      });
      expect(await h.model.raceDays('2024-05-01', '2024-05-31')).toEqual([
        { date: '2024-05-09', races: 1 },
        { date: '2024-05-10', races: 1 },
      ]);
      expect(raceIds(await h.model.racesOn('2024-05-09'))).toEqual([race('stay')]);
      expect(raceIds(await h.model.racesOn('2024-05-10'))).toEqual([race('m')]);
      expect(
        raceIds(
          await h.model.racesOffBetween(Date.parse('2024-05-09T00:00:00.000Z'), Date.parse('2024-05-11T00:00:00.000Z')),
        ),
      ).toEqual([race('stay'), race('m')]);
      expect(
        await h.model.racesOffBetween(Date.parse('2024-05-09T14:00:00.000Z'), Date.parse('2024-05-09T14:00:00.001Z')),
      ).toEqual([]);
      // Version 3 puts it back 90 minutes on the same day: still one race that day, at the new time.
      await feed(h, {
        cards: [simple('m', '2024-05-10T17:30:00.000Z', { v: 3, pub: '2024-05-10T09:00:00.000Z' })],
      });
      expect(await h.model.raceDays('2024-05-10', '2024-05-10')).toEqual([{ date: '2024-05-10', races: 1 }]);
      expect((await h.model.racesOn('2024-05-10')).map((s) => [s.raceId, s.offTime])).toEqual([
        [race('m'), '2024-05-10T17:30:00.000Z'],
      ]);
      expect(
        raceIds(
          await h.model.racesOffBetween(Date.parse('2024-05-10T00:00:00.000Z'), Date.parse('2024-05-11T00:00:00.000Z')),
        ),
      ).toEqual([race('m')]);
    },
  },
  {
    id: 'races-on',
    name: 'racesOn: only that meeting date, ordered by offTime then raceId',
    async run(h) {
      const [first, second] = sortedRaces('tieA', 'tieB');
      const tie = (r: string) => simple(r, '2024-05-10T14:00:00.000Z');
      // The tied pair is published in descending id order and the earliest race last.
      const tied = race('tieA') === second ? [tie('tieA'), tie('tieB')] : [tie('tieB'), tie('tieA')];
      await feed(h, {
        cards: [
          simple('late', '2024-05-10T16:00:00.000Z'),
          ...tied,
          newYorkCard('ny', '2024-05-10T01:00:00.000Z', '2024-05-09'),
          simple('next', '2024-05-11T00:30:00.000Z'),
          simple('prev', '2024-05-09T23:30:00.000Z'),
          simple('early', '2024-05-10T12:00:00.000Z'),
        ],
      });
      expect(raceIds(await h.model.racesOn('2024-05-10'))).toEqual([race('early'), first, second, race('late')]);
      expect(raceIds(await h.model.racesOn('2024-05-09'))).toEqual([race('prev'), race('ny')]);
      expect(await h.model.racesOn('2024-05-12')).toEqual([]);
    },
  },
  {
    id: 'latest-card',
    name: "racesOn: a summary is the latest card version's (going, fieldSize without non-runners, cardVersion); an older version arriving later is ignored",
    async run(h) {
      const runners = [{ h: 'a' }, { h: 'b' }, { h: 'c' }];
      const v1 = card({ r: 'x', off: '2024-05-10T14:00:00.000Z', pub: '2024-05-09T09:00:00.000Z', runners });
      const v2 = card({
        r: 'x',
        off: '2024-05-10T14:00:00.000Z',
        pub: '2024-05-10T09:00:00.000Z',
        v: 2,
        going: 'Soft',
        runners: [{ h: 'a' }, { h: 'b' }, { h: 'c', nr: true }],
      });
      const expected: RaceSummary = {
        raceId: race('x'),
        courseId: course('C1'),
        courseName: 'C1',
        country: 'GB',
        offTime: '2024-05-10T14:00:00.000Z',
        meetingDate: '2024-05-10',
        raceName: 'Race x',
        discipline: 'flat',
        surface: 'turf',
        distanceYards: 2200,
        going: 'Good',
        raceClass: 4,
        fieldSize: 3,
        cardVersion: 1,
        status: 'declared',
      };
      await feed(h, { cards: [v1] });
      expect(await h.model.racesOn('2024-05-10')).toEqual([expected]);
      const latest = { ...expected, going: 'Soft', fieldSize: 2, cardVersion: 2 };
      await feed(h, { cards: [v2] });
      expect(await h.model.racesOn('2024-05-10')).toEqual([latest]);
      // v1 again, in a later load and in the same load after v2: the newer card stays.
      await feed(h, { cards: [v1] });
      expect(await h.model.racesOn('2024-05-10')).toEqual([latest]);
      await feed(h, { cards: [v2, v1] });
      expect(await h.model.racesOn('2024-05-10')).toEqual([latest]);
      const { runners: _r, winningTimeSeconds, ...summary } = (await h.model.race(race('x')))!;
      expect(summary).toEqual(latest);
      expect(winningTimeSeconds).toBeNull();
      expect(runnersByName(await h.model.race(race('x'))).c?.nonRunner).toBe(true);
      expect(
        await h.model.racesOffBetween(Date.parse('2024-05-10T00:00:00.000Z'), Date.parse('2024-05-11T00:00:00.000Z')),
      ).toEqual([latest]);
      // Published at the same instant as v2: the higher version wins, whichever arrives last.
      const v3 = { ...v2, version: 3, going: 'Heavy' };
      const newest = { ...latest, going: 'Heavy', cardVersion: 3 };
      await feed(h, { cards: [v3, v2] });
      expect(await h.model.racesOn('2024-05-10')).toEqual([newest]);
      await feed(h, { cards: [v2] });
      expect(await h.model.racesOn('2024-05-10')).toEqual([newest]);
    },
  },
  {
    id: 'off-window',
    name: 'racesOffBetween: offTime in [from, to) to the millisecond, ordered by offTime then raceId',
    async run(h) {
      const from = Date.parse('2024-05-09T00:00:00.000Z');
      const to = Date.parse('2024-05-12T00:00:00.000Z');
      const [first, second] = sortedRaces('tieA', 'tieB');
      await feed(h, {
        cards: [
          simple('after', '2024-05-12T00:00:00.000Z'),
          simple('end', '2024-05-11T23:59:59.999Z'),
          simple('tieB', '2024-05-10T14:00:00.000Z'),
          simple('tieA', '2024-05-10T14:00:00.000Z'),
          simple('start', '2024-05-09T00:00:00.000Z'),
          simple('before', '2024-05-08T23:59:59.999Z'),
          newYorkCard('ny', '2024-05-10T01:00:00.000Z', '2024-05-09'),
        ],
      });
      expect(raceIds(await h.model.racesOffBetween(from, to))).toEqual([
        race('start'),
        race('ny'),
        first,
        second,
        race('end'),
      ]);
      const tie = Date.parse('2024-05-10T14:00:00.000Z');
      expect(raceIds(await h.model.racesOffBetween(tie, tie + 1))).toEqual([first, second]);
      expect(await h.model.racesOffBetween(tie, tie)).toEqual([]);
      expect(raceIds(await h.model.racesOffBetween(to, to + 1))).toEqual([race('after')]);
      expect(raceIds(await h.model.racesOffBetween(from - 1, from))).toEqual([race('before')]);
    },
  },
  {
    id: 'race-result',
    name: "race: runners carry the card's facts, with null result facts until the result and then the result's (a non-runner's stay null)",
    async run(h) {
      const c = card({
        r: 'x',
        off: '2024-05-10T14:00:00.000Z',
        runners: [{ h: 'a', draw: 3, w: 133, or: 81 }, { h: 'b', s: null, age: 6 }, { h: 'c' }, { h: 'd', nr: true }],
      });
      await feed(h, { cards: [c] });
      const declared = await h.model.race(race('x'));
      expect(declared).toMatchObject({ raceId: race('x'), status: 'declared', winningTimeSeconds: null, fieldSize: 3 });
      expect(runnersByName(declared)).toEqual({
        a: { ...cardFacts('a', 1, { draw: 3, weightLbs: 133, officialRating: 81 }), ...NO_RESULT },
        b: { ...cardFacts('b', 2, { sireId: null, sireName: null, age: 6 }), ...NO_RESULT },
        c: { ...cardFacts('c', 3), ...NO_RESULT },
        d: { ...cardFacts('d', 4, { nonRunner: true }), ...NO_RESULT },
      });

      await feed(h, {
        results: [
          {
            ...result({
              r: 'x',
              pub: '2024-05-10T14:10:00.000Z',
              runners: [
                { h: 'b', pos: 1, fav: true, sp: 2.5 },
                { h: 'a', pos: 2, bl: 1.75, sp: 4 },
                { h: 'c', pos: 0, sp: 11 },
              ],
            }),
            winningTimeSeconds: 101.04,
          },
        ],
      });
      const resulted = await h.model.race(race('x'));
      expect(resulted).toMatchObject({ status: 'result', winningTimeSeconds: 101.04, fieldSize: 3 });
      expect(runnersByName(resulted)).toEqual({
        a: {
          ...cardFacts('a', 1, { draw: 3, weightLbs: 133, officialRating: 81 }),
          position: 2,
          resultStatus: 'finished',
          beatenLengths: 1.75,
          startingPrice: 4,
          favourite: false,
        },
        b: {
          ...cardFacts('b', 2, { sireId: null, sireName: null, age: 6 }),
          position: 1,
          resultStatus: 'finished',
          beatenLengths: 0,
          startingPrice: 2.5,
          favourite: true,
        },
        c: {
          ...cardFacts('c', 3),
          position: 0,
          resultStatus: 'pulled-up',
          beatenLengths: 0,
          startingPrice: 11,
          favourite: false,
        },
        d: { ...cardFacts('d', 4, { nonRunner: true }), ...NO_RESULT },
      });
      expect((await h.model.racesOn('2024-05-10')).map((s) => s.status)).toEqual(['result']);
    },
  },
  {
    id: 'result-versions',
    name: 'race: a later-published result replaces an earlier one, an older one arriving later is ignored, and a newer card keeps the result',
    async run(h) {
      const runners = [{ h: 'a' }, { h: 'b' }];
      const first = result({
        r: 'x',
        pub: '2024-05-10T14:10:00.000Z',
        runners: [
          { h: 'a', pos: 1 },
          { h: 'b', pos: 2, bl: 2 },
        ],
      });
      // The stewards reverse the placings.
      const amended = {
        ...result({
          r: 'x',
          pub: '2024-05-10T14:40:00.000Z',
          runners: [
            { h: 'b', pos: 1 },
            { h: 'a', pos: 2, bl: 2 },
          ],
        }),
        winningTimeSeconds: 99.5,
      };
      await feed(h, { cards: [card({ r: 'x', off: '2024-05-10T14:00:00.000Z', runners })] });
      await feed(h, { results: [first] });
      expect(runnersByName(await h.model.race(race('x'))).a?.position).toBe(1);
      await feed(h, { results: [amended] });
      const positions = async () => {
        const d = await h.model.race(race('x'));
        const rs = runnersByName(d);
        return { a: rs.a?.position, b: rs.b?.position, bl: rs.a?.beatenLengths, time: d?.winningTimeSeconds };
      };
      const amendedView = { a: 2, b: 1, bl: 2, time: 99.5 };
      expect(await positions()).toEqual(amendedView);
      await feed(h, { results: [first] });
      expect(await positions()).toEqual(amendedView);
      await feed(h, { results: [amended, first] });
      expect(await positions()).toEqual(amendedView);
      // A card version published after the result (a late going report) changes the card, not the result.
      await feed(h, {
        cards: [
          card({
            r: 'x',
            off: '2024-05-10T14:00:00.000Z',
            pub: '2024-05-10T15:00:00.000Z',
            v: 2,
            going: 'Soft',
            runners,
          }),
        ],
      });
      expect(await positions()).toEqual(amendedView);
      expect(await h.model.race(race('x'))).toMatchObject({ status: 'result', going: 'Soft', cardVersion: 2 });
    },
  },
  {
    id: 'result-same-instant',
    name: 'race: of two different results published at one instant, the same one whichever arrives first',
    async run(h) {
      const runners = [{ h: 'a' }, { h: 'b' }];
      const pub = '2024-05-10T14:10:00.000Z';
      const versions = (r: string) => [
        result({
          r,
          pub,
          runners: [
            { h: 'a', pos: 1 },
            { h: 'b', pos: 2, bl: 2 },
          ],
        }),
        result({
          r,
          pub,
          runners: [
            { h: 'b', pos: 1 },
            { h: 'a', pos: 2, bl: 2 },
          ],
        }),
      ];
      for (const r of ['x', 'y']) await feed(h, { cards: [card({ r, off: '2024-05-10T14:00:00.000Z', runners })] });
      const [x1, x2] = versions('x');
      const [y1, y2] = versions('y');
      await feed(h, { results: [x1!] });
      await feed(h, { results: [x2!] });
      await feed(h, { results: [y2!] });
      await feed(h, { results: [y1!] });
      const winner = async (r: string) => {
        const rs = runnersByName(await h.model.race(race(r)));
        return rs.a?.position === 1 ? 'a' : rs.b?.position === 1 ? 'b' : undefined;
      };
      expect(await winner('x')).toBeDefined();
      expect(await winner('y')).toBe(await winner('x'));
    },
  },
  {
    id: 'result-first',
    name: 'race: a result published before its card is held; the race is unknown until the card arrives, then shows the result',
    async run(h) {
      await feed(h, { results: [resultOf('x', '2024-05-10T14:10:00.000Z')] });
      expect(await h.model.race(race('x'))).toBeUndefined();
      expect(await h.model.analytics(race('x'))).toBeUndefined();
      expect(await h.model.racesOn('2024-05-10')).toEqual([]);
      expect(await h.model.raceDays('2024-05-01', '2024-05-31')).toEqual([]);
      expect(await h.model.demoDate('2024-05-31')).toBeUndefined();
      await feed(h, { cards: [simple('x', '2024-05-10T14:00:00.000Z')] });
      const d = await h.model.race(race('x'));
      expect(d).toMatchObject({ status: 'result', winningTimeSeconds: 120 });
      expect(runnersByName(d)['x-1']).toMatchObject({ position: 1, resultStatus: 'finished', favourite: false });
      expect(await h.model.demoDate('2024-05-31')).toBe('2024-05-10');
    },
  },
  {
    id: 'runner-catalogue',
    name: "race: runners carry sex, headgear, jockey claim, owner, dam and dam sire from the latest card ('' / 0 when unknown)",
    async run(h) {
      const catalogue = { sex: 'g', hg: 'bt', claim: 3, o: 'Owner A', d: 'Dam A', ds: 'Dam Sire A', age: 5 };
      await feed(h, {
        cards: [card({ r: 'x', off: '2024-05-10T14:00:00.000Z', runners: [{ h: 'a', ...catalogue }, { h: 'b' }] })],
      });
      const known = {
        age: 5,
        sex: 'g',
        headgear: 'bt',
        jockeyClaimLbs: 3,
        ownerId: owner('Owner A'),
        ownerName: 'Owner A',
        damId: dam('Dam A'),
        damName: 'Dam A',
        damSireId: sire('Dam Sire A'),
        damSireName: 'Dam Sire A',
      };
      expect(runnersByName(await h.model.race(race('x')))).toEqual({
        a: { ...cardFacts('a', 1, known), ...NO_RESULT },
        b: { ...cardFacts('b', 2), ...NO_RESULT },
      });
      // A later card (first-time cheekpieces, a new owner, b gelded) replaces them; the result does not touch them.
      await feed(h, {
        cards: [
          card({
            r: 'x',
            off: '2024-05-10T14:00:00.000Z',
            pub: '2024-05-10T08:00:00.000Z',
            v: 2,
            runners: [
              { h: 'a', ...catalogue, hg: 'p', o: 'Owner B' },
              { h: 'b', sex: 'g' },
            ],
          }),
        ],
        results: [
          result({
            r: 'x',
            pub: '2024-05-10T14:10:00.000Z',
            runners: [
              { h: 'a', pos: 1 },
              { h: 'b', pos: 2 },
            ],
          }),
        ],
      });
      const rs = runnersByName(await h.model.race(race('x')));
      expect(rs.a).toMatchObject({
        ...known,
        headgear: 'p',
        ownerId: owner('Owner B'),
        ownerName: 'Owner B',
        position: 1,
      });
      expect(rs.b).toMatchObject({ ...cardFacts('b', 2, { sex: 'g' }), position: 2 });
    },
  },
  {
    id: 'unknown',
    name: 'race and analytics of an unknown race are undefined; a known race without rows has []',
    async run(h) {
      await feed(h, { cards: [simple('known', '2024-05-10T14:00:00.000Z')], rows: [row('other', 'o-1')] });
      expect(await h.model.race(race('nope'))).toBeUndefined();
      expect(await h.model.analytics(race('nope'))).toBeUndefined();
      expect(await h.model.race(race('known'))).toBeDefined();
      expect(await h.model.analytics(race('known'))).toEqual([]);
      // Rows alone do not make a race known.
      expect(await h.model.race(race('other'))).toBeUndefined();
      expect(await h.model.analytics(race('other'))).toBeUndefined();
    },
  },
  {
    id: 'analytics',
    name: 'analytics: the race rows ordered by horseId; a later row for a key replaces the earlier, a tombstone removes it',
    async run(h) {
      const horses = ['h1', 'h2', 'h3', 'h4', 'h5'];
      const sorted = [...horses].sort((a, b) => cmp(horse(a), horse(b)));
      // Published in descending horseId order, with a row of a neighbouring race in between.
      await feed(h, {
        cards: [simple('x', '2024-05-10T14:00:00.000Z'), simple('y', '2024-05-10T15:00:00.000Z')],
        rows: [
          ...[...sorted].reverse().map((n, i) => row('x', n, { draw: i + 1, sireId: i === 0 ? null : `sir_${n}` })),
          row('y', 'h1'),
        ],
      });
      const rows = (await h.model.analytics(race('x')))!;
      expect(rows.map((r) => r.horseId)).toEqual(sorted.map(horse));
      // Values come back as published (nulls included).
      expect(rows[0]).toEqual(row('x', sorted[0]!, { draw: 5, sireId: `sir_${sorted[0]}` }));
      expect(rows[4]).toEqual(row('x', sorted[4]!, { draw: 1, sireId: null }));

      const [h1, h2, h3] = sorted as [string, string, string];
      await feed(h, {
        rows: [
          row('x', h1, { position: 3, status: 'final' }),
          row('x', h2, { position: 1 }),
          row('x', h2, { position: 2 }),
        ],
        tombstones: [
          { raceId: race('x'), horseId: horse(h3) },
          { raceId: race('x'), horseId: horse('never') },
        ],
      });
      const after = (await h.model.analytics(race('x')))!;
      expect(after.map((r) => r.horseId)).toEqual(sorted.filter((n) => n !== h3).map(horse));
      expect(after[0]).toEqual(row('x', h1, { position: 3, status: 'final' }));
      expect(after[1]).toEqual(row('x', h2, { position: 2 }));
      expect(await h.model.analytics(race('y'))).toEqual([row('y', 'h1')]);

      // Deleted, then published again: back.
      await feed(h, { rows: [row('x', h3, { position: 7 })] });
      expect((await h.model.analytics(race('x')))!.map((r) => r.horseId)).toEqual(sorted.map(horse));
      await feed(h, { tombstones: sorted.map((n) => ({ raceId: race('x'), horseId: horse(n) })) });
      expect(await h.model.analytics(race('x'))).toEqual([]);
    },
  },
  {
    id: 'all-analytics',
    name: 'allAnalytics: every current row ordered by raceId then horseId, including rows whose card has not arrived',
    async run(h) {
      const published = [
        row('r2', 'b'),
        row('r1', 'c'),
        row('r3', 'a'),
        row('r1', 'a', { position: 9 }),
        row('r2', 'a'),
        row('r1', 'b'),
        row('r3', 'b'),
        row('r1', 'a'),
        row('r2', 'c'),
      ];
      await feed(h, {
        // r3 has no card (yet): its rows are current rows of the analytics topic all the same.
        cards: [simple('r1', '2024-05-10T14:00:00.000Z'), simple('r2', '2024-05-09T14:00:00.000Z')],
        rows: published,
        tombstones: [{ raceId: race('r2'), horseId: horse('c') }],
      });
      const expected = [
        row('r1', 'a'),
        row('r1', 'b'),
        row('r1', 'c'),
        row('r2', 'a'),
        row('r2', 'b'),
        row('r3', 'a'),
        row('r3', 'b'),
      ].sort(rowOrder);
      expect(await collect(h.model.allAnalytics())).toEqual(expected);
      expect(await collect(h.model.allAnalytics())).toEqual(expected);
    },
  },
  {
    id: 'demo-date',
    name: 'demoDate: the latest meeting date on or before today whose races all have results',
    async run(h) {
      await feed(h, {
        cards: [
          simple('p1', '2024-05-07T14:00:00.000Z'),
          simple('q1', '2024-05-08T13:00:00.000Z'),
          simple('q2', '2024-05-08T15:00:00.000Z'),
          simple('r1', '2024-05-09T14:00:00.000Z'),
          newYorkCard('ny', '2024-05-10T01:00:00.000Z', '2024-05-09'),
          simple('s1', '2024-05-10T14:00:00.000Z'),
        ],
        // q2 (the 8th), ny (the 9th, off on the 10th UTC) and s1 (the 10th) have no result.
        results: [
          resultOf('p1', '2024-05-07T14:10:00.000Z'),
          resultOf('q1', '2024-05-08T13:10:00.000Z'),
          resultOf('r1', '2024-05-09T14:10:00.000Z'),
        ],
      });
      expect(await h.model.demoDate('2024-05-10')).toBe('2024-05-07');
      await feed(h, {
        results: [
          result({
            r: 'ny',
            pub: '2024-05-10T01:10:00.000Z',
            runners: [
              { h: 'ny-1', pos: 1 },
              { h: 'ny-2', pos: 0 },
            ],
          }),
        ],
      });
      expect(await h.model.demoDate('2024-05-10')).toBe('2024-05-09');
      expect(await h.model.demoDate('2024-05-12')).toBe('2024-05-09');
      expect(await h.model.demoDate('2024-05-09')).toBe('2024-05-09');
      expect(await h.model.demoDate('2024-05-08')).toBe('2024-05-07');
      expect(await h.model.demoDate('2024-05-06')).toBeUndefined();
      await feed(h, { results: [resultOf('s1', '2024-05-10T14:10:00.000Z')] });
      expect(await h.model.demoDate('2024-05-10')).toBe('2024-05-10');
    },
  },
  ...courseCases(),
  {
    id: 'revision',
    name: 'revision (when offered): changes after every load, and the new answers are readable then',
    requires: (m) => typeof m.revision === 'function',
    async run(h) {
      const rev = () => h.model.revision!();
      const seen = [rev()];
      await feed(h, { cards: [simple('x', '2024-05-10T14:00:00.000Z')] });
      seen.push(rev());
      expect(raceIds(await h.model.racesOn('2024-05-10'))).toEqual([race('x')]);
      await feed(h, { results: [resultOf('x', '2024-05-10T14:10:00.000Z')] });
      seen.push(rev());
      expect((await h.model.race(race('x')))?.status).toBe('result');
      await feed(h, { rows: [row('x', 'x-1')] });
      seen.push(rev());
      await feed(h, { tombstones: [{ raceId: race('x'), horseId: horse('x-1') }] });
      seen.push(rev());
      expect(await h.model.analytics(race('x'))).toEqual([]);
      await feed(h, { courses: [courseVersion({ c: 'C1', pub: '2024-01-01T00:00:00.000Z' })] });
      seen.push(rev());
      expect(await h.model.courses()).toHaveLength(1);
      await feed(h, { snapshots: [snapshotRow({ c: 'C1', period: '2024-04' })] });
      seen.push(rev());
      await feed(h, { snapshotTombstones: [snapshotKey(snapshotRow({ c: 'C1', period: '2024-04' }))] });
      seen.push(rev());
      expect(new Set(seen).size).toBe(seen.length);
    },
  },
];

// ---- courses and course snapshots ----

const ids = (cs: readonly Course[]) => cs.map((c) => [c.name, c.courseId, c.publishedAt]);
const snapKeys = (page: { snapshots: CourseSnapshot[] }) => page.snapshots.map(snapshotKey);
const ms = (iso: string) => Date.parse(iso);

function courseCases(): ContractCase[] {
  return [
    {
      id: 'courses-latest',
      name: 'courses: the latest version of every course by publishedAt (not arrival), ordered by name then courseId',
      async run(h) {
        const york1 = courseVersion({ c: 'York', pub: '2020-01-01T00:00:00.000Z' });
        const york2 = courseVersion({ c: 'York', pub: '2021-06-01T00:00:00.000Z', extra: { operator: 'independent' } });
        // Two courses named alike (e.g. an Arabian card's id beside the main one): ordered by id.
        const twinA = courseVersion({ c: 'Ascot', id: course('Ascot-twin'), pub: '2020-01-01T00:00:00.000Z' });
        const ascot = courseVersion({ c: 'Ascot', pub: '2020-01-01T00:00:00.000Z' });
        const bath = courseVersion({ c: 'Bath', pub: '2019-01-01T00:00:00.000Z' });
        expect(await h.model.courses()).toEqual([]);
        await feed(h, { courses: [york2, bath, twinA, york1, ascot] });
        const [first, second] = [ascot, twinA].sort((a, b) => cmp(a.courseId, b.courseId));
        expect(ids(await h.model.courses())).toEqual(ids([first!, second!, bath, york2]));
        expect((await h.model.courses()).find((c) => c.name === 'York')).toEqual(york2);
        // The older version again, later: York stays at version 2.
        await feed(h, { courses: [york1] });
        expect((await h.model.courses()).find((c) => c.name === 'York')).toEqual(york2);
        // Published at the same instant: the greater JSON text, whichever arrives last.
        const tieA = { ...york2, operator: 'a-operator' };
        const tieZ = { ...york2, operator: 'z-operator' };
        await feed(h, { courses: [tieZ, tieA] });
        expect((await h.model.courses()).find((c) => c.name === 'York')).toEqual(tieZ);
        await feed(h, { courses: [tieA] });
        expect((await h.model.courses()).find((c) => c.name === 'York')).toEqual(tieZ);
        // A renamed course moves in the order.
        await feed(h, { courses: [{ ...bath, name: 'Zetland', publishedAt: ms('2022-01-01T00:00:00.000Z') }] });
        expect((await h.model.courses()).map((c) => c.name)).toEqual(['Ascot', 'Ascot', 'York', 'Zetland']);
      },
    },
    {
      id: 'course-in-force',
      name: 'course: the version published before the end of asOf (else the earliest), with the surface periods in force that day',
      async run(h) {
        // A Wolverhampton-like AW course: Polytrack, then Tapeta from 2014-08-11 (its version published 3 days ahead).
        const poly = courseVersion({
          c: 'Wolves',
          pub: '2010-01-01T00:00:00.000Z',
          history: [
            ['1993-12-27', 'aw', 'Fibresand'],
            ['2004-08-21', 'aw', 'Polytrack'],
          ],
        });
        const tapeta = courseVersion({
          c: 'Wolves',
          pub: '2014-08-08T00:00:00.000Z',
          history: [
            ['1993-12-27', 'aw', 'Fibresand'],
            ['2004-08-21', 'aw', 'Polytrack'],
            ['2014-08-11', 'aw', 'Tapeta'],
          ],
          topology: topologyBlock('generated'),
        });
        // A version published in the afternoon of 2016-03-01 is in force on that date.
        const afternoon = { ...tapeta, publishedAt: ms('2016-03-01T15:00:00.000Z'), operator: 'Arena Racing Company' };
        await feed(h, { courses: [afternoon, tapeta, poly] });
        const id = course('Wolves');
        const at = async (asOf: string) => {
          const r = await h.model.course(id, asOf);
          return r && { pub: r.version.publishedAt, surfaces: r.surfaceInForce.map((p) => p.description) };
        };
        expect(await at('2012-05-01')).toEqual({ pub: poly.publishedAt, surfaces: ['Polytrack'] });
        expect(await at('2014-08-07')).toEqual({ pub: poly.publishedAt, surfaces: ['Polytrack'] });
        // Published 2014-08-08T00:00: in force that day; Tapeta itself only from the 11th.
        expect(await at('2014-08-08')).toEqual({ pub: tapeta.publishedAt, surfaces: ['Polytrack'] });
        expect(await at('2014-08-10')).toEqual({ pub: tapeta.publishedAt, surfaces: ['Polytrack'] });
        expect(await at('2014-08-11')).toEqual({ pub: tapeta.publishedAt, surfaces: ['Tapeta'] });
        expect(await at('2016-02-29')).toEqual({ pub: tapeta.publishedAt, surfaces: ['Tapeta'] });
        expect(await at('2016-03-01')).toEqual({ pub: afternoon.publishedAt, surfaces: ['Tapeta'] });
        expect(await at('2030-01-01')).toEqual({ pub: afternoon.publishedAt, surfaces: ['Tapeta'] });
        // Before every version: the course as first published, its history reaching back.
        expect(await at('1995-06-01')).toEqual({ pub: poly.publishedAt, surfaces: ['Fibresand'] });
        expect(await at('1993-12-26')).toEqual({ pub: poly.publishedAt, surfaces: [] });
        expect((await h.model.course(id, '2014-08-11'))!.version).toEqual(tapeta);
        expect((await h.model.course(id, '2014-08-11'))!.surfaceInForce).toEqual([
          { from: '2014-08-11', surface: 'aw', description: 'Tapeta' },
        ]);
        expect(await h.model.course(course('nowhere'), '2014-08-11')).toBeUndefined();

        // Turf and AW side by side (a Meydan-like course): one period of each surface, by surface.
        const both = courseVersion({
          c: 'Desert',
          pub: '2009-12-01T00:00:00.000Z',
          history: [
            ['2010-01-28', 'turf', 'turf'],
            ['2010-01-28', 'aw', 'Tapeta'],
            ['2014-11-01', 'aw', 'dirt'],
          ],
        });
        await feed(h, { courses: [both] });
        const desert = async (asOf: string) => (await h.model.course(course('Desert'), asOf))!.surfaceInForce;
        expect(await desert('2012-01-01')).toEqual([
          { from: '2010-01-28', surface: 'aw', description: 'Tapeta' },
          { from: '2010-01-28', surface: 'turf', description: 'turf' },
        ]);
        expect((await desert('2015-01-01')).map((p) => p.description)).toEqual(['dirt', 'turf']);
        expect(await desert('2010-01-27')).toEqual([]);
      },
    },
    {
      id: 'snapshots',
      name: "courseSnapshots: one course's rows with fromPeriodEnd <= periodEnd <= toPeriodEnd, filtered, ordered by periodEnd then key",
      async run(h) {
        const rows = [
          snapshotRow({ c: 'Ascot', period: '2024-05', s: 'turf', b: 'sprint' }),
          snapshotRow({ c: 'Ascot', period: '2024-03', d: 'hurdle', b: 'staying' }),
          snapshotRow({ c: 'Ascot', period: '2024-04', b: 'mile' }),
          snapshotRow({ c: 'Ascot', period: '2024-04', b: 'middle' }),
          snapshotRow({ c: 'Ascot', period: '2024-04', d: 'chase', b: 'staying' }),
          snapshotRow({ c: 'Ascot', period: '2024-06-02', s: 'aw' }),
          snapshotRow({ c: 'Ascot', period: '2024-06-01' }),
          snapshotRow({ c: 'Other', period: '2024-04' }),
        ];
        await feed(h, { snapshots: rows });
        const all = {
          fromPeriodEnd: ms('2024-01-01T00:00:00.000Z'),
          toPeriodEnd: ms('2025-01-01T00:00:00.000Z'),
          limit: 100,
        };
        const c = course('Ascot');
        const expected = rows
          .filter((r) => r.courseId === c)
          .sort((a, b) => cmp(a.periodEndUtc, b.periodEndUtc) || cmp(snapshotKey(a), snapshotKey(b)));
        const page = await h.model.courseSnapshots(c, all);
        expect(page).toEqual({ snapshots: expected, hasMore: false });
        // Bounds are inclusive to the millisecond: April ends 2024-05-01T00:00Z.
        const april = ms('2024-05-01T00:00:00.000Z');
        expect(
          snapKeys(await h.model.courseSnapshots(c, { ...all, fromPeriodEnd: april, toPeriodEnd: april })),
        ).toEqual(expected.filter((r) => r.period === '2024-04').map(snapshotKey));
        expect(
          (
            await h.model.courseSnapshots(c, {
              ...all,
              fromPeriodEnd: april + 1,
              toPeriodEnd: ms('2024-06-02T00:00:00.000Z'),
            })
          ).snapshots.map((r) => r.period),
        ).toEqual(['2024-05', '2024-06-01']);
        expect(
          (await h.model.courseSnapshots(c, { ...all, toPeriodEnd: april - 1 })).snapshots.map((r) => r.period),
        ).toEqual(['2024-03']);
        // Filters, alone and together.
        const only = async (f: Partial<typeof all & { discipline: string; distanceBucket: string; surface: string }>) =>
          snapKeys(await h.model.courseSnapshots(c, { ...all, ...f }));
        expect(await only({ surface: 'aw' })).toEqual([snapshotKey(rows[5]!)]);
        expect(await only({ discipline: 'chase' })).toEqual([snapshotKey(rows[4]!)]);
        expect(await only({ distanceBucket: 'staying' })).toEqual([snapshotKey(rows[1]!), snapshotKey(rows[4]!)]);
        expect(await only({ discipline: 'flat', distanceBucket: 'mile', surface: 'turf' })).toEqual(
          [rows[2]!, rows[6]!].map(snapshotKey),
        );
        expect(await only({ discipline: 'nh-flat' })).toEqual([]);
        expect(await h.model.courseSnapshots(course('nowhere'), all)).toEqual({ snapshots: [], hasMore: false });
      },
    },
    {
      id: 'snapshot-paging',
      name: 'courseSnapshots: at most limit rows, hasMore when more match, and `after` resumes strictly after a position',
      async run(h) {
        const periods = ['2023-11', '2023-12', '2024-01', '2024-02'];
        const rows = periods.flatMap((period) =>
          ['sprint', 'mile', 'middle'].map((b) => snapshotRow({ c: 'Ascot', period, b })),
        );
        await feed(h, { snapshots: [...rows].reverse() });
        const c = course('Ascot');
        const q = { fromPeriodEnd: ms('2023-01-01T00:00:00.000Z'), toPeriodEnd: ms('2025-01-01T00:00:00.000Z') };
        const expected = [...rows]
          .sort((a, b) => cmp(a.periodEndUtc, b.periodEndUtc) || cmp(snapshotKey(a), snapshotKey(b)))
          .map(snapshotKey);
        const seen: string[] = [];
        let after: { periodEnd: number; key: string } | undefined;
        let pages = 0;
        for (;;) {
          const page = await h.model.courseSnapshots(c, { ...q, limit: 5, ...(after ? { after } : {}) });
          pages++;
          expect(page.snapshots.length).toBe(page.hasMore ? 5 : expected.length % 5);
          seen.push(...snapKeys(page));
          if (!page.hasMore) break;
          const last = page.snapshots.at(-1)!;
          after = { periodEnd: ms(last.periodEndUtc), key: snapshotKey(last) };
        }
        expect(pages).toBe(3);
        expect(seen).toEqual(expected);
        // Exactly limit rows left: no further page.
        expect((await h.model.courseSnapshots(c, { ...q, limit: 12 })).hasMore).toBe(false);
        expect((await h.model.courseSnapshots(c, { ...q, limit: 11 })).hasMore).toBe(true);
        // A position between rows (no row there) and one before the range.
        const mid = { periodEnd: ms('2024-01-01T00:00:00.000Z'), key: `${c}:2023-12:flat:~` };
        expect(snapKeys(await h.model.courseSnapshots(c, { ...q, limit: 100, after: mid }))).toEqual(
          expected.filter((k) => k.includes(':2024-')),
        );
        const early = { periodEnd: ms('2000-01-01T00:00:00.000Z'), key: `${c}:1999-12:flat:mile:turf` };
        expect(snapKeys(await h.model.courseSnapshots(c, { ...q, limit: 100, after: early }))).toEqual(expected);
      },
    },
    {
      id: 'snapshot-replace',
      name: 'courseSnapshots: a later row for a key replaces the earlier, a tombstone removes it, and it can come back',
      async run(h) {
        const a = snapshotRow({ c: 'Ascot', period: '2024-04', races: 10 });
        const b = snapshotRow({ c: 'Ascot', period: '2024-04', b: 'sprint', races: 4 });
        const q = {
          fromPeriodEnd: ms('2024-01-01T00:00:00.000Z'),
          toPeriodEnd: ms('2025-01-01T00:00:00.000Z'),
          limit: 10,
        };
        const c = course('Ascot');
        const races = async () =>
          (await h.model.courseSnapshots(c, q)).snapshots.map((s) => [s.distanceBucket, s.races]);
        await feed(h, { snapshots: [a, b, { ...a, races: 11 }] });
        expect(await races()).toEqual([
          ['mile', 11],
          ['sprint', 4],
        ]);
        await feed(h, {
          snapshots: [{ ...a, races: 12 }],
          snapshotTombstones: [snapshotKey(b), `${c}:2024-09:flat:mile:aw`],
        });
        expect(await races()).toEqual([['mile', 12]]);
        await feed(h, { snapshots: [{ ...b, races: 5 }] });
        expect(await races()).toEqual([
          ['mile', 12],
          ['sprint', 5],
        ]);
        await feed(h, { snapshotTombstones: [snapshotKey(a)] });
        expect(await races()).toEqual([['sprint', 5]]);
        await feed(h, { snapshots: [], snapshotTombstones: [snapshotKey(b)] });
        expect(await h.model.courseSnapshots(c, q)).toEqual({ snapshots: [], hasMore: false });
      },
    },
  ];
}

/** Registers the ReadModel contract suite for one implementation. */
export function describeReadModel(name: string, factory: ReadModelFactory): void {
  describe(`ReadModel contract: ${name}`, () => {
    for (const c of readModelContract) {
      it(c.name, async (ctx) => {
        const h = await factory();
        try {
          if (c.requires && !c.requires(h.model)) ctx.skip();
          await c.run(h);
        } finally {
          await h.close?.();
        }
      });
    }
  });
}
