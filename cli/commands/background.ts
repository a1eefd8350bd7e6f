/**
 * The service's background work while it serves: the analytics processor, the API's view and the
 * replication of credentials, each supervised (cli/commands/supervise.ts), and what `/metrics` and
 * `/api/v1/health/ready` report about them.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { OperationsDeps } from '../../api/metrics-routes.js';
import { pipelineCounters } from '../../streams/metrics.js';
import type { AnalyticsProcessor } from '../../streams/processors/analytics-processor.js';
import { runViewMaterializer, viewTopics } from '../../streams/processors/view-materializer.js';
import { createReadiness } from '../../streams/readiness.js';
import { type Runtime, replicateCredentials } from '../runtime.js';
import { openProcessor } from './pipeline.js';
import { supervise, TaskBoard } from './supervise.js';

/** Shared between the tasks and the operations endpoints. */
export interface Background {
  board: TaskBoard;
  /** epoch ms of the processor's last completed batch */
  lastBatchAt?: number;
}

export function newBackground(): Background {
  return { board: new TaskBoard() };
}

/** What the operations endpoints read: readiness, pipeline counters, store size, the metrics token. */
export function operationsOf(rt: Runtime, bg: Background): OperationsDeps {
  const t = rt.topics;
  return {
    readiness: createReadiness({
      log: rt.log,
      mode: rt.config.mode,
      consumers: [
        { name: 'processor', group: rt.groups.analytics, topics: [t.courses, t.cards, t.results] },
        { name: 'view', group: rt.groups.view, topics: viewTopics(t) },
      ],
      bounds: { maxLagRecords: rt.config.readyMaxLag, maxStallMs: rt.config.readyMaxStallMs },
      lastBatchAt: () => bg.lastBatchAt,
      tasks: () => bg.board.toJSON(),
    }),
    pipeline: () => pipelineCounters.counts(),
    storeBytes: () => directoryBytes(join(rt.config.dataDir, 'db')),
    metricsToken: rt.config.metricsToken,
  };
}

/**
 * Starts the supervised tasks; they run until `signal` aborts. A task that fails for good calls
 * `onFatal` (the service then stops with exit code 1). Resolves nothing: the promises settle when the
 * tasks stop.
 */
export function startBackground(
  rt: Runtime,
  first: AnalyticsProcessor,
  bg: Background,
  options: { signal: AbortSignal; onFatal: (e: unknown) => void },
): Promise<void>[] {
  const { signal } = options;
  const common = { board: bg.board, logger: rt.logger, signal };
  let processor = first;
  const tasks = [
    supervise(
      'processor',
      async (attempt) => {
        // A failed run may hold state it computed but could not produce: start over from its checkpoint.
        if (attempt > 0) processor = await openProcessor(rt);
        let seen = processor.counters.racesRecomputed;
        if (attempt === 0) pipelineCounters.racesRecomputed(seen);
        await processor.run({
          untilCaughtUp: false,
          signal,
          checkpointIntervalMs: rt.config.checkpointIntervalMs,
          onBatch: () => {
            bg.lastBatchAt = Date.now();
            const now = processor.counters.racesRecomputed;
            pipelineCounters.racesRecomputed(now - seen);
            seen = now;
          },
        });
      },
      common,
    ),
    supervise(
      'view',
      () =>
        runViewMaterializer({
          log: rt.log,
          codecs: rt.codecs,
          view: rt.view,
          logger: rt.logger,
          group: rt.groups.view,
          untilCaughtUp: false,
          signal,
        }),
      common,
    ),
    supervise('replication', () => replicateCredentials(rt, { untilCaughtUp: false, signal }), common),
  ];
  for (const t of tasks) t.catch(options.onFatal);
  return tasks;
}

/** Bytes of the files directly in `dir` (a LevelDB directory is flat); 0 when it cannot be read. */
async function directoryBytes(dir: string): Promise<number> {
  try {
    const names = await readdir(dir);
    const sizes = await Promise.all(
      names.map((n) =>
        stat(join(dir, n)).then(
          (s) => (s.isFile() ? s.size : 0),
          () => 0,
        ),
      ),
    );
    return sizes.reduce((a, b) => a + b, 0);
  } catch {
    return 0;
  }
}
