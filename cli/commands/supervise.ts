/**
 * Keeps the service's background tasks (processor, view, credential replication) running through
 * failures that can pass. A task that fails with a retriable error (broker or registry unreachable,
 * a leader moving) is started again after a backoff instead of stopping the process, so the API keeps
 * serving from its view through a Kafka outage; a task that fails otherwise stops the service with a
 * clear message and exit code 1 (a bug or a broken data dir needs an operator, not a loop).
 */
import { isRacingError } from '../../domain/errors.js';
import type { Logger } from '../../domain/logger.js';
import { abortableDelay } from '../../domain/time.js';

export type TaskStatus = 'running' | 'retrying' | 'failed' | 'stopped';

export interface TaskState {
  status: TaskStatus;
  /** times the task was started again after a failure */
  restarts: number;
  /** epoch ms of the last change of status */
  since: number;
  lastError?: { code: string; message: string; at: number };
}

/** What every supervised task is doing now; readiness and `racing status` read it. */
export class TaskBoard {
  readonly tasks = new Map<string, TaskState>();

  set(name: string, status: TaskStatus, error?: unknown): void {
    const previous = this.tasks.get(name);
    const state: TaskState = {
      status,
      restarts: (previous?.restarts ?? 0) + (status === 'running' && previous?.status === 'retrying' ? 1 : 0),
      since: previous?.status === status ? previous.since : Date.now(),
    };
    if (error !== undefined) state.lastError = describeError(error);
    else if (previous?.lastError) state.lastError = previous.lastError;
    this.tasks.set(name, state);
  }

  /** Tasks that are not running (waiting to restart, or failed). */
  unhealthy(): [string, TaskState][] {
    return [...this.tasks].filter(([, t]) => t.status === 'retrying' || t.status === 'failed');
  }

  toJSON(): Record<string, TaskState> {
    return Object.fromEntries(this.tasks);
  }
}

export interface SuperviseOptions {
  board: TaskBoard;
  logger: Logger;
  /** aborting stops the task for good (the service is stopping) */
  signal: AbortSignal;
  /** first wait before a restart, doubling up to maxBackoffMs; defaults 1 s and 30 s */
  firstBackoffMs?: number;
  maxBackoffMs?: number;
}

/** Errors worth a retry: the service's own retriable errors, and connection-level failures. */
export function isTransient(e: unknown): boolean {
  if (isRacingError(e)) return e.retriable || e.code === 'broker_unreachable' || e.code === 'registry_unreachable';
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'ETIMEDOUT';
}

/**
 * Runs `run(attempt)`, starting it again after retriable failures (attempt counts the restarts), until
 * it ends or the signal aborts. Resolves when it ended; rejects with the error that stopped it for good.
 */
export async function supervise(
  name: string,
  run: (attempt: number) => Promise<unknown>,
  options: SuperviseOptions,
): Promise<void> {
  const { board, logger, signal } = options;
  const first = options.firstBackoffMs ?? 1_000;
  const max = options.maxBackoffMs ?? 30_000;
  let failures = 0;
  for (let attempt = 0; ; attempt++) {
    board.set(name, 'running');
    const started = Date.now();
    try {
      // A task may have nothing to do (no replication on the embedded log): it is done, not failed.
      await run(attempt);
      break;
    } catch (e) {
      if (signal.aborted) break;
      if (!isTransient(e)) {
        board.set(name, 'failed', e);
        logger.error({ err: e, task: name }, `${name} failed and cannot recover by itself; stopping the service`);
        throw e;
      }
      // A task that ran a while before failing starts its backoff over.
      failures = Date.now() - started > 60_000 ? 1 : failures + 1;
      const wait = Math.min(max, first * 2 ** (failures - 1)) * (1 + Math.random() * 0.2);
      board.set(name, 'retrying', e);
      logger.warn(
        { err: describeError(e).message, task: name, retryInMs: Math.round(wait), failures },
        `${name} failed; starting it again after a backoff`,
      );
      await abortableDelay(wait, signal);
      if (signal.aborted) break;
    }
  }
  board.set(name, 'stopped');
}

function describeError(e: unknown): { code: string; message: string; at: number } {
  const code = isRacingError(e) ? e.code : String((e as { code?: unknown } | null)?.code ?? 'internal');
  return { code, message: e instanceof Error ? e.message : String(e), at: Date.now() };
}
