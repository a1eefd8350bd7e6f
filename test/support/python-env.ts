/**
 * A Python virtualenv with scripts/python-requirements.txt installed, for tests that run the project's
 * Python tools (scripts/consume-analytics.py) as an outside consumer would; or with another pinned
 * requirements file (scripts/schemathesis-requirements.txt for the API fuzzer), each in its own venv.
 *
 * The venv is created once per requirements file and interpreter, under
 * `$RACING_PYTHON_CACHE` (default `~/.cache/racing-python`)`/<hash>`, where the hash covers the
 * requirements text and the interpreter's version and prefix; a `.complete` marker is written last, so an
 * interrupted build is redone. Concurrent callers (vitest forks) wait for one another on a lock directory.
 * The first build downloads ~20 MB of wheels from PyPI (about 5-60 s); later calls only check the marker.
 *
 * When `python3` (>= 3.10, with the venv module and pip) is missing, `pythonEnv()` resolves to
 * undefined so the caller can skip, except with CI=true, where it throws: CI must not skip silently.
 * A failing `pip install` (a network problem, a bad pin) always throws.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
export const PYTHON_REQUIREMENTS = join(ROOT, 'scripts', 'python-requirements.txt');
/** schemathesis, pinned with everything it pulls in (test/api-fuzz). */
export const SCHEMATHESIS_REQUIREMENTS = join(ROOT, 'scripts', 'schemathesis-requirements.txt');
const MIN_PYTHON: readonly [number, number] = [3, 10];
const INSTALL_TIMEOUT_MS = 10 * 60_000;
const LOCK_STALE_MS = INSTALL_TIMEOUT_MS + 60_000;

const cached = new Map<string, Promise<string | undefined>>();
let unavailableReason: string | undefined;

/** Why the last `pythonEnv()` resolved to undefined (for skip messages). */
export function pythonEnvUnavailableReason(): string | undefined {
  return unavailableReason;
}

/** Path of the venv's python with the requirements installed, or undefined when Python is unavailable (not on CI). */
export function pythonEnv(requirementsFile: string = PYTHON_REQUIREMENTS): Promise<string | undefined> {
  let env = cached.get(requirementsFile);
  if (!env) {
    env = build(requirementsFile).catch((err: unknown) => {
      cached.delete(requirementsFile); // let a later call retry
      throw err;
    });
    cached.set(requirementsFile, env);
  }
  return env;
}

function cacheRoot(): string {
  return process.env['RACING_PYTHON_CACHE'] || join(homedir(), '.cache', 'racing-python');
}

function log(msg: string): void {
  process.stderr.write(`[python-env] ${msg}\n`);
}

function unavailable(reason: string): undefined {
  const msg = `${reason} (needed by the Python tools the tests run; Debian: apt-get install python3 python3-venv)`;
  if (process.env['CI'] === 'true') {
    throw new Error(`[python-env] ${msg}. CI must run the Python tests, so this is an error.`);
  }
  unavailableReason = msg;
  log(`${msg}; tests that need it are SKIPPED`);
  return undefined;
}

interface Interpreter {
  version: [number, number, number];
  /** sys.base_prefix: identifies the installation behind a pyenv shim or a symlink */
  basePrefix: string;
  hasVenv: boolean;
  hasEnsurepip: boolean;
}

function probeInterpreter(python: string): Interpreter | undefined {
  const code =
    'import importlib.util as u, json, sys\n' +
    'print(json.dumps({"version": list(sys.version_info[:3]), "basePrefix": sys.base_prefix,' +
    ' "hasVenv": u.find_spec("venv") is not None, "hasEnsurepip": u.find_spec("ensurepip") is not None}))';
  const r = spawnSync(python, ['-c', code], { encoding: 'utf8', timeout: 30_000 });
  if (r.error || r.status !== 0) return undefined;
  try {
    return JSON.parse(r.stdout.trim().split('\n').pop() ?? '') as Interpreter;
  } catch {
    return undefined;
  }
}

async function build(requirementsFile: string): Promise<string | undefined> {
  unavailableReason = undefined;
  const python = 'python3';
  const interp = probeInterpreter(python);
  if (!interp) return unavailable('python3 is not on PATH (or does not run)');
  const [major, minor] = interp.version;
  if (major < MIN_PYTHON[0] || (major === MIN_PYTHON[0] && minor < MIN_PYTHON[1])) {
    return unavailable(`python3 is ${interp.version.join('.')}, need >= ${MIN_PYTHON.join('.')}`);
  }
  if (!interp.hasVenv || !interp.hasEnsurepip) {
    return unavailable('python3 lacks the venv module or pip (ensurepip)');
  }

  const requirements = await readFile(requirementsFile, 'utf8');
  const hash = createHash('sha256')
    .update(requirements)
    .update(`\0${interp.version.join('.')}\0${interp.basePrefix}\0${process.platform}-${process.arch}`)
    .digest('hex')
    .slice(0, 16);
  const venv = join(cacheRoot(), hash);
  const venvPython = join(venv, 'bin', 'python');
  const marker = join(venv, '.complete');
  if (existsSync(marker) && existsSync(venvPython)) return venvPython;

  await mkdir(cacheRoot(), { recursive: true });
  return withLock(`${venv}.lock`, async () => {
    if (existsSync(marker) && existsSync(venvPython)) return venvPython; // built while we waited
    const started = Date.now();
    log(`creating ${venv} from ${requirementsFile} (first run only; downloads from PyPI)...`);
    await rm(venv, { recursive: true, force: true });
    await run(python, ['-m', 'venv', venv], 120_000);
    await run(
      venvPython,
      ['-m', 'pip', 'install', '--disable-pip-version-check', '--no-input', '-q', '-r', requirementsFile],
      INSTALL_TIMEOUT_MS,
    );
    await writeFile(
      marker,
      `${JSON.stringify({ requirementsSha256: createHash('sha256').update(requirements).digest('hex'), python: interp.version.join('.'), basePrefix: interp.basePrefix, createdAt: new Date().toISOString() }, null, 2)}\n`,
    );
    log(`ready in ${((Date.now() - started) / 1000).toFixed(1)}s: ${venvPython}`);
    return venvPython;
  });
}

function run(cmd: string, args: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, PIP_NO_INPUT: '1' } });
    let output = '';
    const collect = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-20_000);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`[python-env] cannot run ${cmd}: ${err.message}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `[python-env] \`${cmd} ${args.join(' ')}\` failed (${code ?? signal}); is PyPI reachable?\n${output.trim()}`,
          ),
        );
    });
  });
}

/** Cross-process lock: an atomically created directory holding the owner's pid (stale when the owner died). */
async function withLock<T>(lockDir: string, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + LOCK_STALE_MS;
  let told = false;
  for (;;) {
    try {
      await mkdir(lockDir);
      await writeFile(join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = Number(await readFile(join(lockDir, 'pid'), 'utf8').catch(() => 'NaN'));
      const age = Date.now() - ((await stat(lockDir).catch(() => undefined))?.mtimeMs ?? Date.now());
      if ((Number.isInteger(owner) && !isAlive(owner)) || age > LOCK_STALE_MS) {
        await rm(lockDir, { recursive: true, force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`[python-env] timed out waiting for the lock ${lockDir}`);
      if (!told) {
        log(`waiting for another process building the venv (lock ${lockDir})`);
        told = true;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lockDir, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
