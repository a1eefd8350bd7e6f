/**
 * Service configuration, read once from the environment, validated (TypeBox), defaulted explicitly and
 * frozen. Commands receive it; nothing else reads process.env.
 */
import { resolve } from 'node:path';
import { type Static, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { type ApiConfig, apiConfigFromEnv } from '../api/config.js';
import { RacingError } from '../domain/errors.js';

const ServiceSchema = Type.Object({
  dataDir: Type.String({ minLength: 1 }),
  mode: Type.Union([Type.Literal('embedded'), Type.Literal('kafka')]),
  partitions: Type.Integer({ minimum: 1, maximum: 256 }),
  demoYears: Type.Integer({ minimum: 1, maximum: 40 }),
  logLevel: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l))),
});

export type ServiceConfig = Readonly<Static<typeof ServiceSchema>> & { readonly api: ApiConfig };

type Env = Readonly<Record<string, string | undefined>>;

function int(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new RacingError('config_invalid', `${name} must be a positive integer (got '${raw}')`);
  return Number(raw);
}

/**
 * RACING_DATA_DIR (default ./data), RACING_MODE (embedded), RACING_PARTITIONS (4), RACING_DEMO_YEARS (3),
 * LOG_LEVEL (info), plus the API's HOST, PORT and RATE_LIMIT_PER_MINUTE.
 */
export function serviceConfigFromEnv(env: Env): ServiceConfig {
  const candidate = {
    dataDir: resolve(env['RACING_DATA_DIR']?.trim() || './data'),
    mode: env['RACING_MODE']?.trim() || 'embedded',
    partitions: int(env, 'RACING_PARTITIONS', 4),
    demoYears: int(env, 'RACING_DEMO_YEARS', 3),
    logLevel: env['LOG_LEVEL']?.trim() || 'info',
  };
  if (!Value.Check(ServiceSchema, candidate)) {
    const problems = [...Value.Errors(ServiceSchema, candidate)].map((e) => `${e.path}: ${e.message}`);
    throw new RacingError('config_invalid', `invalid configuration: ${problems.join('; ')}`);
  }
  if (candidate.mode === 'kafka') {
    throw new RacingError('config_invalid', 'RACING_MODE=kafka is not available in this version; use embedded');
  }
  return Object.freeze({ ...(candidate as Static<typeof ServiceSchema>), api: apiConfigFromEnv(env) });
}
