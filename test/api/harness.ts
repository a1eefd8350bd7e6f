/**
 * Builds the public app over the fake read model, key, account and session stores on memoryStore() and a
 * settable clock; with `admin`, the operator app too.
 */
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildAdminApp } from '../../api/admin-app.js';
import { buildApp } from '../../api/app.js';
import { type ApiConfig, apiConfig } from '../../api/config.js';
import { AccountStore } from '../../state/credentials/account-store.js';
import { KeyStore } from '../../state/credentials/key-store.js';
import { hashPassword } from '../../state/credentials/password.js';
import { SessionStore } from '../../state/credentials/session-store.js';
import type { ReadModel } from '../../state/read-model-port.js';
import { silentLogger } from '../../domain/logger.js';
import type { StorePort } from '../../state/store-port.js';
import { NOW, sampleReadModel } from '../support/fake-read-model.js';
import { memoryStore } from '../support/memory-store.js';

export const ADMIN_TOKEN = 'admin-token-for-tests-0123456789';

/** scrypt at N = 2^10: the real algorithm and format, at a cost that keeps tests fast. */
export const cheapHash = (password: string) => hashPassword(password, { logN: 10, r: 8, p: 1 });

export interface Harness {
  app: FastifyInstance;
  /** The operator app (only with `admin: true`). */
  admin: FastifyInstance | undefined;
  keys: KeyStore;
  accounts: AccountStore;
  sessions: SessionStore;
  store: StorePort;
  /** An active key created before the app was built. */
  key: string;
  now(): number;
  setNow(ms: number): void;
  get(url: string, key?: string, headers?: Record<string, string>): Promise<LightMyRequestResponse>;
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  /** A request to the operator app. */
  adminInject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function harness(
  options: {
    requestsPerMinute?: number;
    perAddressPerMinute?: number;
    signIn?: Partial<ApiConfig['signIn']>;
    trustProxy?: string[];
    admin?: boolean;
    readModel?: ReadModel;
    now?: number;
  } = {},
): Promise<Harness> {
  let now = options.now ?? NOW;
  const clock = () => now;
  const store = memoryStore();
  const keys = new KeyStore(store.sub('keys/'), { clock });
  const accounts = new AccountStore(store.sub('accounts/'), { clock, hash: cheapHash });
  const sessions = new SessionStore(store.sub('sessions/'), { clock });
  const readModel = options.readModel ?? sampleReadModel();
  const app = buildApp({
    readModel,
    keys,
    accounts,
    sessions,
    config: apiConfig({
      rateLimit: {
        requestsPerMinute: options.requestsPerMinute ?? 1000,
        perAddressPerMinute: options.perAddressPerMinute ?? 1000,
      },
      ...(options.signIn ? { signIn: options.signIn } : {}),
      ...(options.trustProxy ? { trustProxy: options.trustProxy } : {}),
    }),
    logger: silentLogger(),
    clock,
  });
  await app.ready();
  const admin = options.admin
    ? buildAdminApp({ token: ADMIN_TOKEN, keys, accounts, readModel, logger: silentLogger() })
    : undefined;
  await admin?.ready();
  const { key } = await keys.create('test');
  return {
    app,
    admin,
    keys,
    accounts,
    sessions,
    store,
    key,
    now: () => now,
    setNow: (ms) => {
      now = ms;
    },
    get: (url, k, headers = {}) =>
      app.inject({ method: 'GET', url, headers: { ...(k === undefined ? {} : { 'x-api-key': k }), ...headers } }),
    inject: (opts) => app.inject(opts),
    adminInject: (opts) => {
      if (!admin) throw new Error('harness built without admin: true');
      return admin.inject(opts);
    },
    close: async () => {
      await app.close();
      await admin?.close();
    },
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
