/** serve / start: the API on the embedded default, with the processor and the view kept up to date. */
import { randomBytes } from 'node:crypto';
import { buildAdminApp } from '../../api/admin-app.js';
import { buildApp } from '../../api/app.js';
import { startServer } from '../../api/server.js';
import type { AnalyticsProcessor } from '../../streams/processors/analytics-processor.js';
import { publishCourseTopology } from '../../streams/course-versions.js';
import { removeServiceFile, writeServiceFile } from '../service-file.js';
import { type Runtime, replicateCredentials } from '../runtime.js';
import { newBackground, operationsOf, startBackground } from './background.js';
import { serviceInput } from './publish.js';

/** How often key usage ("last used") noted in memory is written to the store (and replicated). */
export const KEY_USAGE_FLUSH_MS = 30_000;

/**
 * Serves the API until SIGINT/SIGTERM. The processor and the view keep tailing the log so events
 * published later are served too. Resolves with the listening URL once the socket is open.
 *
 * The operator routes listen separately, on the loopback interface and a free port whatever HOST is,
 * advertised to the CLI in <data dir>/service.json with a per-run token.
 */
export async function serve(rt: Runtime, processor: AnalyticsProcessor, onStop: () => Promise<void>): Promise<string> {
  // Kafka mode: keys, accounts and sessions changed on other replicas are honoured before the first request.
  await replicateCredentials(rt, { untilCaughtUp: true });
  const swept = await rt.sessions.sweep();
  if (swept > 0) rt.logger.info({ swept }, 'expired sessions deleted');
  const token = randomBytes(24).toString('base64url');
  const background = newBackground();
  const app = buildApp({
    operations: operationsOf(rt, background),
    readModel: rt.view,
    changes: rt.view.changes,
    stream: rt.config.stream,
    keys: rt.keys,
    accounts: rt.accounts,
    sessions: rt.sessions,
    config: rt.config.api,
    logger: rt.logger,
  });
  const admin = buildAdminApp({
    token,
    keys: rt.keys,
    accounts: rt.accounts,
    readModel: rt.view,
    logger: rt.logger.child({ component: 'admin' }),
    publishTopology: (courseId, topology) => publishCourseTopology(rt, courseId, topology, Date.now()),
    input: serviceInput(rt),
  });
  const url = await startServer(app, { host: rt.config.api.host, port: rt.config.api.port });
  const adminUrl = await startServer(admin, { host: '127.0.0.1', port: 0 });
  writeServiceFile(rt.config.dataDir, { pid: process.pid, adminUrl, token, apiUrl: url });
  // Precompute the big keyless bodies (the demo day, the OpenAPI document) before anyone asks.
  for (const path of ['/api/v1/demo', '/api/v1/openapi.json', '/api/v1/data-dictionary'])
    await app.inject({ method: 'GET', url: path });
  const flushUsage = () =>
    rt.keys.flushUsage().catch((e: unknown) => rt.logger.warn({ err: e }, 'key usage not written'));
  const usageTimer = setInterval(() => void flushUsage(), KEY_USAGE_FLUSH_MS);
  usageTimer.unref();

  const abort = new AbortController();
  // Failures that can pass (a Kafka outage) restart the task after a backoff while the API serves on;
  // any other failure stops the service with exit code 1.
  const tails = startBackground(rt, processor, background, {
    signal: abort.signal,
    onFatal: () => {
      process.exitCode = 1;
      process.kill(process.pid, 'SIGTERM');
    },
  });

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    rt.logger.info('stopping');
    abort.abort();
    clearInterval(usageTimer);
    await Promise.allSettled(tails);
    await app.close();
    await admin.close();
    await flushUsage();
    removeServiceFile(rt.config.dataDir);
    await onStop();
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  return url;
}
