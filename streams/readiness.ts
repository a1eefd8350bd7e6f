/**
 * Readiness of a running service: is it caught up with its input, and can it reach its log? Read by
 * `/health/ready`, by `racing status` through it, and by the lag gauges of `/metrics`.
 *
 * Ready means all of:
 * - the log answers: the end offsets of the input topics and the consumer groups' committed offsets
 *   are read within `probeTimeoutMs` (in Kafka mode, the broker is reachable);
 * - the processor's input lag and the view's lag are each at most `maxLagRecords` records;
 * - while the processor has lag, it completed a batch within the last `maxStallMs`;
 * - no background task is waiting to be restarted after a failure.
 */
import { isRacingError } from '../domain/errors.js';
import type { LogPort } from './log-port.js';

export interface ReadinessBounds {
  /** most records a consumer may be behind and still be ready */
  maxLagRecords: number;
  /** longest time without a processed batch while there is lag */
  maxStallMs: number;
  /** how long the log may take to answer the offset queries */
  probeTimeoutMs: number;
}

export const DEFAULT_READINESS_BOUNDS: ReadinessBounds = {
  maxLagRecords: 1_000,
  maxStallMs: 30_000,
  probeTimeoutMs: 2_000,
};

export interface ConsumerSpec {
  /** label in reports and metrics: processor, view */
  name: string;
  group: string;
  topics: readonly string[];
}

export interface PartitionLag {
  consumer: string;
  topic: string;
  partition: number;
  end: number;
  committed: number;
  lag: number;
}

export interface ReadinessReport {
  ready: boolean;
  mode: 'embedded' | 'kafka';
  /** why it is not ready (empty when ready) */
  reasons: string[];
  checkedAt: string;
  log: { reachable: boolean; error?: string };
  /** total records behind per consumer (absent when the log did not answer) */
  lag: Record<string, number>;
  partitions: PartitionLag[];
  /** epoch ms of the processor's last completed batch, when it completed one */
  lastBatchAt?: number;
  tasks: Record<
    string,
    { status: string; restarts: number; since: number; lastError?: { code: string; message: string } }
  >;
  bounds: ReadinessBounds;
}

export interface ReadinessDeps {
  log: LogPort;
  mode: 'embedded' | 'kafka';
  consumers: readonly ConsumerSpec[];
  bounds?: Partial<ReadinessBounds>;
  /** epoch ms of the processor's last completed batch */
  lastBatchAt?: () => number | undefined;
  /** the supervised tasks' states */
  tasks?: () => ReadinessReport['tasks'];
  clock?: () => number;
}

/** A cached readiness check: at most one probe of the log per second, however many callers. */
export function createReadiness(deps: ReadinessDeps): () => Promise<ReadinessReport> {
  const bounds = { ...DEFAULT_READINESS_BOUNDS, ...deps.bounds };
  const clock = deps.clock ?? Date.now;
  let cached: { at: number; report: Promise<ReadinessReport> } | undefined;
  return () => {
    const now = clock();
    if (cached === undefined || now - cached.at >= 1_000) cached = { at: now, report: check(deps, bounds, now) };
    return cached.report;
  };
}

async function check(deps: ReadinessDeps, bounds: ReadinessBounds, now: number): Promise<ReadinessReport> {
  const reasons: string[] = [];
  const report: ReadinessReport = {
    ready: false,
    mode: deps.mode,
    reasons,
    checkedAt: new Date(now).toISOString(),
    log: { reachable: true },
    lag: {},
    partitions: [],
    tasks: deps.tasks?.() ?? {},
    bounds,
  };
  const lastBatchAt = deps.lastBatchAt?.();
  if (lastBatchAt !== undefined) report.lastBatchAt = lastBatchAt;
  try {
    report.partitions = await withTimeout(lagOf(deps.log, deps.consumers), bounds.probeTimeoutMs);
    for (const c of deps.consumers) {
      report.lag[c.name] = report.partitions.filter((p) => p.consumer === c.name).reduce((a, p) => a + p.lag, 0);
    }
  } catch (e) {
    const what = deps.mode === 'kafka' ? 'Kafka broker' : 'log';
    report.log = { reachable: false, error: isRacingError(e) || e instanceof Error ? e.message : String(e) };
    reasons.push(`${what} unreachable: ${report.log.error}`);
  }
  for (const [name, lag] of Object.entries(report.lag)) {
    if (lag > bounds.maxLagRecords) reasons.push(`${name} is ${lag} records behind (ready at ${bounds.maxLagRecords})`);
  }
  const processorLag = report.lag['processor'] ?? 0;
  if (processorLag > 0 && lastBatchAt !== undefined && now - lastBatchAt > bounds.maxStallMs) {
    reasons.push(
      `processor has ${processorLag} records to process but completed no batch for ${Math.round((now - lastBatchAt) / 1000)} s`,
    );
  }
  for (const [name, t] of Object.entries(report.tasks)) {
    if (t.status === 'retrying' || t.status === 'failed') {
      reasons.push(
        `${name} ${t.status === 'retrying' ? 'is restarting after' : 'failed with'} ${t.lastError?.code ?? 'an error'}`,
      );
    }
  }
  report.ready = reasons.length === 0;
  return report;
}

async function lagOf(log: LogPort, consumers: readonly ConsumerSpec[]): Promise<PartitionLag[]> {
  const topics = [...new Set(consumers.flatMap((c) => c.topics))];
  const ends = new Map(await Promise.all(topics.map(async (t) => [t, await log.endOffsets(t)] as const)));
  const out: PartitionLag[] = [];
  for (const c of consumers) {
    for (const topic of c.topics) {
      const committed = await log.committed(c.group, topic);
      (ends.get(topic) ?? []).forEach((end, partition) => {
        const at = Math.min(committed[partition] ?? 0, end);
        out.push({ consumer: c.name, topic, partition, end, committed: at, lag: end - at });
      });
    }
  }
  return out;
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  p.catch(() => undefined);
  return Promise.race([
    p,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
