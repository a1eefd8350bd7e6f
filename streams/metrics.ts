/**
 * What the pipeline counts for operators (rows and tombstones emitted, dead letters by code, races
 * recomputed), behind an interface: the processors and the log decorator below record into it, and
 * only the API's metrics routes know Prometheus (api/metrics-routes.ts reads these counters when
 * scraped). Counters start at zero when the process starts and only grow, as Prometheus expects;
 * a processor opened again after a failure adds to them rather than starting over.
 */
import type { LogPort, OutRecord } from './log-port.js';

/** Where pipeline figures are recorded. */
export interface PipelineMetrics {
  /** Records produced to the analytics topic: rows (a value) and tombstones (null). */
  analyticsProduced(rows: number, tombstones: number): void;
  /** Input records sent to the dead-letter topic, by their `dlq.error.code`. */
  deadLettered(code: string, count: number): void;
  /** Races whose rows were recomputed. */
  racesRecomputed(count: number): void;
}

/** The figures of a PipelineMetrics kept in memory. */
export interface PipelineCounts {
  rows: number;
  tombstones: number;
  recomputes: number;
  deadLetters: ReadonlyMap<string, number>;
}

/** An in-memory PipelineMetrics whose counts are read when scraped. */
export class PipelineCounters implements PipelineMetrics {
  private rows = 0;
  private tombstones = 0;
  private recomputes = 0;
  private readonly deadLetters = new Map<string, number>();

  analyticsProduced(rows: number, tombstones: number): void {
    this.rows += rows;
    this.tombstones += tombstones;
  }

  deadLettered(code: string, count: number): void {
    this.deadLetters.set(code, (this.deadLetters.get(code) ?? 0) + count);
  }

  racesRecomputed(count: number): void {
    if (count > 0) this.recomputes += count;
  }

  counts(): PipelineCounts {
    return {
      rows: this.rows,
      tombstones: this.tombstones,
      recomputes: this.recomputes,
      deadLetters: new Map(this.deadLetters),
    };
  }
}

/** The process's pipeline counters (one process runs one pipeline). */
export const pipelineCounters = new PipelineCounters();

/**
 * A LogPort that records what is produced to the analytics and dead-letter topics once the produce
 * succeeded; everything else is the wrapped log's own. Counting at the log keeps the processors free
 * of metrics code and counts exactly what reached the topic (a batch replayed after a crash counts again,
 * as it is produced again).
 */
export function instrumentLog<L extends LogPort>(
  log: L,
  topics: { analytics: string; deadLetter: string },
  metrics: PipelineMetrics = pipelineCounters,
): L {
  const produce = async (topic: string, records: readonly OutRecord[]): Promise<void> => {
    await log.produce(topic, records);
    if (topic === topics.analytics) {
      let tombstones = 0;
      for (const r of records) if (r.value === null) tombstones++;
      metrics.analyticsProduced(records.length - tombstones, tombstones);
    } else if (topic === topics.deadLetter) {
      const byCode = new Map<string, number>();
      for (const r of records) {
        const code = r.headers?.['dlq.error.code'] ?? 'unknown';
        byCode.set(code, (byCode.get(code) ?? 0) + 1);
      }
      for (const [code, n] of byCode) metrics.deadLettered(code, n);
    }
  };
  return new Proxy(log, {
    get(target, prop, receiver) {
      if (prop === 'produce') return produce;
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
