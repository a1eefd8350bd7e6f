/**
 * An independent implementation of features.md and catalogue.md (scripts/verify/lsr_features.py, Python
 * standard library, written without reading the service's feature code) computed straight from the real
 * results files, compared with the service's rows for every runner. See docs/verification.md.
 *
 * A checker that passes when one side has no rows proves nothing, so the second part makes it fail on
 * purpose: an export with a runner deleted, an extra row, a duplicate, a changed or missing value, an
 * empty export and an empty data folder must all exit non-zero. It runs on a small synthetic results
 * file (scripts/verify/make_synthetic.py, a few seconds), and the row checks again on the real export.
 */
import { execFile, spawnSync } from 'node:child_process';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..', '..');
const DATA = join(ROOT, '..', 'shared', 'data', 'lsr-racingdata');
const VERIFY = join(ROOT, 'scripts', 'verify');
const present = existsSync(DATA);
// Standard-library Python only (no venv): CI must have python3, elsewhere the suites skip without it.
const python = spawnSync('python3', ['--version']).status === 0;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env, timeout = 1_800_000): Promise<Run> {
  return new Promise((resolve) => {
    execFile(cmd, args, { cwd: ROOT, env, maxBuffer: 1 << 27, timeout }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const check = (args: string[]) => run('python3', ['-B', join(VERIFY, 'lsr_features.py'), ...args]);
const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
const write = (file: string, rows: string[]) => writeFileSync(file, rows.map((l) => `${l}\n`).join(''));

/**
 * Copies the non-empty lines of `src` to `dst` less the one at `skip`, line by line (the full export is
 * larger than the longest string V8 allows, so it is never read whole). Returns the lines of `src`.
 */
async function copyWithout(src: string, dst: string, skip: number): Promise<number> {
  const out = createWriteStream(dst);
  let n = 0;
  for await (const line of createInterface({ input: createReadStream(src), crlfDelay: Infinity })) {
    if (line.trim() === '') continue;
    if (n++ !== skip && !out.write(`${line}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return n;
}

describe.skipIf(!python && process.env['CI'] !== 'true')(
  'the independent check fails on purpose (synthetic results file)',
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'racing-verify-syn-'));
    const data = join(dir, 'data');
    const mine = join(dir, 'mine.ndjson');
    const edited = join(dir, 'edited.ndjson');
    let rows: string[] = [];

    beforeAll(async () => {
      const made = await run('python3', [join(VERIFY, 'make_synthetic.py'), data]);
      expect(made.code, made.stderr).toBe(0);
      const dumped = await check(['--data', data, '--dump', mine, '--export', join(dir, 'none')]);
      expect(dumped.code, dumped.stdout + dumped.stderr).toBe(0);
      rows = lines(mine);
      expect(rows.length).toBeGreaterThan(500);
    }, 120_000);
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('passes on an export equal to its own rows (every field of every runner compared)', async () => {
      const r = await check(['--data', data, '--export', mine]);
      expect(r.code, r.stdout).toBe(0);
      expect(r.stdout).toContain(`compared ${rows.length} runners x 206 fields`);
      expect(r.stdout).toContain(`PASS: ${rows.length} runners`);
    }, 180_000);

    it('fails when the export lacks one runner, and says which count', async () => {
      write(edited, rows.slice(1));
      const r = await check(['--data', data, '--export', edited]);
      expect(r.code).toBe(1);
      expect(r.stdout).toContain('runners in the files absent from the export: 1;');
      expect(r.stdout).toContain('FAIL: 1 runner(s) of the files absent from the export');
    }, 180_000);

    it('fails on an export row without a runner in the files, and on a duplicate row', async () => {
      const extra = JSON.parse(rows[0]!) as Record<string, unknown>;
      extra['horseId'] = 'hrs_notinthefiles00';
      write(edited, [...rows, JSON.stringify(extra)]);
      const r1 = await check(['--data', data, '--export', edited]);
      expect(r1.code).toBe(1);
      expect(r1.stdout).toContain('FAIL: 1 export row(s) without a runner in the files');
      write(edited, [...rows, rows[3]!]);
      const r2 = await check(['--data', data, '--export', edited]);
      expect(r2.code).toBe(1);
      expect(r2.stdout).toContain('FAIL: 1 duplicate export row(s)');
    }, 180_000);

    it('fails on an empty export, a missing export and an empty data folder', async () => {
      write(edited, []);
      const empty = await check(['--data', data, '--export', edited]);
      expect(empty.code).toBe(1);
      expect(empty.stdout).toContain('FAIL: the export is empty');
      expect(empty.stdout).toContain(`FAIL: ${rows.length} runner(s) of the files absent from the export`);
      const missing = await check(['--data', data, '--export', join(dir, 'no-such-export.ndjson')]);
      expect(missing.code).toBe(1);
      expect(missing.stdout).toContain('FAIL: no export at');
      const noData = await check(['--data', join(dir, 'no-such-folder'), '--export', mine]);
      expect(noData.code).toBe(1);
      expect(noData.stdout).toContain('FAIL: no runner rows');
      const rowsOnly = await check(['--data', data, '--export', edited, '--rows-only']);
      expect(rowsOnly.code).toBe(1);
      expect(rowsOnly.stdout).toContain('FAIL: export is empty');
    }, 180_000);

    it('fails on one changed value, a value one unit off where no half is involved, and a missing field', async () => {
      const edit = (pred: (e: Record<string, unknown>) => boolean, change: (e: Record<string, unknown>) => void) => {
        const i = rows.findIndex((l) => pred(JSON.parse(l) as Record<string, unknown>));
        expect(i).toBeGreaterThanOrEqual(0);
        const e = JSON.parse(rows[i]!) as Record<string, unknown>;
        change(e);
        write(
          edited,
          rows.map((l, j) => (j === i ? JSON.stringify(e) : l)),
        );
      };
      const mismatches = (stdout: string, field: string) =>
        Number(new RegExp(`^${field}\\s+(\\d+)\\s+\\d+\\s+\\d+$`, 'm').exec(stdout)?.[1]);

      edit(
        () => true,
        (e) => (e['careerRuns'] = (e['careerRuns'] as number) + 1),
      );
      let r = await check(['--data', data, '--export', edited]);
      expect(r.code).toBe(1);
      expect(mismatches(r.stdout, 'careerRuns')).toBe(1);

      // a rate whose exact value is a whole number of 0.0001 (e.g. 0.25): no half, so one unit off is a mismatch
      edit(
        (e) => e['careerWinRate'] === 0.25,
        (e) => (e['careerWinRate'] = 0.2501),
      );
      r = await check(['--data', data, '--export', edited]);
      expect(r.code).toBe(1);
      expect(mismatches(r.stdout, 'careerWinRate')).toBe(1);

      edit(
        () => true,
        (e) => delete e['trainerAe365Day'],
      );
      r = await check(['--data', data, '--export', edited]);
      expect(r.code).toBe(1);
      expect(mismatches(r.stdout, 'trainerAe365Day')).toBe(1);
      expect(r.stdout).toMatch(/^trainerAe365Day\s+1\s+0\s+1$/m);
    }, 180_000);
  },
);

describe.skipIf((!present || !python) && process.env['CI'] !== 'true')('independent check on real results', () => {
  const dir = mkdtempSync(join(tmpdir(), 'racing-verify-'));
  const exported = join(dir, 'export.ndjson');
  const edited = join(dir, 'edited.ndjson');
  let full: Run;

  beforeAll(async () => {
    expect(present, `${DATA} is missing`).toBe(true);
    // import, process and export every runner (Node), then compare (Python): several minutes on 2 cores
    full = await run('bash', [join(VERIFY, 'run.sh')], {
      ...process.env,
      RACING_DATA_DIR: join(dir, 'data'),
      EXPORT: exported,
      LOG_LEVEL: 'warn',
    });
  }, 1_800_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('agrees with the independent implementation on every field of every runner', () => {
    expect(full.stdout).toContain('compared 126771 runners x 206 fields');
    expect(full.stdout).toMatch(/^careerRuns\s+0\s+0\s+0$/m);
    expect(full.stdout).toMatch(/^improvingVpr\s+0\s+\d+\s+0$/m);
    expect(full.stdout).toContain('total time');
    expect(
      full.code,
      full.stdout
        .split('\n')
        .filter((l) => /FAIL|^\w+\s+[1-9]/.test(l))
        .join('\n'),
    ).toBe(0);
    expect(full.stdout).toContain('PASS: 126771 runners');
  });

  it('fails on the real export with one runner deleted, and on an empty one (rows only)', async () => {
    const whole = await check(['--export', exported, '--rows-only']);
    expect(whole.code, whole.stdout).toBe(0);
    expect(await copyWithout(exported, edited, 1000)).toBe(126_771);
    const minusOne = await check(['--export', edited, '--rows-only']);
    expect(minusOne.code).toBe(1);
    expect(minusOne.stdout).toContain('runners absent from the export: 1;');
    write(edited, []);
    const empty = await check(['--export', edited, '--rows-only']);
    expect(empty.code).toBe(1);
    expect(empty.stdout).toContain('FAIL: export is empty');
  }, 300_000);
});
