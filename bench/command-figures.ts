/**
 * The figures a `racing process` / `rebuild` command prints as one JSON line on stdout. Its log lines
 * (pino, JSON too) share stdout and may follow the figures (a Kafka client's warning while it
 * disconnects): the figures are the last line that parses as JSON and carries numeric `rows` and
 * `seconds`, log lines (with `level` and `msg`) skipped. Without one, the command's output is kept in a
 * file and the error names it, so a run of an hour is never lost to a log line.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function commandFigures<F>(what: string, stdout: string, stderr = ''): F {
  const lines = stdout.trim().split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i]!.trim();
    if (!line.startsWith('{')) continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue;
    }
    if (isFigures(v)) return v as F;
  }
  const file = join(tmpdir(), `racing-bench-${what.replace(/\W+/g, '-')}-${process.pid}-${Date.now()}.out`);
  writeFileSync(file, `--- stdout\n${stdout}\n--- stderr\n${stderr}\n`);
  throw new Error(`racing ${what} printed no figures line (JSON with rows and seconds); its output is in ${file}`);
}

function isFigures(v: unknown): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.rows === 'number' && typeof o.seconds === 'number' && !('level' in o && 'msg' in o);
}
