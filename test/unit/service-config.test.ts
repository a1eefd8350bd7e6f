import { describe, expect, it } from 'vitest';
import { serviceConfigFromEnv } from '../../cli/config.js';
import { RacingError } from '../../domain/errors.js';

describe('checkpoint intervals', () => {
  it('checkpoints every 5 s, live and while catching up, by default', () => {
    const c = serviceConfigFromEnv({});
    expect(c.checkpointIntervalMs).toBe(5000);
    expect(c.catchUpCheckpointMs).toBe(5000);
  });

  it('follows RACING_CHECKPOINT_MS unless RACING_CATCHUP_CHECKPOINT_MS is set, within the limit', () => {
    expect(serviceConfigFromEnv({ RACING_CHECKPOINT_MS: '100' }).catchUpCheckpointMs).toBe(100);
    expect(serviceConfigFromEnv({ RACING_CHECKPOINT_MS: '3600000' }).catchUpCheckpointMs).toBe(3_600_000);
    const both = serviceConfigFromEnv({ RACING_CHECKPOINT_MS: '100', RACING_CATCHUP_CHECKPOINT_MS: '250' });
    expect([both.checkpointIntervalMs, both.catchUpCheckpointMs]).toEqual([100, 250]);
  });

  it.each([['5'], ['-1'], ['soon'], ['3600001']])('refuses RACING_CATCHUP_CHECKPOINT_MS=%s, naming it', (v) => {
    let error: unknown;
    try {
      serviceConfigFromEnv({ RACING_CATCHUP_CHECKPOINT_MS: v });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RacingError);
    expect((error as RacingError).code).toBe('config_invalid');
    expect((error as Error).message).toContain('RACING_CATCHUP_CHECKPOINT_MS');
  });
});

describe('helper threads nice value', () => {
  it('is 19 by default, and 0..19 from RACING_HELPER_NICE', () => {
    expect(serviceConfigFromEnv({}).helperNice).toBe(19);
    expect(serviceConfigFromEnv({ RACING_HELPER_NICE: '0' }).helperNice).toBe(0);
    expect(serviceConfigFromEnv({ RACING_HELPER_NICE: '7' }).helperNice).toBe(7);
  });

  it.each([['20'], ['-1'], ['high']])('refuses RACING_HELPER_NICE=%s, naming it', (v) => {
    expect(() => serviceConfigFromEnv({ RACING_HELPER_NICE: v })).toThrow(/RACING_HELPER_NICE/);
  });
});
