/**
 * UK civil time (Europe/London) to UTC, written out so the importer needs no time-zone data and gives
 * the same answer on every machine.
 *
 * British Summer Time (UTC+1) runs from 01:00 UTC on the last Sunday of March to 01:00 UTC on the last
 * Sunday of October (the EU/UK rule in force since 1996, which covers every file the importer reads).
 * Outside that window the clock is GMT (UTC+0).
 */

const MS_PER_HOUR = 3_600_000;

/** Day of the month (1..31) of the last Sunday of a month; `month` is 1..12. */
export function lastSundayOfMonth(year: number, month: number): number {
  const lastDay = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const weekday = new Date(Date.UTC(year, month - 1, lastDay)).getUTCDay(); // 0 = Sunday
  return lastDay - weekday;
}

/** The UTC instants at which BST starts and ends in `year`. */
export function bstWindow(year: number): { start: number; end: number } {
  return {
    start: Date.UTC(year, 2, lastSundayOfMonth(year, 3), 1),
    end: Date.UTC(year, 9, lastSundayOfMonth(year, 10), 1),
  };
}

/** True when the UTC instant falls in British Summer Time. */
export function isBst(utcMs: number): boolean {
  const { start, end } = bstWindow(new Date(utcMs).getUTCFullYear());
  return utcMs >= start && utcMs < end;
}

/**
 * UTC epoch ms of a UK wall-clock time (month 1..12).
 *
 * - The hour that does not exist in spring (01:00-01:59 local on the last Sunday of March) is read as
 *   GMT, i.e. as if the clocks had not yet gone forward: 01:30 gives 01:30 UTC (= 02:30 BST).
 * - The hour that occurs twice in autumn (01:00-01:59 local on the last Sunday of October) resolves to
 *   its first occurrence, in BST: 01:30 gives 00:30 UTC.
 */
export function ukLocalToUtc(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second = 0,
): number {
  const wall = Date.UTC(year, month - 1, day, hour, minute, second);
  const { start, end } = bstWindow(year);
  const asBst = wall - MS_PER_HOUR;
  if (asBst >= start && asBst < end) return asBst; // includes the first of the repeated autumn hour
  return wall; // GMT, and the skipped spring hour read as GMT
}

export interface UkOff {
  /** the UK local date, YYYY-MM-DD */
  localDate: string;
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const OFF_RE = /^(\d{1,2})\/(\d{1,2})\/(\d{4}) (\d{1,2}):(\d{2})(?::(\d{2}))?$/;

/** Parses the files' `MM/dd/yyyy HH:mm:ss` off time; undefined when malformed or not a real date/time. */
export function parseUkOff(text: string): UkOff | undefined {
  const m = OFF_RE.exec(text.trim());
  if (!m) return undefined;
  const month = Number(m[1]);
  const day = Number(m[2]);
  const year = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = m[6] === undefined ? 0 : Number(m[6]);
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59 || year < 1900) return undefined;
  const d = new Date(Date.UTC(year, month - 1, day));
  if (d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day) return undefined;
  const pad = (n: number) => String(n).padStart(2, '0');
  return { localDate: `${year}-${pad(month)}-${pad(day)}`, year, month, day, hour, minute, second };
}

/** UTC epoch ms of a parsed UK off. */
export function ukOffToUtc(off: UkOff): number {
  return ukLocalToUtc(off.year, off.month, off.day, off.hour, off.minute, off.second);
}
