/**
 * `racing import results-csv FILE...`: real monthly results files into the input topics. A ledger in
 * the data dir remembers what was published (per course, race card and result, a fingerprint), so
 * importing the same file twice publishes nothing, and an interrupted import resumes where it stopped.
 */
import { writeFileSync } from 'node:fs';
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
