/**
 * Time from `npm start` on an empty data dir to the first served request (GET /api/v1/demo answering
 * 200), as a new user experiences it. Prints the figure as JSON and stops the service.
 *   node --import tsx bench/start-to-first-request.bench.ts [--port 3199]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { port: { type: 'string', default: '3199' } } });
const root = join(import.meta.dirname, '..');
const dataDir = mkdtempSync(join(tmpdir(), 'racing-start-'));
const started = performance.now();
const child = spawn('npm', ['start'], {
  cwd: root,
  env: { ...process.env, RACING_DATA_DIR: dataDir, PORT: values.port, LOG_LEVEL: 'warn' },
  stdio: ['ignore', 'ignore', 'pipe'],
  detached: true,
});
let stderr = '';
child.stderr.on('data', (b: Buffer) => {
  stderr += b.toString();
});
const deadline = started + 300_000;
let seconds: number | undefined;
while (performance.now() < deadline && child.exitCode === null) {
  try {
    const res = await fetch(`http://127.0.0.1:${values.port}/api/v1/demo`);
    if (res.status === 200) {
      seconds = (performance.now() - started) / 1000;
      break;
    }
  } catch {
    // not listening yet
  }
  await new Promise((r) => setTimeout(r, 250));
}
process.kill(-child.pid!, 'SIGTERM');
await new Promise((r) => child.once('exit', r));
rmSync(dataDir, { recursive: true, force: true });
if (seconds === undefined) {
  console.error(stderr.slice(-2000));
  throw new Error('the service did not answer within 300 s');
}
const ready = /ready ([\d.]+)s after start/.exec(stderr)?.[1];
console.log(
  JSON.stringify({
    secondsToFirstRequest: +seconds.toFixed(1),
    serviceReportedReadySeconds: ready ? Number(ready) : null,
  }),
);
