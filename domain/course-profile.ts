/**
 * Pure rules of the course read model and endpoints (docs/courses.md "Endpoints"): which version of a
 * course is in force on a date, which surface periods are in force, how topology is labelled, and the
 * snapshot topic key and period end of a snapshot row.
 */
import type { Course, CourseSnapshot, CourseTopology, SurfacePeriod } from './avro-types.generated.js';
import { MS_PER_DAY, parseDate } from './time.js';

/**
 * Order of course versions: publishedAt, then the JSON text (the analytics engine's rule for versions
 * published at the same instant, streams/processors/engine-state.ts), so the version in force never
 * depends on arrival order.
 */
export function compareCourseVersions(a: Course, b: Course): number {
  if (a.publishedAt !== b.publishedAt) return a.publishedAt - b.publishedAt;
  const ta = JSON.stringify(a);
  const tb = JSON.stringify(b);
  return ta < tb ? -1 : ta > tb ? 1 : 0;
}

/** The instant a version must be published before to be in force on `asOf`: the start of the next UTC day. */
export function endOfDay(asOf: string): number {
  const t = parseDate(asOf);
  if (t === undefined) throw new RangeError(`not a YYYY-MM-DD date: ${asOf}`);
  return t + MS_PER_DAY;
}

/**
 * The surface periods in force on `asOf`: for each surface (turf, aw), the latest entry of the history
 * whose `from` is on or before `asOf` (a course racing on turf and AW side by side has one of each),
 * ordered by surface. [] when `asOf` is before every entry. Entries of one surface on the same day: the
 * later one in the (ascending) history.
 */
export function surfacePeriodsInForce(history: readonly SurfacePeriod[], asOf: string): SurfacePeriod[] {
  const bySurface = new Map<string, SurfacePeriod>();
  for (const p of history) {
    if (p.from > asOf) continue;
    const current = bySurface.get(p.surface);
    if (!current || p.from >= current.from) bySurface.set(p.surface, p);
  }
  return [...bySurface.values()]
    .sort((a, b) => (a.surface < b.surface ? -1 : a.surface > b.surface ? 1 : 0))
    .map((p) => ({ from: p.from, surface: p.surface, description: p.description }));
}

/** How a topology block may be presented: measured from real data, generated, or absent. */
export type TopologyKind = 'measured' | 'generated';

/**
 * 'measured' only when the block has provenance and neither its geometry nor its elevation is
 * generated; a block without provenance cannot be shown to be measured and counts as generated (so
 * generated data is never presented as measured). null without a block.
 */
export function topologyKind(t: CourseTopology | null): TopologyKind | null {
  if (t === null) return null;
  const p = t.provenance;
  if (p === null || p.geometrySource === 'generated' || p.elevationSource === 'generated') return 'generated';
  return 'measured';
}

/** The API's surface kind: the record's `mixed` (turf and AW) is `both`. */
export function apiSurfaceKind(kind: string): 'turf' | 'aw' | 'both' {
  return kind === 'mixed' ? 'both' : kind === 'aw' ? 'aw' : 'turf';
}

/** The topic key of a snapshot row: courseId:period:discipline:distanceBucket:surface. */
export function snapshotKeyOf(s: CourseSnapshot): string {
  return `${s.courseId}:${s.period}:${s.discipline}:${s.distanceBucket}:${s.surface}`;
}

const MONTH_RE = /^([0-9]{4})-([0-9]{2})$/;
const DAY_RE = /^([0-9]{4})-([0-9]{2})-([0-9]{2})$/;

/**
 * The end (exclusive, epoch ms) of a period named `YYYY-MM` (a month: the first instant of the next
 * month) or `YYYY-MM-DD` (a day: the next midnight), as snapshot-calendar.ts ends them. Calendar
 * overflow rolls over (2024-02-30 ends on 2024-03-02); undefined for any other shape.
 */
export function periodEndOfLabel(period: string): number | undefined {
  const m = MONTH_RE.exec(period);
  if (m) return Date.UTC(Number(m[1]), Number(m[2]), 1);
  const d = DAY_RE.exec(period);
  if (d) return Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3]) + 1);
  return undefined;
}
