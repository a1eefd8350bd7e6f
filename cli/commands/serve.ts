/** serve / start: the API on the embedded default, with the processor and the view kept up to date. */
import { randomBytes } from 'node:crypto';
import { buildApp } from '../../api/app.js';
import { startServer } from '../../api/server.js';
import type { AnalyticsProcessor } from '../../streams/processors/analytics-processor.js';
import { runViewMaterializer } from '../../streams/processors/view-materializer.js';
import { removeServiceFile, writeServiceFile } from '../service-file.js';
import { type Runtime, replicateKeys } from '../runtime.js';

/**
 * Serves the API until SIGINT/SIGTERM. The processor and the view keep tailing the log so events
 * published later are served too. Resolves with the listening URL once the socket is open.
 */
export async function serve(rt: Runtime, processor: AnalyticsProcessor, onStop: () => Promise<void>): Promise<string> {
  // Kafka mode: keys created or revoked on other replicas are honoured before the first request.
  await replicateKeys(rt, { untilCaughtUp: true });
  const token = randomBytes(24).toString('base64url');
  const app = buildApp({
    readModel: rt.view,
    keys: rt.keys,
    config: rt.config.api,
    logger: rt.logger,
    admin: { token },
  });
  const url = await startServer(app, { host: rt.config.api.host, port: rt.config.api.port });
  writeServiceFile(rt.config.dataDir, { pid: process.pid, adminUrl: url, token });

  const abort = new AbortController();
  const tails = [
    processor.run({ untilCaughtUp: false, signal: abort.signal, checkpointIntervalMs: rt.config.checkpointIntervalMs }),
    runViewMaterializer({
      log: rt.log,
      codecs: rt.codecs,
      view: rt.view,
      logger: rt.logger,
      group: rt.groups.view,
      untilCaughtUp: false,
      signal: abort.signal,
    }),
    replicateKeys(rt, { untilCaughtUp: false, signal: abort.signal }),
  ];
  for (const t of tails) {
    t.catch((e: unknown) => {
      rt.logger.error({ err: e }, 'a pipeline task failed; stopping');
      process.kill(process.pid, 'SIGTERM');
    });
  }

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    rt.logger.info('stopping');
    abort.abort();
    await Promise.allSettled(tails);
    await app.close();
    removeServiceFile(rt.config.dataDir);
    await onStop();
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  return url;
}
