/**
 * The HTTP API as a factory: `buildApp(deps)` returns a Fastify instance with every public route, hook
 * and handler (the operator routes are a separate app, api/admin-app.ts, on a loopback listener); tests
 * drive it with `app.inject()`, and only api/server.ts opens a socket.
 */
import cookie from '@fastify/cookie';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { Logger } from '../domain/logger.js';
import type { AccountStore } from '../state/credentials/account-store.js';
import type { SessionStore } from '../state/credentials/session-store.js';
import { accountRoutes } from './account-routes.js';
import { limitKeylessRoutes } from './address-limit.js';
import { apiKeyHook } from './auth.js';
import { installEtagsAndCompression } from './compression.js';
import { type ApiConfig, validateApiConfig } from './config.js';
import { courseRoutes, openDataRoutes } from './course-routes.js';
import { COURSE_SCHEMAS } from './course-schemas.js';
import { DataDictionarySchema } from './data-dictionary.js';
import { installProblemHandlers } from './errors.js';
import type { KeyStore } from '../state/credentials/key-store.js';
import { metaRoutes } from './meta-routes.js';
import { installOperations, type OperationsDeps } from './metrics-routes.js';
import { buildOpenApi, collectRoutes } from './openapi.js';
import { raceRoutes } from './race-routes.js';
import type { ChangeFeed } from '../state/read-model/change-log.js';
import { type StreamConfig, type StreamDeps, streamRoutes } from './stream-routes.js';
import { RateLimiter } from './rate-limit.js';
import { lazyChildLogger } from './request-logger.js';
import type { ReadModel } from '../state/read-model-port.js';
import { ResponseCache } from './response-cache.js';
import { frameworkErrors, installMethodNotAllowed, MAX_PARAM_LENGTH, RouteTable } from './routing-errors.js';
import { NAMED_SCHEMAS } from './schemas.js';
import { SignInThrottle } from './sign-in-throttle.js';

export const API_PREFIX = '/api/v1';

export interface AppDeps {
  readModel: ReadModel;
  keys: KeyStore;
  config: ApiConfig;
  logger: Logger;
  /** Epoch ms; drives the recent feed, the demo day and rate-limit windows. Defaults to Date.now. */
  clock?: () => number;
  /**
   * Accounts and their sessions: with both, the account pages are served and a signed-in session may
   * call the data routes; without, data routes take keys only.
   */
  accounts?: AccountStore;
  sessions?: SessionStore;
  /** /metrics, /api/v1/health/live and /api/v1/health/ready (api/metrics-routes.ts) when given. */
  operations?: OperationsDeps;
  /** The read model's change feed: with it, GET /api/v1/stream/analytics (server-sent events) is served. */
  changes?: ChangeFeed;
  stream?: Partial<StreamConfig> & Pick<StreamDeps, 'onWritten'>;
}

/** Name of the session cookie over plain HTTP (over TLS it carries the __Host- prefix). */
const SESSION_COOKIE_NAME = 'racing_session';

export function buildApp(deps: AppDeps): FastifyInstance {
  const config = validateApiConfig(deps.config);
  const clock = deps.clock ?? Date.now;
  const routeTable = new RouteTable();
  const app = Fastify({
    // The same pino instance as the rest of the service. Typed as Fastify's base logger: pino's Logger
    // type parameter would otherwise leak into every FastifyInstance signature.
    loggerInstance: deps.logger as FastifyBaseLogger,
    // No "incoming request"/"request completed" pair per request: two log lines cost more than serving a
    // cached response. Failures are still logged (api/errors.ts); access logs belong to the proxy.
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyChildLogger,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: frameworkErrors(routeTable),
    trustProxy: config.trustProxy.length > 0 ? [...config.trustProxy] : false,
    // Refuse unknown body fields instead of silently dropping them (Fastify's default), so a typo in an
    // admin request is an error rather than a no-op. Query strings stay open (their schemas allow extras).
    ajv: { customOptions: { removeAdditional: false } },
    return503OnClosing: true,
  });

  app.decorateRequest('apiKey', undefined);
  const routes = collectRoutes(app);
  routeTable.watch(app);
  installProblemHandlers(app);
  if (deps.operations) installOperations(app, deps.operations);
  installMethodNotAllowed(app, routeTable);
  installEtagsAndCompression(app);
  // No parsing hook on every request: api/session.ts parses the Cookie header when it first needs it.
  app.register(cookie, { hook: false });
  limitKeylessRoutes(app, new RateLimiter({ requestsPerMinute: config.rateLimit.perAddressPerMinute, clock }));
  const cache = new ResponseCache({ revision: () => deps.readModel.revision?.() });
  const credentials = deps.accounts && deps.sessions ? { accounts: deps.accounts, sessions: deps.sessions } : undefined;

  let openApi: unknown;
  const openApiDocument = () => {
    openApi ??= buildOpenApi(
      routes,
      { ...NAMED_SCHEMAS, ...COURSE_SCHEMAS, DataDictionary: DataDictionarySchema },
      {
        title: 'Racing Analytics API',
        version: '1.0.0',
        description:
          'Point-in-time racing analytics: race days, races, runners and one flat analytics row per runner. ' +
          'Errors are RFC 9457 problem details; see docs/errors.md.',
        ...(credentials ? { sessionCookie: SESSION_COOKIE_NAME } : {}),
      },
    );
    return openApi;
  };

  const limiter = new RateLimiter({ requestsPerMinute: config.rateLimit.requestsPerMinute, clock });

  app.register(
    async (api) => {
      api.register(metaRoutes({ readModel: deps.readModel, clock, openApi: openApiDocument, cache }));
      api.register(openDataRoutes(deps.readModel, cache));
      api.register(async (keyed) => {
        keyed.addHook('onRequest', apiKeyHook(deps.keys, limiter, credentials, cache));
        await keyed.register(raceRoutes(deps.readModel, clock, cache));
        await keyed.register(courseRoutes(deps.readModel, clock, cache));
        if (deps.changes) {
          const { onWritten, ...config } = deps.stream ?? {};
          await keyed.register(
            streamRoutes({
              feed: deps.changes,
              keys: deps.keys,
              config,
              ...(credentials ? { credentials } : {}),
              ...(onWritten ? { onWritten } : {}),
            }),
          );
        }
      });
    },
    { prefix: API_PREFIX },
  );

  if (credentials) {
    const { signIn } = config;
    app.register(
      accountRoutes({
        ...credentials,
        keys: deps.keys,
        throttle: new SignInThrottle(
          {
            failuresPerAccount: signIn.failuresPerAccount,
            failuresPerAddress: signIn.failuresPerAddress,
            windowMs: signIn.windowSeconds * 1000,
          },
          clock,
        ),
      }),
    );
  }
  return app;
}
