/**
 * Local racecourse time to UTC. Britain and Ireland use the GB-Eire summer-time rule written out
 * below (it is what the feed most depends on and the tests pin it); other zones ask the runtime's IANA
 * time-zone data through Intl, cached per zone and day so it costs nothing in the hot loop.
 */
import { MS_PER_DAY, MS_PER_MINUTE } from '../time.js';

export const UK_ZONE = 'Europe/London';
export const IRE_ZONE = 'Europe/Dublin';

/** Epoch ms of 01:00 UTC on the last Sunday of a month (month 1..12). */
function lastSundayAt0100Utc(year: number, month: number): number {
  const lastDay = new Date(Date.UTC(year, month, 0));
  const back = lastDay.getUTCDay(); // 0 = Sunday
  return Date.UTC(year, month - 1, lastDay.getUTCDate() - back, 1);
}

/** Epoch ms of 01:00 UTC on the first Sunday on or after a day of October. */
function octoberSundayOnOrAfter(year: number, day: number): number {
  const d = new Date(Date.UTC(year, 9, day));
  const ahead = (7 - d.getUTCDay()) % 7;
  return Date.UTC(year, 9, day + ahead, 1);
}

/**
 * British Summer Time (and Irish Standard Time, same instants) as in the tz database's GB-Eire rules:
 * starts on the last Sunday of March at 01:00 UTC; ends at 01:00 UTC on the Sunday on or after
 * 23 October (1981-1989) or 22 October (1990-1995), and on the last Sunday of October from 1996 (the
 * EU rule). Valid from 1981 on, which covers the generator's 1988 start.
 */
export function ukSummerTimeBounds(year: number): { start: number; end: number } {
  const start = lastSundayAt0100Utc(year, 3);
  let end: number;
  if (year >= 1996) end = lastSundayAt0100Utc(year, 10);
  else if (year >= 1990) end = octoberSundayOnOrAfter(year, 22);
  else end = octoberSundayOnOrAfter(year, 23);
  return { start, end };
}

/** UTC offset of UK/Irish civil time at an instant, in minutes (0 or 60). */
export function ukOffsetMinutes(utcMs: number): number {
  const { start, end } = ukSummerTimeBounds(new Date(utcMs).getUTCFullYear());
  return utcMs >= start && utcMs < end ? 60 : 0;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** UTC offset in minutes of an IANA zone at an instant, from the runtime's tz data. */
export function intlOffsetMinutes(zone: string, utcMs: number): number {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: zone, timeZoneName: 'longOffset' });
    formatters.set(zone, f);
  }
  const name = f.formatToParts(utcMs).find((p) => p.type === 'timeZoneName')?.value ?? 'GMT';
  const m = /^GMT(?:([+-])(\d{2}):(\d{2}))?$/.exec(name);
  if (!m || m[1] === undefined) return 0;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -minutes : minutes;
}

function offsetMinutes(zone: string, utcMs: number): number {
  return zone === UK_ZONE || zone === IRE_ZONE ? ukOffsetMinutes(utcMs) : intlOffsetMinutes(zone, utcMs);
}

/**
 * Converts a wall-clock time at a course (its zone, the local date as epoch-day number, minutes after
 * local midnight) to UTC epoch ms. Racing never runs inside the small hours where clocks change, so the
 * two-pass guess is exact for every time the generator produces.
 */
export function localToUtc(zone: string, epochDay: number, minuteOfDay: number): number {
  const wall = epochDay * MS_PER_DAY + minuteOfDay * MS_PER_MINUTE;
  let utc = wall - offsetMinutes(zone, wall) * MS_PER_MINUTE;
  utc = wall - offsetMinutes(zone, utc) * MS_PER_MINUTE;
  return utc;
}

/** Memoises localToUtc's zone offset per (zone, local day): a handful of Intl calls per day. */
export class ZoneClock {
  private day = Number.NaN;
  private readonly cache = new Map<string, number>();

  /** UTC epoch ms of `minuteOfDay` local time on local day `epochDay` at `zone`. */
  toUtc(zone: string, epochDay: number, minuteOfDay: number): number {
    if (epochDay !== this.day) {
      this.day = epochDay;
      this.cache.clear();
    }
    // The offset at local noon holds all afternoon and evening (no clock change between 02:00 and 24:00).
    let offset = this.cache.get(zone);
    if (offset === undefined) {
      const noonUtc = localToUtc(zone, epochDay, 12 * 60);
      offset = epochDay * MS_PER_DAY + 12 * 60 * MS_PER_MINUTE - noonUtc;
      this.cache.set(zone, offset);
    }
    return epochDay * MS_PER_DAY + minuteOfDay * MS_PER_MINUTE - offset;
  }
}
