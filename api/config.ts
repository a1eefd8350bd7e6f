/**
 * API configuration: read once, validated against a TypeBox schema, defaulted explicitly, frozen.
 * Tests build theirs with `apiConfig({...})`; the CLI reads the environment with `apiConfigFromEnv`.
 */
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { RacingError } from '../domain/errors.js';

export const ApiConfigSchema = Type.Object(
  {
    host: Type.String({ minLength: 1, description: 'interface to listen on' }),
    port: Type.Integer({ minimum: 0, maximum: 65535, description: '0 picks a free port' }),
    rateLimit: Type.Object(
      {
        requestsPerMinute: Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'per API key' }),
        perAddressPerMinute: Type.Integer({
          minimum: 1,
          maximum: 1_000_000,
          description: 'per client address, on routes that need no key (demo, OpenAPI, account pages...)',
        }),
      },
      { additionalProperties: false },
    ),
    trustProxy: Type.Array(Type.String({ minLength: 1 }), {
      description: 'addresses or CIDRs of reverse proxies whose X-Forwarded-For/-Proto are believed',
    }),
    signIn: Type.Object(
      {
        failuresPerAccount: Type.Integer({ minimum: 1, maximum: 1000 }),
        failuresPerAddress: Type.Integer({ minimum: 1, maximum: 100_000 }),
        windowSeconds: Type.Integer({ minimum: 1, maximum: 86_400 }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export type ApiConfig = Readonly<{
  host: string;
  port: number;
  rateLimit: Readonly<{ requestsPerMinute: number; perAddressPerMinute: number }>;
  trustProxy: readonly string[];
  signIn: Readonly<{ failuresPerAccount: number; failuresPerAddress: number; windowSeconds: number }>;
}>;

export const API_CONFIG_DEFAULTS: ApiConfig = Object.freeze({
  host: '127.0.0.1',
  port: 3000,
  rateLimit: Object.freeze({ requestsPerMinute: 600, perAddressPerMinute: 120 }),
  trustProxy: Object.freeze([]),
  // Five wrong passwords per account and twenty per address in a quarter of an hour.
  signIn: Object.freeze({ failuresPerAccount: 5, failuresPerAddress: 20, windowSeconds: 900 }),
});

/** Validates a config object (throws RacingError 'config_invalid' naming every bad field) and freezes it. */
export function validateApiConfig(value: unknown): ApiConfig {
  if (!Value.Check(ApiConfigSchema, value)) {
    const problems = [...Value.Errors(ApiConfigSchema, value)].map((e) => `${e.path || '/'}: ${e.message}`);
    throw new RacingError('config_invalid', `invalid API config: ${problems.join('; ')}`, {
      details: { errors: problems },
    });
  }
  const v = value as Static<typeof ApiConfigSchema>;
  return Object.freeze({
    host: v.host,
    port: v.port,
    rateLimit: Object.freeze({
      requestsPerMinute: v.rateLimit.requestsPerMinute,
      perAddressPerMinute: v.rateLimit.perAddressPerMinute,
    }),
    trustProxy: Object.freeze([...v.trustProxy]),
    signIn: Object.freeze({ ...v.signIn }),
  });
}

/** Defaults overlaid with `overrides`, validated and frozen. */
export function apiConfig(
  overrides: {
    host?: string;
    port?: number;
    rateLimit?: { requestsPerMinute?: number; perAddressPerMinute?: number };
    trustProxy?: readonly string[];
    signIn?: Partial<ApiConfig['signIn']>;
  } = {},
): ApiConfig {
  const d = API_CONFIG_DEFAULTS;
  return validateApiConfig({
    host: overrides.host ?? d.host,
    port: overrides.port ?? d.port,
    rateLimit: {
      requestsPerMinute: overrides.rateLimit?.requestsPerMinute ?? d.rateLimit.requestsPerMinute,
      perAddressPerMinute: overrides.rateLimit?.perAddressPerMinute ?? d.rateLimit.perAddressPerMinute,
    },
    trustProxy: [...(overrides.trustProxy ?? d.trustProxy)],
    signIn: { ...d.signIn, ...overrides.signIn },
  });
}

function integerVar(env: Readonly<Record<string, string | undefined>>, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\s*\d+\s*$/.test(raw)) {
    throw new RacingError('config_invalid', `${name} must be a non-negative integer (got '${raw}')`, {
      details: { variable: name },
    });
  }
  return Number(raw);
}

/**
 * Reads HOST (default 127.0.0.1), PORT (default 3000), RATE_LIMIT_PER_MINUTE (per key, default 600),
 * PUBLIC_RATE_LIMIT_PER_MINUTE (per address on keyless routes, default 120) and TRUST_PROXY (comma-separated
 * proxy addresses or CIDRs, default none).
 */
export function apiConfigFromEnv(env: Readonly<Record<string, string | undefined>>): ApiConfig {
  const host = env['HOST']?.trim();
  try {
    return apiConfig({
      host: host === undefined || host === '' ? API_CONFIG_DEFAULTS.host : host,
      port: integerVar(env, 'PORT', API_CONFIG_DEFAULTS.port),
      rateLimit: {
        requestsPerMinute: integerVar(env, 'RATE_LIMIT_PER_MINUTE', API_CONFIG_DEFAULTS.rateLimit.requestsPerMinute),
        perAddressPerMinute: integerVar(
          env,
          'PUBLIC_RATE_LIMIT_PER_MINUTE',
          API_CONFIG_DEFAULTS.rateLimit.perAddressPerMinute,
        ),
      },
      trustProxy: (env['TRUST_PROXY'] ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    });
  } catch (e) {
    // Name the environment variable rather than the config path the user never wrote.
    if (e instanceof RacingError && e.code === 'config_invalid' && e.details?.['variable'] === undefined) {
      const msg = e.message
        .replace('/port', 'PORT')
        .replace('/rateLimit/requestsPerMinute', 'RATE_LIMIT_PER_MINUTE')
        .replace('/rateLimit/perAddressPerMinute', 'PUBLIC_RATE_LIMIT_PER_MINUTE')
        .replace('/host', 'HOST');
      throw new RacingError('config_invalid', msg.replace('invalid API config', 'invalid environment'), { cause: e });
    }
    throw e;
  }
}
