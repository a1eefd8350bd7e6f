/**
 * An in-memory ReadModel for API tests, faithful to the port's contract (orderings, [from, to) windows,
 * the demo-date rule), plus builders for races, runners and rows and a small hand-made fixture.
 * Races can be added as finished RaceDetails (addRace) or built from topic values (fromEvents / load);
 * test/contract/read-model-contract.ts holds it and LevelReadModel to the same contract.
 */
import { readFileSync } from 'node:fs';
import type {
  CourseInForce,
  CourseSnapshotPage,
  CourseSnapshotQuery,
  RaceDay,
  RaceDetail,
  RaceRunner,
  RaceSummary,
  ReadModel,
} from '../../state/read-model-port.js';
import type {
  AnalyticsRow,
  Course,
  CourseSnapshot,
  RaceCard,
  RaceResult,
  SurfacePeriod,
} from '../../domain/avro-types.generated.js';

/** Topic values for FakeReadModel.load, applied in this order: cards, results, rows, then tombstones. */
export interface FakeEvents {
  cards?: readonly RaceCard[];
  results?: readonly RaceResult[];
  /** analytics rows; a later row for the same (raceId, horseId) replaces the earlier */
  rows?: readonly AnalyticsRow[];
  /** deleted rows (the analytics topic's tombstones) */
  tombstones?: readonly { raceId: string; horseId: string }[];
  /** course versions (racing.courses.v1), applied after the tombstones */
  courses?: readonly Course[];
  /** course snapshot rows (racing.course-snapshots.v1); a later row for the same key replaces the earlier */
  snapshots?: readonly CourseSnapshot[];
  /** deleted snapshot rows, by topic key courseId:period:discipline:distanceBucket:surface; applied last */
  snapshotTombstones?: readonly string[];
}

const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const byOff = (a: RaceSummary, b: RaceSummary): number =>
  Date.parse(a.offTime) - Date.parse(b.offTime) || cmp(a.raceId, b.raceId);

function summaryOf(r: RaceDetail): RaceSummary {
  const { runners: _runners, winningTimeSeconds: _wt, ...summary } = r;
  return summary;
}

/**
 * The card that supersedes: a higher publishedAt, then a higher version (RaceCard.avsc). Written out here
 * rather than imported so the fake does not share the real read model's code.
 */
const supersedes = (next: RaceCard, current: RaceCard): boolean =>
  next.publishedAt !== current.publishedAt ? next.publishedAt > current.publishedAt : next.version > current.version;

/**
 * The result version that supersedes: a later publishedAt; at one instant, the greater content as a JSON
 * text with sorted keys (the result has no version number). Written out here, not imported, like supersedes.
 */
const resultSupersedes = (next: RaceResult, current: RaceResult): boolean =>
  next.publishedAt !== current.publishedAt
    ? next.publishedAt > current.publishedAt
    : cmp(sortedJson(next), sortedJson(current)) > 0;

const sortedJson = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );

/** Versions in force order: publishedAt, then JSON text (written out here, not imported, like supersedes). */
const versionOrder = (a: Course, b: Course): number =>
  a.publishedAt - b.publishedAt || cmp(JSON.stringify(a), JSON.stringify(b));

const snapshotKey = (s: CourseSnapshot): string =>
  [s.courseId, s.period, s.discipline, s.distanceBucket, s.surface].join(':');

/** Per surface, the latest entry that started on or before asOf; ordered by surface. */
function inForce(history: readonly SurfacePeriod[], asOf: string): SurfacePeriod[] {
  const latest: Record<string, SurfacePeriod> = {};
  for (const p of history)
    if (p.from <= asOf && (!latest[p.surface] || p.from >= latest[p.surface]!.from)) latest[p.surface] = p;
  return Object.keys(latest)
    .sort(cmp)
    .map((k) => ({ ...latest[k]! }));
}

/** A race as the API shows it: the latest card's facts, each runner joined with its line of the result. */
function detailOf(c: RaceCard, result: RaceResult | undefined): RaceDetail {
  const placed = new Map((result?.runners ?? []).map((x) => [x.horseId, x]));
  return {
    raceId: c.raceId,
    courseId: c.courseId,
    courseName: c.courseName,
    country: c.country,
    offTime: new Date(c.offTime).toISOString(),
    meetingDate: c.meetingDate,
    raceName: c.raceName,
    discipline: c.discipline,
    surface: c.surface,
    distanceYards: c.distanceYards,
    going: c.going,
    raceClass: c.raceClass,
    fieldSize: c.runners.reduce((n, r) => (r.nonRunner ? n : n + 1), 0),
    cardVersion: c.version,
    status: result ? 'result' : 'declared',
    winningTimeSeconds: result ? result.winningTimeSeconds : null,
    runners: c.runners.map((r): RaceRunner => {
      const line = placed.get(r.horseId);
      return {
        horseId: r.horseId,
        horseName: r.horseName,
        age: r.age,
        sireId: r.sireId,
        sireName: r.sireName,
        jockeyId: r.jockeyId,
        jockeyName: r.jockeyName,
        trainerId: r.trainerId,
        trainerName: r.trainerName,
        saddleCloth: r.saddleCloth,
        draw: r.draw,
        weightLbs: r.weightLbs,
        officialRating: r.officialRating,
        nonRunner: r.nonRunner,
        sex: r.sex,
        headgear: r.headgear,
        jockeyClaimLbs: r.jockeyClaimLbs,
        ownerId: r.ownerId,
        ownerName: r.ownerName,
        damId: r.damId,
        damName: r.damName,
        damSireId: r.damSireId,
        damSireName: r.damSireName,
        position: line?.position ?? null,
        resultStatus: line?.status ?? null,
        beatenLengths: line?.beatenLengths ?? null,
        startingPrice: line?.startingPrice ?? null,
        favourite: line?.favourite ?? null,
      };
    }),
  };
}

export class FakeReadModel implements ReadModel {
  readonly races = new Map<string, RaceDetail>();
  readonly rows = new Map<string, AnalyticsRow[]>();
  /** Latest card and result per race, kept by load() (a result may arrive before its card). */
  readonly #cards = new Map<string, RaceCard>();
  readonly #results = new Map<string, RaceResult>();
  /** courseId -> every version, distinct, in versionOrder */
  readonly #courses = new Map<string, Course[]>();
  /** topic key -> current snapshot row */
  readonly #snapshots = new Map<string, CourseSnapshot>();

  constructor(races: readonly RaceDetail[] = [], rows: readonly AnalyticsRow[] = []) {
    for (const r of races) this.addRace(r);
    for (const row of rows) this.addRow(row);
  }

  /** A model built from topic values, as the real read model builds itself from the topics. */
  static fromEvents(events: FakeEvents): FakeReadModel {
    const m = new FakeReadModel();
    m.load(events);
    return m;
  }

  /**
   * Applies topic values: the latest card version wins (an older one arriving later is ignored), a
   * later-published result replaces an earlier one, a race is shown once it has a card (a result that
   * came first is held until then), rows replace by (raceId, horseId) and tombstones delete.
   */
  load(events: FakeEvents): void {
    const touched = new Set<string>();
    for (const c of events.cards ?? []) {
      const current = this.#cards.get(c.raceId);
      if (!current || supersedes(c, current)) this.#cards.set(c.raceId, c);
      touched.add(c.raceId);
    }
    for (const r of events.results ?? []) {
      const current = this.#results.get(r.raceId);
      if (!current || resultSupersedes(r, current)) this.#results.set(r.raceId, r);
      touched.add(r.raceId);
    }
    for (const raceId of touched) {
      const c = this.#cards.get(raceId);
      if (c) this.addRace(detailOf(c, this.#results.get(raceId)));
    }
    for (const row of events.rows ?? []) this.putRow(row);
    for (const t of events.tombstones ?? []) this.deleteRow(t.raceId, t.horseId);
    for (const c of events.courses ?? []) this.addCourse(c);
    for (const s of events.snapshots ?? []) this.#snapshots.set(snapshotKey(s), s);
    for (const k of events.snapshotTombstones ?? []) this.#snapshots.delete(k);
  }

  /** Adds a course version; of two published at the same instant the greater JSON text stays in force. */
  addCourse(c: Course): void {
    const versions = (this.#courses.get(c.courseId) ?? []).filter(
      (v) => v.publishedAt !== c.publishedAt || JSON.stringify(v) > JSON.stringify(c),
    );
    if (!versions.some((v) => v.publishedAt === c.publishedAt)) versions.push(c);
    this.#courses.set(c.courseId, versions.sort(versionOrder));
  }

  addSnapshot(s: CourseSnapshot): void {
    this.#snapshots.set(snapshotKey(s), s);
  }

  addRace(race: RaceDetail): void {
    this.races.set(race.raceId, race);
    if (!this.rows.has(race.raceId)) this.rows.set(race.raceId, []);
  }

  addRow(row: AnalyticsRow): void {
    const list = this.rows.get(row.raceId) ?? [];
    list.push(row);
    this.rows.set(row.raceId, list);
  }

  /** Puts a row, replacing the race's row of the same horse. */
  putRow(row: AnalyticsRow): void {
    const list = (this.rows.get(row.raceId) ?? []).filter((r) => r.horseId !== row.horseId);
    list.push(row);
    this.rows.set(row.raceId, list);
  }

  /** Deletes a row (a tombstone); deleting an absent row does nothing. */
  deleteRow(raceId: string, horseId: string): void {
    const list = this.rows.get(raceId);
    if (list)
      this.rows.set(
        raceId,
        list.filter((r) => r.horseId !== horseId),
      );
  }

  async raceDays(from: string, to: string): Promise<RaceDay[]> {
    const counts = new Map<string, number>();
    for (const r of this.races.values()) {
      if (r.meetingDate >= from && r.meetingDate <= to) counts.set(r.meetingDate, (counts.get(r.meetingDate) ?? 0) + 1);
    }
    return [...counts.entries()].sort(([a], [b]) => cmp(a, b)).map(([date, races]) => ({ date, races }));
  }

  async racesOn(date: string): Promise<RaceSummary[]> {
    return [...this.races.values()]
      .filter((r) => r.meetingDate === date)
      .map(summaryOf)
      .sort(byOff);
  }

  async racesOffBetween(fromMs: number, toMs: number): Promise<RaceSummary[]> {
    return [...this.races.values()]
      .filter((r) => {
        const t = Date.parse(r.offTime);
        return t >= fromMs && t < toMs;
      })
      .map(summaryOf)
      .sort(byOff);
  }

  async race(raceId: string): Promise<RaceDetail | undefined> {
    // Runners in insertion order on purpose: the port does not promise an order, the API must sort.
    return this.races.get(raceId);
  }

  async analytics(raceId: string): Promise<AnalyticsRow[] | undefined> {
    if (!this.races.has(raceId)) return undefined;
    return [...(this.rows.get(raceId) ?? [])].sort((a, b) => cmp(a.horseId, b.horseId));
  }

  /** Every row held, including rows of a race whose card has not arrived (analytics() hides those). */
  async *allAnalytics(): AsyncIterable<AnalyticsRow> {
    for (const raceId of [...this.rows.keys()].sort(cmp)) {
      yield* [...this.rows.get(raceId)!].sort((a, b) => cmp(a.horseId, b.horseId));
    }
  }

  async courses(): Promise<Course[]> {
    // Names inserted in any order; the port promises name then id.
    return [...this.#courses.values()]
      .map((vs) => vs[vs.length - 1]!)
      .sort((a, b) => cmp(a.name, b.name) || cmp(a.courseId, b.courseId));
  }

  async course(courseId: string, asOf: string): Promise<CourseInForce | undefined> {
    const versions = this.#courses.get(courseId);
    if (!versions) return undefined;
    const endOfAsOf = Date.parse(`${asOf}T00:00:00.000Z`) + 86_400_000;
    const version = versions.filter((v) => v.publishedAt < endOfAsOf).at(-1) ?? versions[0]!;
    return { version, surfaceInForce: inForce(version.surfaceHistory, asOf) };
  }

  async courseSnapshots(courseId: string, q: CourseSnapshotQuery): Promise<CourseSnapshotPage> {
    const rows = [...this.#snapshots.entries()]
      .map(([key, s]) => ({ key, end: Date.parse(s.periodEndUtc), s }))
      .filter(
        ({ key, end, s }) =>
          s.courseId === courseId &&
          end >= q.fromPeriodEnd &&
          end <= q.toPeriodEnd &&
          (q.discipline === undefined || s.discipline === q.discipline) &&
          (q.distanceBucket === undefined || s.distanceBucket === q.distanceBucket) &&
          (q.surface === undefined || s.surface === q.surface) &&
          (!q.after || end > q.after.periodEnd || (end === q.after.periodEnd && key > q.after.key)),
      )
      .sort((a, b) => a.end - b.end || cmp(a.key, b.key));
    return { snapshots: rows.slice(0, q.limit).map((r) => r.s), hasMore: rows.length > q.limit };
  }

  async demoDate(today: string): Promise<string | undefined> {
    const byDate = new Map<string, boolean>();
    for (const r of this.races.values()) {
      if (r.meetingDate > today) continue;
      byDate.set(r.meetingDate, (byDate.get(r.meetingDate) ?? true) && r.status === 'result');
    }
    return [...byDate.entries()]
      .filter(([, complete]) => complete)
      .map(([d]) => d)
      .sort(cmp)
      .at(-1);
  }
}

export function makeRunner(overrides: Partial<RaceRunner> & { horseId: string }): RaceRunner {
  return {
    horseName: `Horse ${overrides.horseId.slice(4)}`,
    age: 5,
    sireId: 'sir_a1',
    sireName: 'Sire A',
    jockeyId: 'jky_j1',
    jockeyName: 'J Rider',
    trainerId: 'trn_t1',
    trainerName: 'T Trainer',
    saddleCloth: 1,
    draw: 1,
    weightLbs: 130,
    officialRating: 70,
    nonRunner: false,
    sex: 'g',
    headgear: '',
    jockeyClaimLbs: 0,
    ownerId: 'own_o1',
    ownerName: 'O Owner',
    damId: 'dam_d1',
    damName: 'Dam D',
    damSireId: 'sir_a2',
    damSireName: 'Sire B',
    position: null,
    resultStatus: null,
    beatenLengths: null,
    startingPrice: null,
    favourite: null,
    ...overrides,
  };
}

export function makeRace(overrides: Partial<RaceDetail> & { raceId: string; offTime: string }): RaceDetail {
  return {
    courseId: 'crs_ascot',
    courseName: 'Ascot',
    country: 'GB',
    meetingDate: overrides.offTime.slice(0, 10),
    raceName: `Race ${overrides.raceId.slice(4)}`,
    discipline: 'flat',
    surface: 'turf',
    distanceYards: 1760,
    going: 'Good',
    raceClass: 4,
    fieldSize: 0,
    cardVersion: 1,
    status: 'declared',
    winningTimeSeconds: null,
    runners: [],
    ...overrides,
  };
}

/**
 * The defaults AnalyticsRow.avsc gives the fields appended after the first 45 (the catalogue, ...), read
 * from the schema so makeRow's rows stay complete whatever it appends next.
 */
const ROW_DEFAULTS = Object.fromEntries(
  (
    JSON.parse(readFileSync(new URL('../../schemas/AnalyticsRow.avsc', import.meta.url), 'utf8')) as {
      fields: { name: string; default?: unknown }[];
    }
  ).fields
    .filter((f) => 'default' in f)
    .map((f) => [f.name, f.default]),
) as unknown as AnalyticsRow;

export function makeRow(overrides: Partial<AnalyticsRow> & { raceId: string; horseId: string }): AnalyticsRow {
  return {
    ...ROW_DEFAULTS,
    computedAtUtc: '2024-05-09T18:00:00.000Z',
    position: 0,
    status: 'provisional',
    offTime: '2024-05-10T14:00:00.000Z',
    courseId: 'crs_ascot',
    jockeyId: 'jky_j1',
    trainerId: 'trn_t1',
    sireId: 'sir_a1',
    draw: 1,
    weightLbs: 130,
    officialRating: 70,
    fieldSize: 3,
    distanceYards: 1760,
    raceClass: 4,
    disciplineCode: 1,
    surfaceCode: 1,
    goingCode: 4,
    distanceBucketCode: 2,
    careerRuns: 4,
    careerWins: 1,
    courseForm: 0.3333,
    courseFormRuns: 2,
    winRatioLast5: 0.25,
    vpr: 71.3,
    vprConfidence: 0.6667,
    improvingVpr: true,
    jockeyWinRate90Day: 0.125,
    jockeyRides90Day: 40,
    trainer14DayWinRate: 0.2,
    trainerRunners14Day: 10,
    stableForm: '2-3-10',
    sireProgenyWinRate: 0.1,
    sireProgenyRuns: 120,
    drawBiasStrength: 0.05,
    drawBiasRaces: 30,
    distanceDifferenceY: 220,
    ratingDifference: -3,
    weightDifferenceLbs: 2,
    classDifference: 1,
    lastRunDays: 21,
    courseTotalClimbM: 21.5,
    courseUndulationIndex: 0.42,
    courseElevationRangeM: 22,
    ...overrides,
  };
}

/** "Now" for the fixture: 2024-05-10 12:00 UTC. The recent feed window is [05-09T00:00Z, 05-12T00:00Z). */
export const NOW = Date.parse('2024-05-10T12:00:00.000Z');

export const IDS = {
  /** off 2024-05-08T23:59:59.999Z: one ms before the feed window */
  beforeWindow: 'rac_before',
  /** off 2024-05-09T00:00:00.000Z: the first instant of the window; has results (the demo day) */
  windowStart: 'rac_start',
  /** 2024-05-09 meeting, second race, has results */
  yesterdayLate: 'rac_ylate',
  /** New York, off 2024-05-10T01:00Z, meeting date 2024-05-09 (local); has results */
  newYork: 'rac_nyc',
  /** two races off at the same instant on 2024-05-10, to check the raceId tie-break */
  tieB: 'rac_tieb',
  tieA: 'rac_tiea',
  /** off 2024-05-11T23:59:59.999Z: the last ms of the window */
  windowEnd: 'rac_end',
  /** off 2024-05-12T00:00:00.000Z: first instant after the window */
  afterWindow: 'rac_after',
} as const;

function resultRunners(): RaceRunner[] {
  return [
    // Inserted out of saddleCloth order on purpose.
    makeRunner({
      horseId: 'hrs_c',
      saddleCloth: 3,
      draw: 2,
      position: 2,
      resultStatus: 'finished',
      beatenLengths: 1.5,
      startingPrice: 4.5,
      favourite: false,
    }),
    makeRunner({
      horseId: 'hrs_a',
      saddleCloth: 1,
      draw: 3,
      position: 1,
      resultStatus: 'finished',
      beatenLengths: 0,
      startingPrice: 2.5,
      favourite: true,
      sireId: null,
      sireName: null,
    }),
    makeRunner({
      horseId: 'hrs_b',
      saddleCloth: 2,
      draw: 1,
      position: 0,
      resultStatus: 'pulled-up',
      beatenLengths: 0,
      startingPrice: 11,
      favourite: false,
    }),
  ];
}

/** The fixture: eight races over 2024-05-08..2024-05-12 with runners and rows. */
export function sampleReadModel(): FakeReadModel {
  const m = new FakeReadModel();
  m.addRace(
    makeRace({
      raceId: IDS.beforeWindow,
      offTime: '2024-05-08T23:59:59.999Z',
      status: 'result',
      runners: resultRunners(),
      fieldSize: 3,
      winningTimeSeconds: 95.2,
    }),
  );
  m.addRace(
    makeRace({
      raceId: IDS.windowStart,
      offTime: '2024-05-09T00:00:00.000Z',
      status: 'result',
      runners: resultRunners(),
      fieldSize: 3,
      winningTimeSeconds: 101.04,
    }),
  );
  m.addRace(
    makeRace({
      raceId: IDS.yesterdayLate,
      offTime: '2024-05-09T15:30:00.000Z',
      status: 'result',
      runners: resultRunners(),
      fieldSize: 3,
      winningTimeSeconds: 99,
    }),
  );
  m.addRace(
    makeRace({
      raceId: IDS.newYork,
      offTime: '2024-05-10T01:00:00.000Z',
      meetingDate: '2024-05-09',
      courseId: 'crs_belmont',
      courseName: 'Belmont Park',
      country: 'USA',
      surface: 'aw',
      status: 'result',
      runners: resultRunners(),
      fieldSize: 3,
      winningTimeSeconds: 70.1,
    }),
  );
  // Same-day declared races: the same two runners, with a non-runner and a duplicate saddle cloth to test the tie-break.
  const declared = () => [
    makeRunner({ horseId: 'hrs_z', saddleCloth: 2 }),
    makeRunner({ horseId: 'hrs_y', saddleCloth: 2 }),
    makeRunner({ horseId: 'hrs_x', saddleCloth: 1, nonRunner: true }),
  ];
  m.addRace(makeRace({ raceId: IDS.tieB, offTime: '2024-05-10T14:00:00.000Z', runners: declared(), fieldSize: 2 }));
  m.addRace(makeRace({ raceId: IDS.tieA, offTime: '2024-05-10T14:00:00.000Z', runners: declared(), fieldSize: 2 }));
  m.addRace(
    makeRace({ raceId: IDS.windowEnd, offTime: '2024-05-11T23:59:59.999Z', runners: declared(), fieldSize: 2 }),
  );
  m.addRace(
    makeRace({ raceId: IDS.afterWindow, offTime: '2024-05-12T00:00:00.000Z', runners: declared(), fieldSize: 2 }),
  );

  for (const raceId of [IDS.beforeWindow, IDS.windowStart, IDS.yesterdayLate, IDS.newYork]) {
    const off = m.races.get(raceId)!.offTime;
    // Rows inserted out of horseId order on purpose.
    m.addRow(makeRow({ raceId, horseId: 'hrs_c', offTime: off, status: 'final', position: 2 }));
    m.addRow(
      makeRow({
        raceId,
        horseId: 'hrs_a',
        offTime: off,
        status: 'final',
        position: 1,
        sireId: null,
        courseTotalClimbM: null,
        courseUndulationIndex: null,
        courseElevationRangeM: null,
      }),
    );
    m.addRow(
      makeRow({
        raceId,
        horseId: 'hrs_b',
        offTime: off,
        status: 'final',
        position: 0,
        careerRuns: 0,
        careerWins: 0,
        lastRunDays: 730,
        distanceDifferenceY: -999,
        ratingDifference: -999,
        weightDifferenceLbs: -999,
        classDifference: -999,
      }),
    );
  }
  for (const raceId of [IDS.tieB, IDS.tieA, IDS.windowEnd, IDS.afterWindow]) {
    const off = m.races.get(raceId)!.offTime;
    m.addRow(makeRow({ raceId, horseId: 'hrs_z', offTime: off }));
    m.addRow(makeRow({ raceId, horseId: 'hrs_y', offTime: off }));
  }
  return m;
}
