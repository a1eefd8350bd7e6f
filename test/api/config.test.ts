import { describe, expect, it } from 'vitest';
import { apiConfig, apiConfigFromEnv } from '../../api/config.js';
import { RacingError } from '../../domain/errors.js';

function codeOf(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return e instanceof RacingError ? e.code : 'not a RacingError';
  }
  return undefined;
}

describe('apiConfigFromEnv', () => {
  it('defaults HOST 127.0.0.1, PORT 3000, RATE_LIMIT_PER_MINUTE 600, frozen', () => {
    const c = apiConfigFromEnv({});
    expect(c).toEqual({
      host: '127.0.0.1',
      port: 3000,
      rateLimit: { requestsPerMinute: 600, perAddressPerMinute: 120 },
      trustProxy: [],
      signIn: { failuresPerAccount: 5, failuresPerAddress: 20, windowSeconds: 900 },
    });
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.rateLimit)).toBe(true);
    expect(Object.isFrozen(c.signIn)).toBe(true);
  });

  it('reads the variables', () => {
    expect(
      apiConfigFromEnv({
        HOST: '0.0.0.0',
        PORT: '8080',
        RATE_LIMIT_PER_MINUTE: '60',
        PUBLIC_RATE_LIMIT_PER_MINUTE: '30',
        TRUST_PROXY: '10.0.0.1, 192.168.0.0/16',
      }),
    ).toMatchObject({
      host: '0.0.0.0',
      port: 8080,
      rateLimit: { requestsPerMinute: 60, perAddressPerMinute: 30 },
      trustProxy: ['10.0.0.1', '192.168.0.0/16'],
    });
    expect(apiConfigFromEnv({ PORT: '' }).port).toBe(3000);
  });

  it.each([
    [{ PORT: 'abc' }, /PORT/],
    [{ PORT: '3000.5' }, /PORT/],
    [{ PORT: '-1' }, /PORT/],
    [{ PORT: '70000' }, /PORT/],
    [{ RATE_LIMIT_PER_MINUTE: '0' }, /RATE_LIMIT_PER_MINUTE/],
    [{ RATE_LIMIT_PER_MINUTE: 'lots' }, /RATE_LIMIT_PER_MINUTE/],
    [{ PUBLIC_RATE_LIMIT_PER_MINUTE: '0' }, /PUBLIC_RATE_LIMIT_PER_MINUTE/],
  ])('refuses %j with config_invalid naming the variable', (env, name) => {
    expect(codeOf(() => apiConfigFromEnv(env))).toBe('config_invalid');
    expect(() => apiConfigFromEnv(env)).toThrow(name);
  });

  it('apiConfig validates overrides too', () => {
    expect(codeOf(() => apiConfig({ host: '' }))).toBe('config_invalid');
    expect(apiConfig({ port: 0 }).port).toBe(0);
  });
});
