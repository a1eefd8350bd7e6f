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

/** First instant of the UTC calendar month containing `ms`. */
export function startOfUtcMonth(ms: number): number {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
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
