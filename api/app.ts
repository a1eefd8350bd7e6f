/**
 * The HTTP API as a factory: `buildApp(deps)` returns a Fastify instance with every route, hook and
 * handler; tests drive it with `app.inject()`, and only api/server.ts opens a socket.
 */
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Logger } from '../domain/logger.js';
import { type AdminDeps, ADMIN_PREFIX, adminRoutes } from './admin.js';
import { apiKeyHook } from './auth.js';
import { type ApiConfig, validateApiConfig } from './config.js';
import { DataDictionarySchema } from './data-dictionary.js';
import { installProblemHandlers } from './errors.js';
import { installEtags } from './etag.js';
import type { KeyStore } from '../state/credentials/key-store.js';
import { metaRoutes } from './meta-routes.js';
import { buildOpenApi, collectRoutes } from './openapi.js';
import { raceRoutes } from './race-routes.js';
import { RateLimiter } from './rate-limit.js';
import type { ReadModel } from '../state/read-model-port.js';
import { NAMED_SCHEMAS } from './schemas.js';

export const API_PREFIX = '/api/v1';

export interface AppDeps {
  readModel: ReadModel;
  keys: KeyStore;
  config: ApiConfig;
  logger: Logger;
  /** Epoch ms; drives the recent feed, the demo day and rate-limit windows. Defaults to Date.now. */
  clock?: () => number;
  /** Registers /admin/v1 when given. */
  admin?: AdminDeps;
}

export function buildApp(deps: AppDeps): FastifyInstance {
  const config = validateApiConfig(deps.config);
  const clock = deps.clock ?? Date.now;
  const app = Fastify({
    // The same pino instance as the rest of the service. Typed as Fastify's base logger: pino's Logger
    // type parameter would otherwise leak into every FastifyInstance signature.
    loggerInstance: deps.logger as FastifyBaseLogger,
    // Refuse unknown body fields instead of silently dropping them (Fastify's default), so a typo in an
    // admin request is an error rather than a no-op. Query strings stay open (their schemas allow extras).
    ajv: { customOptions: { removeAdditional: false } },
    return503OnClosing: true,
  });

  app.decorateRequest('apiKey', undefined);
  const routes = collectRoutes(app);
  installProblemHandlers(app);
  installEtags(app);

  let openApi: unknown;
  const openApiDocument = () => {
    openApi ??= buildOpenApi(
      routes,
      { ...NAMED_SCHEMAS, DataDictionary: DataDictionarySchema },
      {
        title: 'Racing Analytics API',
        version: '1.0.0',
        description:
          'Point-in-time racing analytics: race days, races, runners and one flat analytics row per runner. ' +
          'Errors are RFC 9457 problem details; see docs/errors.md.',
      },
    );
    return openApi;
  };

  const limiter = new RateLimiter({ requestsPerMinute: config.rateLimit.requestsPerMinute, clock });

  app.register(
    async (api) => {
      api.register(metaRoutes({ readModel: deps.readModel, clock, openApi: openApiDocument }));
      api.register(async (keyed) => {
        keyed.addHook('onRequest', apiKeyHook(deps.keys, limiter));
        await keyed.register(raceRoutes(deps.readModel, clock));
      });
    },
    { prefix: API_PREFIX },
  );

  if (deps.admin) {
    app.register(adminRoutes({ admin: deps.admin, keys: deps.keys, readModel: deps.readModel }), {
      prefix: ADMIN_PREFIX,
    });
  }
  return app;
}
