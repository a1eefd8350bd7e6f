/**
 * The API's read model over a StorePort: races (latest card + result) with day and off-time indexes,
 * the current analytics rows, every course version and the current course snapshots. Written by the
 * view materialiser from the topics, read by the API.
 *
 * Keys: `race!`, `day!`, `off!`, `row!` (races and rows); `cv!<courseId>!<publishedAt>` every course
 * version (JSON), `cl!<courseId>` the latest version (JSON); `snap!<courseId>!<periodEnd>!<topic key>`
 * a snapshot row (JSON) and `sk!<topic key>` -> its `snap!` key (so a tombstone finds the row).
 */
import { compareCardVersions } from '../../domain/card-order.js';
import { compareResultVersions } from '../../domain/result-order.js';
import type { ViewEvent } from '../../domain/events.js';
import type {
  CourseInForce,
  CourseSnapshotPage,
  CourseSnapshotQuery,
  ReadModel,
  RaceDay,
  RaceDetail,
  RaceRunner,
  RaceSummary,
} from '../read-model-port.js';
import type { AnalyticsRow, Course, CourseSnapshot, RaceCard, RaceResult } from '../../domain/avro-types.generated.js';
import { endOfDay, snapshotKeyOf, surfacePeriodsInForce } from '../../domain/course-profile.js';
import { isoUtc } from '../../domain/time.js';
import type { BatchOp, StorePort } from '../store-port.js';
import { ChangeLog, type ChangeRetention, type RowChangeInput } from './change-log.js';

interface StoredRace {
  card: RaceCard | null;
  result: RaceResult | null;
}

const padMs = (ms: number) => String(ms).padStart(15, '0');

/**
 * The UTF-8 bytes of each text, as views of one buffer. A race's JSON is larger than Node's buffer pool
 * takes, so `Buffer.from` gave each its own ArrayBuffer: about 8% of a long replay's main thread went
 * into making them while the view caught up.
 */
function utf8All(texts: readonly string[]): Buffer[] {
  let total = 0;
  const lengths = texts.map((t) => {
    const n = Buffer.byteLength(t, 'utf8');
    total += n;
    return n;
  });
  const buf = Buffer.allocUnsafe(total);
  let at = 0;
  return texts.map((t, i) => {
    const n = lengths[i]!;
    buf.write(t, at, n, 'utf8');
    at += n;
    return buf.subarray(at - n, at);
  });
}

/** Decodes a stored row value (the analytics topic's own bytes, kept as they are). */
export type RowDecoder = (value: Buffer) => Promise<AnalyticsRow>;

export class LevelReadModel implements ReadModel {
  /** Bumped after every write is applied: the API's response cache keys on it. */
  #revision = 0;

  /** Every row change applied, in order, durable with the rows (state/read-model/change-log.ts). */
  readonly changes: ChangeLog;

  constructor(
    private readonly store: StorePort,
    private readonly decodeRow: RowDecoder,
    options: { retention?: ChangeRetention; clock?: () => number } = {},
  ) {
    this.changes = new ChangeLog(store, decodeRow, options.retention, options.clock);
  }

  // ---- writes (view materialiser) ----

  /**
   * Applies a batch of events atomically; later events of the same race win by rule (newer card,
   * newer result). Rows are stored as the topic's bytes and decoded when read.
   */
  async apply(events: readonly (ViewEvent & { source?: RowChangeInput['source'] })[]): Promise<void> {
    const races = new Map<string, StoredRace>();
    const before = new Map<string, RaceCard | null>();
    const ids = [...new Set(events.flatMap((e) => (e.kind === 'card' || e.kind === 'result' ? [e.value.raceId] : [])))];
    const stored = await this.store.getMany(ids.map((id) => `race!${id}`));
    ids.forEach((id, i) => {
      const buf = stored[i];
      const r: StoredRace = buf ? (JSON.parse(buf.toString()) as StoredRace) : { card: null, result: null };
      races.set(id, r);
      before.set(id, r.card);
    });
    const load = (raceId: string): StoredRace => races.get(raceId)!;
    const ops: BatchOp[] = [];
    for (const e of events) {
      if (e.kind === 'card') {
        const r = load(e.value.raceId);
        const c = r.card;
        if (!c || compareCardVersions(e.value, c) > 0) {
          r.card = e.value;
        }
      } else if (e.kind === 'result') {
        const r = load(e.value.raceId);
        if (!r.result || compareResultVersions(e.value, r.result) > 0) r.result = e.value;
      } else if (e.kind === 'row') {
        const [raceId, horseId] = e.key.split(':') as [string, string];
        const key = `row!${raceId}!${horseId}`;
        ops.push(e.value ? { type: 'put', key, value: e.value } : { type: 'del', key });
      }
    }
    ops.push(...(await this.courseOps(events)), ...(await this.snapshotOps(events)));
    const raceValues = utf8All([...races.values()].map((r) => JSON.stringify(r)));
    let at = 0;
    for (const [raceId, r] of races) {
      ops.push({ type: 'put', key: `race!${raceId}`, value: raceValues[at++]! });
      const old = before.get(raceId);
      if (old && r.card && (old.meetingDate !== r.card.meetingDate || old.offTime !== r.card.offTime)) {
        ops.push({ type: 'del', key: `day!${old.meetingDate}!${padMs(old.offTime)}!${raceId}` });
        ops.push({ type: 'del', key: `off!${padMs(old.offTime)}!${raceId}` });
      }
      if (r.card) {
        ops.push({
          type: 'put',
          key: `day!${r.card.meetingDate}!${padMs(r.card.offTime)}!${raceId}`,
          value: Buffer.alloc(0),
        });
        ops.push({ type: 'put', key: `off!${padMs(r.card.offTime)}!${raceId}`, value: Buffer.alloc(0) });
      }
    }
    const rows = events.flatMap((e): RowChangeInput[] => (e.kind === 'row' ? [e] : []));
    // The row changes go in the same batch as the rows; subscribers hear of them once they are readable.
    await this.changes.record(
      rows,
      (ids) => this.meetingDates(ids, races),
      async (changeOps) => {
        if (changeOps.length > 0) ops.push(...changeOps);
        if (ops.length > 0) await this.store.batch(ops);
        this.#revision++;
      },
    );
  }

  /** Meeting date of each race: from the batch's own cards first, else as stored. */
  private async meetingDates(
    ids: readonly string[],
    races: ReadonlyMap<string, StoredRace>,
  ): Promise<Map<string, string | null>> {
    const dates = new Map<string, string | null>();
    const missing = ids.filter((id) => !races.has(id));
    const stored = missing.length > 0 ? await this.store.getMany(missing.map((id) => `race!${id}`)) : [];
    missing.forEach((id, i) => {
      const buf = stored[i];
      dates.set(id, buf ? ((JSON.parse(buf.toString()) as StoredRace).card?.meetingDate ?? null) : null);
    });
    for (const id of ids) if (races.has(id)) dates.set(id, races.get(id)!.card?.meetingDate ?? null);
    return dates;
  }

  /**
   * Course versions: one per (courseId, publishedAt); of two versions published at the same instant the
   * one with the greater JSON text is kept (the engine's rule), so the result does not depend on arrival
   * order. `cl!` follows the latest.
   */
  private async courseOps(events: readonly ViewEvent[]): Promise<BatchOp[]> {
    const courses = events.flatMap((e) => (e.kind === 'course' ? [e.value] : []));
    if (courses.length === 0) return [];
    const texts = new Map<string, string | undefined>();
    const load = async (key: string): Promise<string | undefined> => {
      if (!texts.has(key)) texts.set(key, (await this.store.get(key))?.toString());
      return texts.get(key);
    };
    for (const c of courses) {
      const text = JSON.stringify(c);
      const versionKey = `cv!${c.courseId}!${padMs(c.publishedAt)}`;
      const same = await load(versionKey);
      if (same === undefined || text > same) texts.set(versionKey, text);
      const latestKey = `cl!${c.courseId}`;
      const latest = await load(latestKey);
      const l = latest === undefined ? undefined : (JSON.parse(latest) as Course);
      if (!l || c.publishedAt > l.publishedAt || (c.publishedAt === l.publishedAt && text > latest!))
        texts.set(latestKey, text);
    }
    return [...texts].flatMap(([key, text]): BatchOp[] =>
      text === undefined ? [] : [{ type: 'put', key, value: Buffer.from(text) }],
    );
  }

  /** Snapshot rows by topic key: a later row replaces (and moves) the earlier, a tombstone deletes it. */
  private async snapshotOps(events: readonly ViewEvent[]): Promise<BatchOp[]> {
    const snaps = events.flatMap((e) => (e.kind === 'snapshot' ? [e] : []));
    if (snaps.length === 0) return [];
    const keys = [...new Set(snaps.map((e) => e.key))];
    const stored = await this.store.getMany(keys.map((k) => `sk!${k}`));
    /** topic key -> its row's store key now (undefined: none) */
    const where = new Map(keys.map((k, i) => [k, stored[i]?.toString()]));
    /** store key -> value to write, or null to delete */
    const writes = new Map<string, Buffer | null>();
    for (const e of snaps) {
      const old = where.get(e.key);
      if (old !== undefined) writes.set(old, null);
      if (e.value) {
        const at = `snap!${e.value.courseId}!${padMs(Date.parse(e.value.periodEndUtc))}!${snapshotKeyOf(e.value)}`;
        writes.set(at, Buffer.from(JSON.stringify(e.value)));
        writes.set(`sk!${e.key}`, Buffer.from(at));
        where.set(e.key, at);
      } else {
        writes.set(`sk!${e.key}`, null);
        where.set(e.key, undefined);
      }
    }
    return [...writes].map(([key, value]): BatchOp => (value ? { type: 'put', key, value } : { type: 'del', key }));
  }

  /** Drops everything (before a rebuild). */
  async clear(): Promise<void> {
    await this.store.clear();
    await this.changes.reset();
    this.#revision++;
  }

  revision(): number {
    return this.#revision;
  }

  // ---- reads (API) ----

  async raceDays(from: string, to: string): Promise<RaceDay[]> {
    const counts = new Map<string, number>();
    for await (const [k] of this.store.entries({ gte: `day!${from}!`, lt: `day!${to}!~` })) {
      const date = k.slice(4, 14);
      counts.set(date, (counts.get(date) ?? 0) + 1);
    }
    return [...counts].map(([date, races]) => ({ date, races }));
  }

  async racesOn(date: string): Promise<RaceSummary[]> {
    const ids: string[] = [];
    for await (const [k] of this.store.entries({ gte: `day!${date}!`, lt: `day!${date}!~` }))
      ids.push(k.slice(k.lastIndexOf('!') + 1));
    return this.summaries(ids);
  }

  async racesOffBetween(fromMs: number, toMs: number): Promise<RaceSummary[]> {
    const ids: string[] = [];
    for await (const [k] of this.store.entries({ gte: `off!${padMs(fromMs)}!`, lt: `off!${padMs(toMs)}!` })) {
      ids.push(k.slice(k.lastIndexOf('!') + 1));
    }
    return this.summaries(ids);
  }

  async race(raceId: string): Promise<RaceDetail | undefined> {
    const buf = await this.store.get(`race!${raceId}`);
    if (!buf) return undefined;
    const r = JSON.parse(buf.toString()) as StoredRace;
    return r.card ? toDetail(r.card, r.result) : undefined;
  }

  async analytics(raceId: string): Promise<AnalyticsRow[] | undefined> {
    const race = await this.store.get(`race!${raceId}`);
    if (!race || !(JSON.parse(race.toString()) as StoredRace).card) return undefined;
    const rows: AnalyticsRow[] = [];
    for await (const [, v] of this.store.entries({ gte: `row!${raceId}!`, lt: `row!${raceId}!~` })) {
      rows.push(await this.decodeRow(v));
    }
    return rows;
  }

  async *allAnalytics(): AsyncIterable<AnalyticsRow> {
    for await (const [, v] of this.store.entries({ gte: 'row!', lt: 'row!~' })) yield await this.decodeRow(v);
  }

  async demoDate(today: string): Promise<string | undefined> {
    let checked = 0;
    let candidate: string | undefined;
    let allResulted = true;
    for await (const [k] of this.store.entries({ gte: 'day!', lt: `day!${today}!~`, reverse: true })) {
      const date = k.slice(4, 14);
      if (date !== candidate) {
        if (candidate !== undefined && allResulted) return candidate;
        if (++checked > 30) return undefined;
        candidate = date;
        allResulted = true;
      }
      if (!allResulted) continue;
      const buf = await this.store.get(`race!${k.slice(k.lastIndexOf('!') + 1)}`);
      if (!buf || !(JSON.parse(buf.toString()) as StoredRace).result) allResulted = false;
    }
    return candidate !== undefined && allResulted ? candidate : undefined;
  }

  async courses(): Promise<Course[]> {
    const out: Course[] = [];
    for await (const [, v] of this.store.entries({ gte: 'cl!', lt: 'cl!~' }))
      out.push(JSON.parse(v.toString()) as Course);
    return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.courseId < b.courseId ? -1 : 1));
  }

  async course(courseId: string, asOf: string): Promise<CourseInForce | undefined> {
    const prefix = `cv!${courseId}!`;
    let version: Course | undefined;
    const before = { gte: prefix, lt: `${prefix}${padMs(endOfDay(asOf))}`, reverse: true, limit: 1 };
    for await (const [, v] of this.store.entries(before)) version = JSON.parse(v.toString()) as Course;
    if (!version) {
      // Every version was published after asOf: the course as first published.
      for await (const [, v] of this.store.entries({ gte: prefix, lt: `${prefix}~`, limit: 1 }))
        version = JSON.parse(v.toString()) as Course;
    }
    if (!version) return undefined;
    return { version, surfaceInForce: surfacePeriodsInForce(version.surfaceHistory, asOf) };
  }

  async courseSnapshots(courseId: string, q: CourseSnapshotQuery): Promise<CourseSnapshotPage> {
    const prefix = `snap!${courseId}!`;
    let gte = `${prefix}${padMs(q.fromPeriodEnd)}!`;
    let skip: string | undefined;
    if (q.after) {
      const at = `${prefix}${padMs(q.after.periodEnd)}!${q.after.key}`;
      if (at >= gte) {
        gte = at;
        skip = at;
      }
    }
    const snapshots: CourseSnapshot[] = [];
    for await (const [k, v] of this.store.entries({ gte, lt: `${prefix}${padMs(q.toPeriodEnd)}!~` })) {
      if (k === skip) continue;
      const s = JSON.parse(v.toString()) as CourseSnapshot;
      if (q.discipline !== undefined && s.discipline !== q.discipline) continue;
      if (q.distanceBucket !== undefined && s.distanceBucket !== q.distanceBucket) continue;
      if (q.surface !== undefined && s.surface !== q.surface) continue;
      if (snapshots.length === q.limit) return { snapshots, hasMore: true };
      snapshots.push(s);
    }
    return { snapshots, hasMore: false };
  }

  private async summaries(ids: string[]): Promise<RaceSummary[]> {
    const bufs = await this.store.getMany(ids.map((id) => `race!${id}`));
    const out: RaceSummary[] = [];
    for (const b of bufs) {
      if (!b) continue;
      const r = JSON.parse(b.toString()) as StoredRace;
      if (r.card) out.push(toSummary(r.card, r.result));
    }
    return out;
  }
}

function toSummary(c: RaceCard, result: RaceResult | null): RaceSummary {
  return {
    raceId: c.raceId,
    courseId: c.courseId,
    courseName: c.courseName,
    country: c.country,
    offTime: isoUtc(c.offTime),
    meetingDate: c.meetingDate,
    raceName: c.raceName,
    discipline: c.discipline,
    surface: c.surface,
    distanceYards: c.distanceYards,
    going: c.going,
    raceClass: c.raceClass,
    fieldSize: c.runners.filter((r) => !r.nonRunner).length,
    cardVersion: c.version,
    status: result ? 'result' : 'declared',
  };
}

function toDetail(c: RaceCard, result: RaceResult | null): RaceDetail {
  const res = new Map((result?.runners ?? []).map((r) => [r.horseId, r]));
  const runners: RaceRunner[] = c.runners.map((r) => {
    const x = res.get(r.horseId);
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
      position: x ? x.position : null,
      resultStatus: x ? x.status : null,
      beatenLengths: x ? x.beatenLengths : null,
      startingPrice: x ? x.startingPrice : null,
      favourite: x ? x.favourite : null,
    };
  });
  runners.sort((a, b) => a.saddleCloth - b.saddleCloth || (a.horseId < b.horseId ? -1 : 1));
  return { ...toSummary(c, result), winningTimeSeconds: result?.winningTimeSeconds ?? null, runners };
}
