/**
 * Settings a data dir keeps across restarts because its rows depend on them: today the date from
 * which course snapshots are daily. `racing start` fixes it when it creates the demo (the first day of
 * the month it went live), so every restart and rebuild of that data dir computes the same rows; the
 * environment (RACING_DAILY_SNAPSHOTS_FROM) overrides it.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServiceConfig } from './config.js';

export interface DataDirSettings {
  /** YYYY-MM-01 or null (monthly snapshots only) */
  dailySnapshotsFrom: string | null;
}

const FILE = 'settings.json';

export function readSettings(dataDir: string): DataDirSettings {
  const path = join(dataDir, FILE);
  if (!existsSync(path)) return { dailySnapshotsFrom: null };
  const parsed = JSON.parse(readFileSync(path, 'utf8')) as Partial<DataDirSettings>;
  return { dailySnapshotsFrom: parsed.dailySnapshotsFrom ?? null };
}

export function writeSettings(dataDir: string, settings: DataDirSettings): void {
  writeFileSync(join(dataDir, FILE), `${JSON.stringify(settings, null, 2)}\n`);
}

/** The daily-snapshot start in force for this data dir (epoch ms), or undefined for monthly only. */
export function dailySnapshotsFrom(config: ServiceConfig): number | undefined {
  const date = config.dailySnapshotsFrom ?? readSettings(config.dataDir).dailySnapshotsFrom;
  return date === null ? undefined : Date.parse(`${date}T00:00:00Z`);
}
