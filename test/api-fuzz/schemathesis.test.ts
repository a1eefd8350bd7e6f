/**
 * The public API under an outside fuzzer, as a new user would meet it: schemathesis (PyPI, pinned in
 * scripts/schemathesis-requirements.txt) against the OpenAPI document the service serves, every check
 * enabled, a fixed seed, over every operation of the document, against `racing serve` on a free
 * loopback port with a week of generated racing and an API key. Any failure, any error, or an operation
 * left untested fails the test.
 *
 * The document is fetched first and handed to schemathesis as a file with the server's origin: given the
 * document's URL, schemathesis leaves out the operation that serves it (GET /api/v1/openapi.json).
 * The rate limits are raised for the run: a fuzzer is one client sending hundreds of requests a minute,
 * and what is under test is the contract, not the limiter (tests in test/api cover the 429s).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pythonEnv, pythonEnvUnavailableReason, SCHEMATHESIS_REQUIREMENTS } from '../support/python-env.js';
import { type Served, startServed } from '../support/served.js';

const run = promisify(execFile);
const SEED = '20261123';
const MAX_EXAMPLES = '40';
const HOOKS = join(import.meta.dirname, 'schemathesis_hooks.py');

interface Report {
  exit_code: number;
  operations: { total: number; selected: number; tested: number; errored: number };
  test_cases: { generated: number; with_failures: number; unique_failures: number; errored: number };
  failures: unknown[];
  errors: unknown[];
}

describe('schemathesis against the served OpenAPI document', () => {
  let python: string | undefined;
  let served: Served | undefined;
  let key = '';
  const work = mkdtempSync(join(tmpdir(), 'racing-fuzz-'));

  beforeAll(async () => {
    python = await pythonEnv(SCHEMATHESIS_REQUIREMENTS);
    if (!python) return;
    served = await startServed({
      // The change stream (GET /api/v1/stream/analytics) never ends by itself: closed after a second, each
      // streamed answer is a complete response the fuzzer can check.
      env: {
        RATE_LIMIT_PER_MINUTE: '1000000',
        PUBLIC_RATE_LIMIT_PER_MINUTE: '1000000',
        RACING_STREAM_MAX_CONNECTION_SECONDS: '1',
      },
    });
    key = (
      JSON.parse((await served.racing(['keys', 'create', '--name', 'fuzzer', '--json'])).stdout) as { key: string }
    ).key;
  }, 600_000);

  afterAll(async () => {
    await served?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('finds no failure in any check over every public operation (fixed seed)', async (ctx) => {
    if (!python || !served) return ctx.skip(pythonEnvUnavailableReason());
    const doc = (await (await fetch(`${served.url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const operations = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(operations).toBeGreaterThanOrEqual(8);
    expect(Object.keys(doc.paths).every((p) => p.startsWith('/api/v1/'))).toBe(true);
    writeFileSync(join(work, 'openapi.json'), JSON.stringify(doc));

    const reportDir = join(work, 'report');
    const args = [
      'run',
      join(work, 'openapi.json'),
      '--url',
      served.url,
      '--checks',
      'all',
      '--seed',
      SEED,
      '--max-examples',
      MAX_EXAMPLES,
      '--header',
      `X-Api-Key: ${key}`,
      '--report',
      'json',
      '--report-dir',
      reportDir,
      '--no-color',
    ];
    const st = join(dirname(python), 'schemathesis');
    const result = await run(st, args, {
      cwd: work,
      env: { ...process.env, SCHEMATHESIS_HOOKS: HOOKS, NO_COLOR: '1' },
      maxBuffer: 1 << 26,
      timeout: 600_000,
    }).then(
      (r) => ({ ...r, code: 0 }),
      (e: { stdout?: string; stderr?: string; code?: number }) => ({
        stdout: e.stdout ?? '',
        stderr: e.stderr ?? '',
        code: e.code ?? 1,
      }),
    );
    const file = readdirSync(reportDir).find((f) => f.endsWith('.json'));
    if (!file)
      throw new Error(`schemathesis wrote no report (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
    const report = JSON.parse(readFileSync(join(reportDir, file), 'utf8')) as Report;
    process.stderr.write(
      `[schemathesis] seed ${SEED}: ${report.operations.tested}/${report.operations.total} operations, ` +
        `${report.test_cases.generated} cases, ${report.test_cases.unique_failures} failures, ` +
        `${report.errors.length} errors\n`,
    );
    const context = `${result.stdout.slice(-6000)}\n${result.stderr.slice(-2000)}`;
    expect(report.operations.total, context).toBe(operations);
    expect(report.operations.tested, context).toBe(operations);
    expect(report.test_cases.generated, context).toBeGreaterThan(operations * 10);
    expect(report.failures, context).toEqual([]);
    expect(report.errors, context).toEqual([]);
    expect(report.test_cases.unique_failures, context).toBe(0);
    expect(report.exit_code, context).toBe(0);
    expect(result.code, context).toBe(0);
  }, 600_000);
});
