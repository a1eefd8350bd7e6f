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
      { requestsPerMinute: Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'per API key' }) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

export type ApiConfig = Readonly<{
  host: string;
  port: number;
  rateLimit: Readonly<{ requestsPerMinute: number }>;
}>;

export const API_CONFIG_DEFAULTS: ApiConfig = Object.freeze({
  host: '127.0.0.1',
  port: 3000,
  rateLimit: Object.freeze({ requestsPerMinute: 600 }),
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
    rateLimit: Object.freeze({ requestsPerMinute: v.rateLimit.requestsPerMinute }),
  });
}

/** Defaults overlaid with `overrides`, validated and frozen. */
export function apiConfig(
  overrides: { host?: string; port?: number; rateLimit?: { requestsPerMinute?: number } } = {},
): ApiConfig {
  return validateApiConfig({
    host: overrides.host ?? API_CONFIG_DEFAULTS.host,
    port: overrides.port ?? API_CONFIG_DEFAULTS.port,
    rateLimit: {
      requestsPerMinute: overrides.rateLimit?.requestsPerMinute ?? API_CONFIG_DEFAULTS.rateLimit.requestsPerMinute,
    },
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

/** Reads HOST (default 127.0.0.1), PORT (default 3000) and RATE_LIMIT_PER_MINUTE (default 600). */
export function apiConfigFromEnv(env: Readonly<Record<string, string | undefined>>): ApiConfig {
  const host = env['HOST']?.trim();
  try {
    return apiConfig({
      host: host === undefined || host === '' ? API_CONFIG_DEFAULTS.host : host,
      port: integerVar(env, 'PORT', API_CONFIG_DEFAULTS.port),
      rateLimit: {
        requestsPerMinute: integerVar(env, 'RATE_LIMIT_PER_MINUTE', API_CONFIG_DEFAULTS.rateLimit.requestsPerMinute),
      },
    });
  } catch (e) {
    // Name the environment variable rather than the config path the user never wrote.
    if (e instanceof RacingError && e.code === 'config_invalid' && e.details?.['variable'] === undefined) {
      const msg = e.message
        .replace('/port', 'PORT')
        .replace('/rateLimit/requestsPerMinute', 'RATE_LIMIT_PER_MINUTE')
        .replace('/host', 'HOST');
      throw new RacingError('config_invalid', msg.replace('invalid API config', 'invalid environment'), { cause: e });
    }
    throw e;
  }
}
