/**
 * `racing status`: what a running service says about itself, from its readiness endpoint
 * (`/api/v1/health/ready` on HOST:PORT, or --url): mode, ready or not and why, lag per consumer, the
 * background tasks, and what the pipeline produced since the service started.
 */
import type { ServiceConfig } from '../config.js';
import { RacingError } from '../../domain/errors.js';

interface ReadyBody {
  ready: boolean;
  mode: string;
  reasons: string[];
  log: { reachable: boolean; error?: string };
  lag: Record<string, number>;
  lastBatchAt?: number;
  tasks: Record<string, { status: string; restarts: number; lastError?: { code: string; message: string } }>;
  pipeline?: { rows: number; tombstones: number; recomputes: number; deadLetters: Record<string, number> };
}

/** The service's base URL from HOST and PORT (a wildcard HOST is reached on loopback). */
export function serviceUrl(config: ServiceConfig): string {
  const host = config.api.host === '0.0.0.0' ? '127.0.0.1' : config.api.host === '::' ? '[::1]' : config.api.host;
  return `http://${host.includes(':') && !host.startsWith('[') ? `[${host}]` : host}:${config.api.port}`;
}

/** Reads the readiness report; throws `not_found` when nothing answers at the URL. */
export async function fetchStatus(baseUrl: string, timeoutMs = 5_000): Promise<ReadyBody> {
  let res: Response;
  try {
    res = await fetch(`${baseUrl.replace(/\/$/, '')}/api/v1/health/ready`, { signal: AbortSignal.timeout(timeoutMs) });
  } catch (e) {
    throw new RacingError('not_found', `no racing service answers at ${baseUrl} (${(e as Error).message})`, {
      cause: e,
    });
  }
  if (res.status !== 200 && res.status !== 503) {
    throw new RacingError(
      'internal',
      `${baseUrl} answered ${res.status} to /api/v1/health/ready: is it a racing service?`,
    );
  }
  return (await res.json()) as ReadyBody;
}

/** Human-readable lines of a report. */
export function formatStatus(baseUrl: string, s: ReadyBody, now = Date.now()): string {
  const lines = [`${baseUrl}: ${s.ready ? 'READY' : 'NOT READY'} (${s.mode} mode)`];
  for (const r of s.reasons) lines.push(`  - ${r}`);
  lines.push(`  log: ${s.log.reachable ? 'reachable' : `UNREACHABLE (${s.log.error ?? 'no answer'})`}`);
  const lag = Object.entries(s.lag).map(([name, n]) => `${name} ${n}`);
  if (lag.length > 0) lines.push(`  lag (records): ${lag.join(', ')}`);
  if (s.lastBatchAt !== undefined)
    lines.push(`  last processed batch: ${Math.round((now - s.lastBatchAt) / 1000)} s ago`);
  const tasks = Object.entries(s.tasks).map(
    ([name, t]) =>
      `${name} ${t.status}${t.restarts > 0 ? ` (restarted ${t.restarts}x, last: ${t.lastError?.code})` : ''}`,
  );
  if (tasks.length > 0) lines.push(`  tasks: ${tasks.join(', ')}`);
  if (s.pipeline) {
    const dl = Object.values(s.pipeline.deadLetters).reduce((a, b) => a + b, 0);
    lines.push(
      `  since start: ${s.pipeline.rows} rows, ${s.pipeline.tombstones} tombstones, ` +
        `${s.pipeline.recomputes} races recomputed, ${dl} dead letters`,
    );
  }
  return lines.join('\n');
}
