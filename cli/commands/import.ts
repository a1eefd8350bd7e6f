/**
 * `racing import results-csv FILE...`: real monthly results files into the input topics. A ledger in
 * the data dir remembers what was published (per course, race card and result, a fingerprint), so
 * importing the same file twice publishes nothing, and an interrupted import resumes where it stopped.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { ImportRequest } from '../../api/admin.js';
import { RacingError } from '../../domain/errors.js';
import {
  eventFingerprint,
  IMPORT_DEFAULTS,
  type ImportReport,
  importResultsCsv,
  type OfficialRatingSource,
} from '../../domain/importer/index.js';
import type { BatchOp } from '../../state/store-port.js';
import { type PublishableEvent, publishEvents } from '../../streams/publisher.js';
import { progress } from '../progress.js';
import type { Runtime } from '../runtime.js';
import type { ServiceConfig } from '../config.js';
import { runningService } from '../service-file.js';
import { callAdmin } from './admin-client.js';

export interface ImportArgs {
  files: string[];
  officialRating?: OfficialRatingSource;
  fixMorningOffs?: boolean;
  extendedFlatRaces?: boolean;
  /** write the full report (every rejected row) as JSON here */
  reportFile?: string;
}

export interface ImportFigures {
  report: ImportReport;
  published: { courses: number; cards: number; results: number };
  alreadyPublished: number;
  changedCards: number;
  changedResultsSkipped: number;
  seconds: number;
}

interface LedgerEntry {
  fp: string;
  version: number;
}

const ledgerKey = (e: PublishableEvent): string =>
  e.kind === 'course' ? `e!course!${e.value.courseId}` : `e!${e.kind}!${e.value.raceId}`;

export async function importResults(rt: Runtime, args: ImportArgs): Promise<ImportFigures> {
  if (args.files.length === 0) throw new RacingError('validation_failed', 'import results-csv needs at least one FILE');
  const started = performance.now();
  const parseBar = progress('import: read', 100, '%');
  const { events, report } = await importResultsCsv(args.files, {
    officialRating: args.officialRating ?? IMPORT_DEFAULTS.officialRating,
    fixGbIreMorningOffs: args.fixMorningOffs ?? IMPORT_DEFAULTS.fixGbIreMorningOffs,
    extendedFlatRaceRule: args.extendedFlatRaces ?? IMPORT_DEFAULTS.extendedFlatRaceRule,
    onProgress: (done, total) => parseBar.update((done / Math.max(total, 1)) * 100),
  });
  parseBar.finish(`${report.races} races, ${report.runners} runners, ${report.rejectedRows} rejected rows`);

  const ledger = rt.store.sub('import/');
  const keys = events.map(ledgerKey);
  const stored = await ledger.getMany(keys);
  const toPublish: { event: PublishableEvent; key: string; entry: LedgerEntry }[] = [];
  let alreadyPublished = 0;
  let changedCards = 0;
  let changedResultsSkipped = 0;
  events.forEach((event, i) => {
    const fp = eventFingerprint(event);
    const prev = stored[i] ? (JSON.parse(stored[i]!.toString()) as LedgerEntry) : undefined;
    // A course is published once: its record is built from the files imported together, so a later
    // import of a subset would otherwise republish it with fewer facts.
    if (prev && (prev.fp === fp || event.kind === 'course')) {
      alreadyPublished++;
      return;
    }
    if (prev && event.kind === 'result') {
      // A result is published once; a different result for the same race in a re-scraped file is reported.
      changedResultsSkipped++;
      return;
    }
    let version = 1;
    let e = event;
    if (prev && event.kind === 'card') {
      // The race changed since it was imported: publish it as the next card version (same publishedAt).
      version = prev.version + 1;
      e = { ...event, value: { ...event.value, version } };
      changedCards++;
    }
    toPublish.push({ event: e, key: keys[i]!, entry: { fp, version } });
  });

  const bar = progress('import: publish', toPublish.length, 'events');
  let done = 0;
  const published = { courses: 0, cards: 0, results: 0 };
  const CHUNK = 10_000;
  for (let i = 0; i < toPublish.length; i += CHUNK) {
    const chunk = toPublish.slice(i, i + CHUNK);
    const s = await publishEvents(
      rt.log,
      rt.codecs,
      chunk.map((c) => c.event),
      { batchSize: CHUNK },
    );
    published.courses += s.courses;
    published.cards += s.cards;
    published.results += s.results;
    // The ledger follows the log: a crash between the two republishes at most this chunk, and the
    // processor ignores the duplicate deliveries.
    const ops: BatchOp[] = chunk.map((c) => ({ type: 'put', key: c.key, value: Buffer.from(JSON.stringify(c.entry)) }));
    await ledger.batch(ops);
    done += chunk.length;
    bar.update(done);
  }
  bar.finish(`${done} events published, ${alreadyPublished} already published`);
  if (args.reportFile) writeFileSync(args.reportFile, `${JSON.stringify(report, null, 2)}\n`);
  return {
    report,
    published,
    alreadyPublished,
    changedCards,
    changedResultsSkipped,
    seconds: (performance.now() - started) / 1000,
  };
}

/**
 * `racing import results-csv`: through the running service's admin endpoint when one holds the data dir
 * (the service reads the files, publishes and keeps the ledger in its store), else with the data dir
 * opened here. The report file is written here in both cases.
 */
export async function importFiles(
  config: ServiceConfig,
  args: ImportArgs,
  withRuntime: <T>(f: (rt: Runtime) => Promise<T>) => Promise<T>,
): Promise<ImportFigures> {
  if (args.files.length === 0) throw new RacingError('validation_failed', 'import results-csv needs at least one FILE');
  const service = runningService(config.dataDir);
  if (!service) return withRuntime((rt) => importResults(rt, args));
  for (const f of args.files) if (!existsSync(f)) throw new RacingError('validation_failed', `no such file: ${f}`);
  const request: ImportRequest = {
    files: args.files.map((f) => resolve(f)),
    ...(args.officialRating ? { officialRating: args.officialRating } : {}),
    ...(args.fixMorningOffs !== undefined ? { fixMorningOffs: args.fixMorningOffs } : {}),
    ...(args.extendedFlatRaces !== undefined ? { extendedFlatRaces: args.extendedFlatRaces } : {}),
  };
  process.stderr.write(`importing through the running service (pid ${service.pid}); its log shows the progress\n`);
  const text = await callAdmin(service, 'POST', '/import/results-csv', JSON.stringify(request), 'application/json');
  const figures = JSON.parse(text) as ImportFigures;
  if (args.reportFile) writeFileSync(args.reportFile, `${JSON.stringify(figures.report, null, 2)}\n`);
  return figures;
}
