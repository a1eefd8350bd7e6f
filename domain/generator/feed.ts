/**
 * The day loop: meetings are generated one local date at a time and their events held in a small
 * window until nothing generated later can precede them, then released in feed order. Memory is the
 * window (about three days of events) plus the living population.
 */
import { COURSE_LEAD_DAYS, courseChangeDates, courseRecord } from '../course-records.js';
import { COURSES } from '../courses.js';
import { MS_PER_DAY, parseDate } from '../time.js';
import { Horses } from './horses.js';
import { runMeeting, type World } from './meeting.js';
import { Dams, Owners } from './owners.js';
import { People } from './people.js';
import { hashString, Rng } from './prng.js';
import { dayInfo, meetingsOn } from './schedule.js';
import { compareFeedEvents, type FeedEvent, type GenerateOptions } from './types.js';
import { ZoneClock } from './zones.js';

export interface ResolvedOptions {
  readonly fromDay: number;
  readonly toDay: number;
  readonly seed: number;
  readonly scale: number;
}

export function resolveOptions(o: GenerateOptions): ResolvedOptions {
  const from = parseDate(o.from);
  const to = parseDate(o.to);
  if (from === undefined) throw new RangeError(`from is not a YYYY-MM-DD date: ${o.from}`);
  if (to === undefined) throw new RangeError(`to is not a YYYY-MM-DD date: ${o.to}`);
  if (to < from) throw new RangeError(`to (${o.to}) is before from (${o.from})`);
  const seed = o.seed ?? 1;
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be an integer: ${seed}`);
  const scale = o.scale ?? 1;
  if (!(scale > 0 && scale <= 10)) throw new RangeError(`scale must be in (0, 10]: ${scale}`);
  return { fromDay: from / MS_PER_DAY, toDay: to / MS_PER_DAY, seed, scale };
}

/**
 * Course versions (docs/courses.md "Versions"): when a course's racing (re)starts in the range, and on
 * each later change of its record (a surface period starts, a sibling track opens). Each is published
 * at 00:00 UTC COURSE_LEAD_DAYS before its date, so it precedes every card it applies to, and carries
 * the course's demo topology.
 */
function courseEvents(fromDay: number, toDay: number): Map<number, FeedEvent[]> {
  const byDay = new Map<number, FeedEvent[]>();
  for (const c of COURSES) {
    const days = new Set<number>();
    for (const [openFrom, openTo] of c.open) {
      const start = parseDate(openFrom)! / MS_PER_DAY;
      const end = openTo === null ? Number.POSITIVE_INFINITY : parseDate(openTo)! / MS_PER_DAY;
      if (end >= fromDay && start <= toDay) days.add(Math.max(start, fromDay));
    }
    if (days.size === 0) continue;
    const first = Math.min(...days);
    for (const date of courseChangeDates(c)) {
      const day = parseDate(date)! / MS_PER_DAY;
      if (day > first && day <= toDay) days.add(day);
    }
    for (const day of days) {
      const publishedAt = (day - COURSE_LEAD_DAYS) * MS_PER_DAY;
      const list = byDay.get(day) ?? [];
      list.push({ kind: 'course', publishedAt, value: courseRecord(c, dayInfo(day).date, publishedAt) });
      byDay.set(day, list);
    }
  }
  return byDay;
}

/** Merges two lists already in feed order. */
function merge(a: FeedEvent[], b: FeedEvent[]): FeedEvent[] {
  if (a.length === 0) return b;
  const out: FeedEvent[] = new Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) out[k++] = compareFeedEvents(a[i]!, b[j]!) <= 0 ? a[i++]! : b[j++]!;
  while (i < a.length) out[k++] = a[i++]!;
  while (j < b.length) out[k++] = b[j++]!;
  return out;
}

/** Internal counters, for the summary. */
export interface PopulationStats {
  horsesCreated: number;
  warmStartHorses: number;
  horsesInTraining: number;
  meetings: number;
  shortFields: number;
  lateWarmStarts: number;
}

export class FeedGenerator {
  private readonly world: World;
  private readonly opts: ResolvedOptions;

  constructor(options: GenerateOptions) {
    this.opts = resolveOptions(options);
    const rng = new Rng(this.opts.seed, hashString('racing-generator'));
    const year = dayInfo(this.opts.fromDay).year;
    const people = new People(rng, this.opts.seed, this.opts.scale, year);
    // Sex, headgear, owners and dams draw from their own stream: the racing is the same with or without them.
    const attrRng = new Rng(this.opts.seed, hashString('racing-generator:attributes'));
    const owners = new Owners(attrRng, this.opts.seed, this.opts.scale, year);
    const dams = new Dams(attrRng, people, this.opts.seed, this.opts.scale);
    this.world = {
      rng,
      people,
      owners,
      horses: new Horses(rng, people, this.opts.seed, { rng: attrRng, owners, dams }),
      clock: new ZoneClock(),
      warmUntil: this.opts.fromDay + 365,
      meetings: 0,
      shortFields: 0,
      lateWarmStarts: 0,
    };
  }

  stats(): PopulationStats {
    const h = this.world.horses;
    return {
      horsesCreated: h.created,
      warmStartHorses: h.warmCreated,
      horsesInTraining: h.size,
      meetings: this.world.meetings,
      shortFields: this.world.shortFields,
      lateWarmStarts: this.world.lateWarmStarts,
    };
  }

  *events(): Generator<FeedEvent> {
    const { fromDay, toDay, scale } = this.opts;
    const w = this.world;
    const courses = courseEvents(fromDay, toDay);
    let pending: FeedEvent[] = [];
    let year = dayInfo(fromDay).year;
    for (let day = fromDay; day <= toDay; day++) {
      const d = dayInfo(day);
      if (d.year !== year) {
        year = d.year;
        w.people.newYear(year);
        w.owners.newYear(year);
        w.horses.newYear(year, day);
      }
      w.horses.wake(day, year);
      const fresh: FeedEvent[] = courses.get(day) ?? [];
      for (const m of meetingsOn(w.rng, day, scale)) runMeeting(w, m, d, fresh);
      if (fresh.length > 0) pending = merge(pending, fresh.sort(compareFeedEvents));
      // Nothing generated for a later day is published before (day - 2) 00:00 UTC.
      const watermark = (day - 2) * MS_PER_DAY;
      let k = 0;
      while (k < pending.length && pending[k]!.publishedAt < watermark) yield pending[k++]!;
      if (k > 0) pending = pending.slice(k);
    }
    yield* pending;
  }
}
