/** Time helpers. All instants are UTC epoch milliseconds; dates are `YYYY-MM-DD` strings. */

export const MS_PER_DAY = 86_400_000;
export const MS_PER_MINUTE = 60_000;

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Parses a `YYYY-MM-DD` calendar date (UTC midnight); undefined if malformed or not a real date. */
export function parseDate(s: string): number | undefined {
  const m = DATE_RE.exec(s);
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  const t = Date.UTC(y, mo - 1, d);
  const back = new Date(t);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined;
  return t;
}

/** `YYYY-MM-DD` of an instant, in UTC. */
export function utcDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/** ISO 8601 UTC with milliseconds, e.g. 2024-03-01T13:45:00.000Z. */
export function isoUtc(ms: number): string {
  return new Date(ms).toISOString();
}

/** UTC midnight of the instant's day. */
export function startOfUtcDay(ms: number): number {
  return Math.floor(ms / MS_PER_DAY) * MS_PER_DAY;
}

/** Whole calendar days between the UTC dates of two instants (b - a). */
export function utcDaysBetween(a: number, b: number): number {
  return Math.round((startOfUtcDay(b) - startOfUtcDay(a)) / MS_PER_DAY);
}

/**
 * The UTC calendar month holding a day number (days since 1970-01-01): its month number (months since
 * January of year 0: year * 12 + month, January = 0) and the day number of its first day. Civil-from-days
 * on integers, with years run from March 1 so that the leap day is a year's last (H. Hinnant,
 * "chrono-Compatible Low-Level Date Algorithms"); with `firstDayOfMonth`, its inverse, the month and year
 * starts below take no Date object (the entity indexes ask for them at every change and many queries).
 * The answer is one shared object, read at once by its callers.
 */
function monthOfDay(days: number): { month: number; firstDay: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1_460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153); // months since March
  // January and February (mp 10, 11) belong to the calendar year after the March-based one
  MONTH.month = (era * 400 + yoe + (mp >= 10 ? 1 : 0)) * 12 + (mp < 10 ? mp + 2 : mp - 10);
  MONTH.firstDay = days - doy + Math.floor((153 * mp + 2) / 5);
  return MONTH;
}
const MONTH = { month: 0, firstDay: 0 };

/** The day number of the first day of a month number (`monthOfDay`'s): days-from-civil on integers. */
function firstDayOfMonth(month: number): number {
  const m = month - 12 * Math.floor(month / 12); // 0 = January
  const mp = m >= 2 ? m - 2 : m + 10; // months since March
  const y = (month - m) / 12 - (m < 2 ? 1 : 0); // the March-based year
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * mp + 2) / 5);
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}

/** The month number (`monthOfDay`'s) of the UTC calendar month containing `ms`. */
function monthOf(ms: number): number {
  return monthOfDay(Math.floor(ms / MS_PER_DAY)).month;
}

/** The month number of January of the year holding month number `month`. */
function januaryOf(month: number): number {
  return 12 * Math.floor(month / 12);
}

/** First instant of the UTC calendar month containing `ms` (a finite instant). */
export function startOfUtcMonth(ms: number): number {
  return monthOfDay(Math.floor(ms / MS_PER_DAY)).firstDay * MS_PER_DAY;
}

/** First instant of the UTC calendar year containing `ms` (a finite instant). */
export function startOfUtcYear(ms: number): number {
  return firstDayOfMonth(januaryOf(monthOf(ms))) * MS_PER_DAY;
}

/** First instant of the UTC calendar month after the one containing `ms` (a finite instant). */
export function startOfNextUtcMonth(ms: number): number {
  return firstDayOfMonth(monthOf(ms) + 1) * MS_PER_DAY;
}

/** First instant of the UTC calendar year after the one containing `ms` (a finite instant). */
export function startOfNextUtcYear(ms: number): number {
  return firstDayOfMonth(januaryOf(monthOf(ms)) + 12) * MS_PER_DAY;
}

/** Adds whole days to a `YYYY-MM-DD` date. */
export function addDays(date: string, days: number): string {
  const t = parseDate(date);
  if (t === undefined) throw new RangeError(`not a date: ${date}`);
  return utcDate(t + days * MS_PER_DAY);
}

/** Today's UTC date for a clock. */
export function todayUtc(now: number = Date.now()): string {
  return utcDate(now);
}

/** Waits `ms`, or less when the signal aborts (resolves either way: a backoff that shutdown cuts short). */
export function abortableDelay(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
