/**
 * An independent implementation of features.md (scripts/verify/lsr_features.py, Python standard
 * library, written without reading the service's feature code) computed straight from the real results
 * files, compared with the service's rows for every runner. See docs/verification.md.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DATA = join(ROOT, '..', 'shared', 'data', 'lsr-racingdata');
const present = existsSync(DATA);

describe.skipIf(!present && process.env['CI'] !== 'true')('independent check on real results', () => {
  it('agrees with the independent implementation on every field of every runner', async () => {
    expect(present, `${DATA} is missing`).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'racing-verify-'));
    try {
      const { stdout } = await promisify(execFile)('bash', [join(ROOT, 'scripts', 'verify', 'run.sh')], {
        cwd: ROOT,
        env: {
          ...process.env,
          RACING_DATA_DIR: join(dir, 'data'),
          EXPORT: join(dir, 'export.ndjson'),
          LOG_LEVEL: 'warn',
        },
        maxBuffer: 1 << 26,
      });
      expect(stdout).toMatch(/careerRuns\s+0\s+0/);
      expect(stdout).toMatch(/improvingVpr\s+0\s+0/);
      expect(stdout).toContain('total time');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
