/**
 * Importer for the LeeSanderson/RacingData monthly results files (`Results_YYYYMM.csv`): every runner
 * row becomes part of a race card (published 24 h before the off) and a race result (15 min after),
 * plus one course record per course. See docs/importer.md for every rule and the choices made.
 */
import { createHash } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { PublishableEvent } from '../events.js';
import {
  type BuiltRace,
  buildCourses,
  buildRace,
  cmp,
  compareEvents,
  IdCache,
  type OfficialRatingSource,
  type RaceRows,
} from './build.js';
import { forEachCsvRecord } from './csv.js';
import { type Columns, isRejection, parseRunnerRow, readHeader, type RunnerRow } from './rows.js';

export { CARD_LEAD_MS, COURSE_LEAD_MS, type OfficialRatingSource, RESULT_DELAY_MS, sourceKeys } from './build.js';

export interface ImportIssue {
  file: string;
  /** 1-based line of the record in its file (the header is line 1) */
  line: number;
  /** a stable reason code, the key of `rejectedByReason` (e.g. `missing-horse-id`, `bad-off`) */
  reason: string;
  /** what exactly was wrong, for people */
  detail?: string;
}

export interface ImportReport {
  files: number;
  /** data rows read (header and blank lines excluded); rows = runners + duplicateRowsDropped + rejectedRows */
  rows: number;
  races: number;
  runners: number;
  duplicateRowsDropped: number;
  rejectedRows: number;
  /** every rejected row, with file and 1-based line, in file then line order */
  issues: ImportIssue[];
  rejectedByReason: Record<string, number>;
}

export interface ImportOptions {
  onProgress?: (bytesDone: number, bytesTotal: number) => void;
  /**
   * Which rating fills `officialRating` on the card: `result` = OfficialRating (the brief), or
   * `card-when-present` = CardOfficialRating where the file has it (2026-06..08), else OfficialRating.
   */
  officialRating?: OfficialRatingSource;
  /**
   * Read GB/IRE offs written 22:00-23:59 as 10:00-11:59 (the source parsed 12-hour times as PM). Off by
   * default: the brief says Off is UK local time as written. raceId is unaffected either way.
   */
  fixGbIreMorningOffs?: boolean;
  /**
   * Also classify Hurdle-typed races titled "... NH Flat Race" / "... Flat Race" (no "hurdle" in the
   * title) as nh-flat, or flat when run from stalls. Off by default (the brief's regex only).
   */
  extendedFlatRaceRule?: boolean;
}

/** The defaults, in one place for the lead to change. */
export const IMPORT_DEFAULTS = Object.freeze({
  officialRating: 'result' as OfficialRatingSource,
  fixGbIreMorningOffs: false,
  extendedFlatRaceRule: false,
});

/** Orders paths by file name (Results_YYYYMM sorts by month), then by full path: the argument order never matters. */
function orderFiles(paths: string[]): string[] {
  return [...paths].sort((a, b) => cmp(basename(a), basename(b)) || cmp(a, b));
}

/**
 * Parses the files and returns the events sorted in feed order (publishedAt, then course < card <
 * result, then raceId) plus the report. Deterministic: the same files give the same events, byte for
 * byte, whatever order the paths are given in.
 */
export async function importResultsCsv(
  paths: string[],
  options: ImportOptions = {},
): Promise<{ events: PublishableEvent[]; report: ImportReport }> {
  const opts = {
    officialRating: options.officialRating ?? IMPORT_DEFAULTS.officialRating,
    fixGbIreMorningOffs: options.fixGbIreMorningOffs ?? IMPORT_DEFAULTS.fixGbIreMorningOffs,
    extendedFlatRaceRule: options.extendedFlatRaceRule ?? IMPORT_DEFAULTS.extendedFlatRaceRule,
  };
  const files = orderFiles(paths);
  const sizes = await Promise.all(files.map(async (p) => (await stat(p)).size));
  const bytesTotal = sizes.reduce((a, b) => a + b, 0);
  let bytesDone = 0;

  const issues: (ImportIssue & { fileIndex: number })[] = [];
  const races = new Map<string, RaceRows>();
  const raceSignature = new Map<string, string>();
  const seenRunners = new Set<string>();
  let rows = 0;
  let duplicates = 0;

  for (const [fileIndex, file] of files.entries()) {
    let columns: Columns | undefined;
    let missingColumns: string[] | undefined;
    const rejectRow = (line: number, reason: string, detail: string) =>
      issues.push({ file, line, reason, detail, fileIndex });
    const accept = (row: RunnerRow) => {
      const runnerKey = `${row.raceKey}\u0000${row.horseSourceId}`;
      const signature = raceSignature.get(row.raceKey);
      if (signature !== undefined && signature !== row.raceSignature) {
        rejectRow(
          row.line,
          'inconsistent-race-fields',
          "race name, type, class, distance, going or surface differs from the race's first row",
        );
        return;
      }
      if (seenRunners.has(runnerKey)) {
        duplicates++; // same (CourseId, Off, HorseId): keep the first occurrence
        return;
      }
      seenRunners.add(runnerKey);
      let race = races.get(row.raceKey);
      if (!race) {
        race = { rows: [], rowFileIndex: [] };
        races.set(row.raceKey, race);
        raceSignature.set(row.raceKey, row.raceSignature);
      }
      race.rows.push(row);
      race.rowFileIndex.push(fileIndex);
    };
    await forEachCsvRecord(
      file,
      (rec) => {
        if (columns === undefined && missingColumns === undefined) {
          if ('error' in rec) {
            missingColumns = ['(unreadable header)'];
            return;
          }
          const h = readHeader(rec.fields);
          if (h.columns) columns = h.columns;
          else missingColumns = h.missing;
          return;
        }
        rows++;
        if ('error' in rec) return void rejectRow(rec.line, 'csv-syntax', rec.error);
        if (!columns) return void rejectRow(rec.line, 'missing-columns', `header lacks ${missingColumns!.join(', ')}`);
        const parsed = parseRunnerRow(rec.fields, columns, rec.line);
        if (isRejection(parsed)) rejectRow(rec.line, parsed.reason, parsed.detail);
        else accept(parsed);
      },
      (n) => {
        bytesDone += n;
        options.onProgress?.(bytesDone, bytesTotal);
      },
    );
  }

  const ids = new IdCache();
  const built: BuiltRace[] = [];
  const events: PublishableEvent[] = [];
  let runners = 0;
  for (const race of races.values()) {
    const out = buildRace(race, ids, opts);
    if ('reason' in out) {
      const detail = out.errors.join('; ');
      race.rows.forEach((r, k) => {
        const fileIndex = race.rowFileIndex[k]!;
        issues.push({ file: files[fileIndex]!, line: r.line, reason: out.reason, detail, fileIndex });
      });
      continue;
    }
    built.push(out.race);
    runners += out.race.card.runners.length;
    events.push({ kind: 'card', publishedAt: out.race.card.publishedAt, value: out.race.card });
    events.push({ kind: 'result', publishedAt: out.race.result.publishedAt, value: out.race.result });
  }
  events.push(...buildCourses(built, ids));
  events.sort(compareEvents);

  issues.sort((a, b) => a.fileIndex - b.fileIndex || a.line - b.line);
  const byReason = new Map<string, number>();
  for (const i of issues) byReason.set(i.reason, (byReason.get(i.reason) ?? 0) + 1);
  const rejectedByReason: Record<string, number> = {};
  for (const k of [...byReason.keys()].sort(cmp)) rejectedByReason[k] = byReason.get(k)!;

  return {
    events,
    report: {
      files: files.length,
      rows,
      races: built.length,
      runners,
      duplicateRowsDropped: duplicates,
      rejectedRows: issues.length,
      issues: issues.map(({ fileIndex: _, ...i }) => i),
      rejectedByReason,
    },
  };
}

/** JSON with object keys sorted at every level: one text per value, whatever the key insertion order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort(cmp);
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/**
 * A stable fingerprint of an event (SHA-256 of its canonical JSON, hex): equal for equal events across
 * runs and machines, so a re-import can be checked, or already-published events skipped, by comparing
 * fingerprints.
 */
export function eventFingerprint(e: PublishableEvent): string {
  return createHash('sha256')
    .update(canonicalJson({ kind: e.kind, publishedAt: e.publishedAt, value: e.value }))
    .digest('hex');
}
