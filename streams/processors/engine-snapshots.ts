/**
 * Course snapshots on their topic (features.md, courses.md): for every course snapshot key whose races
 * changed since the last flush, the snapshot row of each period from the earliest change on in which
 * some race of the key became visible (monthly; daily once live). The rows hold exactly what the
 * analytics rows join: a row names its snapshot by period (`snapshotPeriod`), and the snapshot of that
 * period is the one in force at its off (snapshot-calendar.ts).
 */
import type { CourseSnapshot } from '../../domain/avro-types.generated.js';
import { COURSE_SNAPSHOT } from '../../domain/features/entity-table.js';
import { periodEnd, periodLabel, periodStart, type SnapshotCalendar } from '../../domain/features/snapshot-calendar.js';
import { snapshotAt } from '../../domain/features/snapshot-fields.js';
import { isoUtc } from '../../domain/time.js';
import type { EngineState } from './engine-state.js';

export interface SnapshotOutput {
  /** courseId:period:discipline:distanceBucket:surface */
  key: string;
  /** null = tombstone (no race of the key became visible in that period any more) */
  snapshot: CourseSnapshot | null;
  /** event time: the latest visibleAt the snapshot covers (or of the change that removed it) */
  timestamp: number;
}

/** The topic key of a snapshot row. */
export function snapshotTopicKey(courseKey: string, period: string): string {
  const [courseId, discipline, bucket, surface] = courseKey.split('|');
  return `${courseId}:${period}:${discipline}:${bucket}:${surface}`;
}

export class SnapshotEmitter {
  /** course snapshot key -> the earliest visibleAt of a race added or removed since the last flush */
  private readonly dirty = new Map<string, number>();

  constructor(
    private readonly state: EngineState,
    private readonly cal: SnapshotCalendar,
  ) {}

  /** A race of the key became (or stopped being) visible at `visibleAt`. */
  note(courseKey: string, visibleAt: number): void {
    const prev = this.dirty.get(courseKey);
    if (prev === undefined || visibleAt < prev) this.dirty.set(courseKey, visibleAt);
  }

  /**
   * Every period of every key is to be emitted again at the next flush (a takeover: the keys of the
   * partitions gained were emitted by another instance, or by none before this one joined).
   */
  noteAll(courseKeys: Iterable<string>): void {
    for (const k of courseKeys) this.dirty.set(k, Number.NEGATIVE_INFINITY);
  }

  /**
   * The snapshot rows (and tombstones) of every changed period; with `owns`, only keys this instance
   * owns (the others are emitted by their owner, which sees the same input; see noteAll for a takeover).
   */
  async flush(owns?: (topicKey: string) => boolean): Promise<SnapshotOutput[]> {
    const out: SnapshotOutput[] = [];
    const dirty = [...this.dirty].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.dirty.clear();
    const cal = this.cal;
    for (const [courseKey, since] of dirty) {
      const idx =
        this.state.peekIndex(COURSE_SNAPSHOT.kind, courseKey) ??
        (await this.state.index(COURSE_SNAPSHOT.kind, courseKey));
      // since = -Infinity (noteAll): every period with a race, and no tombstone
      const first = since === Number.NEGATIVE_INFINITY ? since : periodStart(cal, since);
      const starts = new Set<number>();
      if (idx) {
        const p = idx.ensureVisibleFrom(first);
        if (p) await p;
        for (const v of idx.visibleAtsFrom(first)) starts.add(periodStart(cal, v));
      }
      if (first !== Number.NEGATIVE_INFINITY && !starts.has(first)) {
        const key = snapshotTopicKey(courseKey, periodLabel(cal, first));
        if (!owns || owns(key)) out.push({ key, snapshot: null, timestamp: since });
      }
      const [courseId, discipline, distanceBucket, surface] = courseKey.split('|') as [string, string, string, string];
      for (const start of [...starts].sort((a, b) => a - b)) {
        const period = periodLabel(cal, start);
        const key = snapshotTopicKey(courseKey, period);
        if (owns && !owns(key)) continue;
        const end = periodEnd(cal, start);
        const q = idx!.ensure(Number.NEGATIVE_INFINITY, end);
        if (q) await q;
        const { latestVisible, ...stats } = snapshotAt(idx, end);
        out.push({
          key,
          timestamp: latestVisible,
          snapshot: {
            courseId,
            period,
            periodEndUtc: isoUtc(end),
            discipline,
            distanceBucket,
            surface,
            ...stats,
            computedAtUtc: isoUtc(latestVisible),
          },
        });
      }
    }
    return out;
  }
}
