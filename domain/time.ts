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
 * For a day number (days since 1970-01-01): its year and its day in that year, where years run from
 * March 1 (so the leap day is a year's last); the civil-from-days algorithm on integers (H. Hinnant,
 * "chrono-Compatible Low-Level Date Algorithms"). The month and year starts below are computed from it
 * without a Date object: the entity indexes ask for them at every change and many queries. The answer is
 * one shared object, read at once by its callers.
 */
function marchYear(days: number): { y: number; doy: number } {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1_460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  MARCH.y = era * 400 + yoe;
  MARCH.doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  return MARCH;
}
const MARCH = { y: 0, doy: 0 };

/** First instant of the UTC calendar month containing `ms` (a finite instant). */
export function startOfUtcMonth(ms: number): number {
  const days = Math.floor(ms / MS_PER_DAY);
  const { doy } = marchYear(days);
  const mp = Math.floor((5 * doy + 2) / 153); // months since March
  return (days - (doy - Math.floor((153 * mp + 2) / 5))) * MS_PER_DAY;
}

/** First instant of the UTC calendar year containing `ms` (a finite instant). */
export function startOfUtcYear(ms: number): number {
  const { y, doy } = marchYear(Math.floor(ms / MS_PER_DAY));
  // January and February (days 306.. of a March-based year) belong to the next calendar year
  const year = doy >= 306 ? y + 1 : y;
  // January 1 is day 306 of the March-based year before it
  const p = year - 1;
  const era = Math.floor(p / 400);
  const yoe = p - era * 400;
  return (era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + 306 - 719_468) * MS_PER_DAY;
}

/** First instant of the UTC calendar month after the one containing `ms` (32 days after its start is in it). */
export function startOfNextUtcMonth(ms: number): number {
  return startOfUtcMonth(startOfUtcMonth(ms) + 32 * MS_PER_DAY);
}

/** First instant of the UTC calendar year after the one containing `ms` (366 days after its start is in it). */
export function startOfNextUtcYear(ms: number): number {
  return startOfUtcYear(startOfUtcYear(ms) + 366 * MS_PER_DAY);
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
