/** Builds an app over the fake read model, a KeyStore on memoryStore() and a settable clock. */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../api/app.js';
import { apiConfig } from '../../api/config.js';
import { KeyStore } from '../../state/credentials/key-store.js';
import type { ReadModel } from '../../state/read-model-port.js';
import { silentLogger } from '../../domain/logger.js';
import type { StorePort } from '../../state/store-port.js';
import { NOW, sampleReadModel } from '../support/fake-read-model.js';
import { memoryStore } from '../support/memory-store.js';

export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

export interface Harness {
  app: FastifyInstance;
  keys: KeyStore;
  store: StorePort;
  /** An active key created before the app was built. */
  key: string;
  now(): number;
  setNow(ms: number): void;
  get(url: string, key?: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
}

export async function harness(
  options: { requestsPerMinute?: number; admin?: boolean; readModel?: ReadModel; now?: number } = {},
): Promise<Harness> {
  let now = options.now ?? NOW;
  const clock = () => now;
  const store = memoryStore();
  const keys = new KeyStore(store.sub('keys/'), { clock });
  const app = buildApp({
    readModel: options.readModel ?? sampleReadModel(),
    keys,
    config: apiConfig({ rateLimit: { requestsPerMinute: options.requestsPerMinute ?? 1000 } }),
    logger: silentLogger(),
    clock,
    ...(options.admin ? { admin: { token: ADMIN_TOKEN } } : {}),
  });
  await app.ready();
  const { key } = await keys.create('test');
  return {
    app,
    keys,
    store,
    key,
    now: () => now,
    setNow: (ms) => {
      now = ms;
    },
    get: (url, k, headers = {}) =>
      app.inject({ method: 'GET', url, headers: { ...(k === undefined ? {} : { 'x-api-key': k }), ...headers } }),
    inject: (opts) => app.inject(opts),
  };
}

/** Every keyed data route, with valid parameters for the fixture. */
export const DATA_URLS = [
  '/api/v1/race-days?from=2024-05-01&to=2024-05-31',
  '/api/v1/races',
  '/api/v1/races?date=2024-05-09',
  '/api/v1/races/rac_nyc',
  '/api/v1/races/rac_nyc/analytics',
] as const;

/** Every route that needs no key. */
export const PUBLIC_URLS = [
  '/api/v1/demo',
  '/api/v1/openapi.json',
  '/api/v1/data-dictionary',
  '/api/v1/health',
] as const;

/** Asserts the RFC 9457 shape and returns the parsed body. */
export function problemOf(res: LightMyRequestResponse): Record<string, unknown> {
  const ct = String(res.headers['content-type']);
  if (!ct.startsWith('application/problem+json')) throw new Error(`not a problem: ${ct} ${res.body}`);
  return res.json() as Record<string, unknown>;
}
