/**
 * The running service advertises its admin endpoint in <dataDir>/service.json (mode 0600), so that
 * `racing keys` and `racing export` in a second terminal go through the single writer instead of
 * opening the locked store.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ServiceFile {
  pid: number;
  adminUrl: string;
  token: string;
  /** the public API's address (what `racing status` asks when given no URL) */
  apiUrl?: string;
}

const fileOf = (dataDir: string) => join(dataDir, 'service.json');

export function writeServiceFile(dataDir: string, s: ServiceFile): void {
  writeFileSync(fileOf(dataDir), JSON.stringify(s), { mode: 0o600 });
}

export function removeServiceFile(dataDir: string): void {
  rmSync(fileOf(dataDir), { force: true });
}

/** The running service, or undefined when none is running (a stale file of a dead process is ignored). */
export function runningService(dataDir: string): ServiceFile | undefined {
  let s: ServiceFile;
  try {
    s = JSON.parse(readFileSync(fileOf(dataDir), 'utf8')) as ServiceFile;
  } catch {
    return undefined;
  }
  try {
    process.kill(s.pid, 0);
    return s;
  } catch {
    return undefined;
  }
}
