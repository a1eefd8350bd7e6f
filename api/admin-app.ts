/**
 * The operator API as its own Fastify instance, for its own listener on the loopback interface: the CLI
 * (`racing keys`, `racing accounts`, `racing export`) talks to it while the service runs. Kept apart from
 * the public app so it is never reachable on the public address, never in the public OpenAPI document,
 * and never behind the public rate limits.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from '../domain/logger.js';
import type { AccountStore } from '../state/credentials/account-store.js';
import type { KeyStore } from '../state/credentials/key-store.js';
import type { ReadModel } from '../state/read-model-port.js';
import { ADMIN_PREFIX, type AdminInputDeps, adminRoutes } from './admin.js';
import { adminAccountRoutes } from './admin-accounts.js';
import { type AdminCourseDeps, adminCourseRoutes } from './admin-courses.js';
import { installProblemHandlers } from './errors.js';
import { installMethodNotAllowed, RouteTable } from './routing-errors.js';

export interface AdminAppDeps {
  /** The operator token expected in X-Admin-Token; at least 16 characters. */
  token: string;
  keys: KeyStore;
  accounts: AccountStore;
  readModel: ReadModel;
  logger: Logger;
  /** `racing publish` and `racing import` while the service runs (absent: those routes are not served) */
  input?: AdminInputDeps;
  /** With it, POST /admin/v1/courses/{courseId}/topology publishes course versions (api/admin-courses.ts). */
  publishTopology?: AdminCourseDeps['publishTopology'];
}

export function buildAdminApp(deps: AdminAppDeps): FastifyInstance {
  const app = Fastify({
    loggerInstance: deps.logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    ajv: { customOptions: { removeAdditional: false } },
    return503OnClosing: true,
  });
  const routes = new RouteTable().watch(app);
  installProblemHandlers(app);
  installMethodNotAllowed(app, routes);
  app.register(
    adminRoutes({
      admin: { token: deps.token },
      keys: deps.keys,
      readModel: deps.readModel,
      ...(deps.input ? { input: deps.input } : {}),
    }),
    { prefix: ADMIN_PREFIX },
  );
  app.register(adminAccountRoutes({ token: deps.token, accounts: deps.accounts }), { prefix: ADMIN_PREFIX });
  if (deps.publishTopology)
    app.register(adminCourseRoutes({ token: deps.token, publishTopology: deps.publishTopology }), {
      prefix: ADMIN_PREFIX,
    });
  return app;
}
