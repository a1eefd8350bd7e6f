/**
 * The periods of course snapshots (features.md, courses.md): calendar months historically and days
 * once live. "Live" starts at a configured instant, the first day of a UTC month (`dailyFrom`), fixed
 * for a deployment so that replays are identical; periods tile time: months before it, days from it.
 *
 * A snapshot of a period covers every race of its key visible at the period's end. The snapshot in
 * force for a race is the one covering everything visible before the start of the race's own period;
 * it is the row of the latest period in which some race of the key became visible, because nothing
 * became visible between that period's end and the start of the race's period.
 */
import { MS_PER_DAY, startOfNextUtcMonth, startOfUtcDay, startOfUtcMonth } from '../time.js';

export interface SnapshotCalendar {
  /** first instant of daily periods (a UTC month start); +Infinity = monthly only */
  readonly dailyFrom: number;
}

export const MONTHLY_ONLY: SnapshotCalendar = { dailyFrom: Number.POSITIVE_INFINITY };

/** A calendar with daily periods from a UTC month start; throws otherwise. */
export function snapshotCalendar(dailyFrom?: number): SnapshotCalendar {
  if (dailyFrom === undefined || dailyFrom === Number.POSITIVE_INFINITY) return MONTHLY_ONLY;
  if (startOfUtcMonth(dailyFrom) !== dailyFrom) {
    throw new RangeError(
      `daily snapshots must start on the first day of a month, not ${new Date(dailyFrom).toISOString()}`,
    );
  }
  return { dailyFrom };
}

/** Start of the period holding instant t. */
export function periodStart(cal: SnapshotCalendar, t: number): number {
  return t >= cal.dailyFrom ? startOfUtcDay(t) : startOfUtcMonth(t);
}

/** End of the period starting at `start` (the start of the next one). */
export function periodEnd(cal: SnapshotCalendar, start: number): number {
  return start >= cal.dailyFrom ? start + MS_PER_DAY : startOfNextUtcMonth(start);
}

/** The instant the snapshot in force for a race off at `off` is taken at: the start of the off's period. */
export function inForceAt(cal: SnapshotCalendar, off: number): number {
  return periodStart(cal, off);
}

/** The period's name: YYYY-MM for a month, YYYY-MM-DD for a day. */
export function periodLabel(cal: SnapshotCalendar, start: number): string {
  const iso = new Date(start).toISOString();
  return start >= cal.dailyFrom ? iso.slice(0, 10) : iso.slice(0, 7);
}
