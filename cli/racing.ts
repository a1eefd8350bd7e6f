#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=64
/**
 * `racing`: the one command-line entry point. Commands:
 *   start | generate | process | serve | rebuild | keys create|revoke|list | accounts grant|revoke|list
 *   | import results-csv | publish card|result|course | export analytics
 */
import { writeSettings } from './settings.js';
import { parseArgs } from 'node:util';
import { isRacingError, RacingError } from '../domain/errors.js';
import { createLogger, type Logger } from '../domain/logger.js';
import { type ServiceConfig, serviceConfigFromEnv } from './config.js';
import { formatAccounts, listAccounts, setAccess } from './commands/accounts.js';
import { createKey, exportAnalytics, listKeys, revokeKey, type Target } from './commands/admin-client.js';
import {
  checkDateArg,
  demoRange,
  generate,
  generatedSummary,
  inputIsEmpty,
  processAll,
  rebuild,
  withPublisher,
} from './commands/pipeline.js';
import { importFiles } from './commands/import.js';
import { formatPublishReport, type PublishKind, publishFiles } from './commands/publish.js';
import { generateDemo, type LiveFeedHandle, startLiveFeed } from './commands/live-feed.js';
import type { LiveFeed } from '../streams/live-feed.js';
import { serveRegistry } from './commands/registry.js';
import { serve } from './commands/serve.js';
import { fetchStatus, formatStatus, serviceUrl } from './commands/status.js';
import { topologyCommand } from './commands/topology-build.js';
import { openRuntime, type Runtime } from './runtime.js';
import { runningService } from './service-file.js';
import { lowerHelperThreads } from './thread-priority.js';

const USAGE = `usage: racing <command> [options]

  start                          generate a demo history on an empty data dir, process it and serve the API
  generate --from D --to D [--seed N] [--scale F] [--until ISO|all] [--since ISO] [--summary | --summary-only]
                                 publish generated cards, card updates and results (dates YYYY-MM-DD)
                                 published up to now (or --until; 'all' publishes future results too);
                                 --summary prints what was produced (races per year, fields, populations)
  process                        run the processors until caught up
  serve                          serve the API (and keep processing new events)
  rebuild [--yes]                drop derived state and outputs, replay from the start
                                 (Kafka mode: --yes required; stop other instances first)
  registry                       serve the Confluent-compatible schema registry (Kafka mode;
                                 REGISTRY_HOST, REGISTRY_PORT, schemas in the _schemas topic)
  keys create --name NAME [--json]
  keys revoke KEY_ID
  keys list [--json]
  accounts grant EMAIL           give an account API access (early access), effective at once
  accounts revoke EMAIL          withdraw it (its keys and sessions get 403 access_not_granted)
  accounts list [--json]         accounts and their access (never passwords)
  import results-csv FILE... [--official-rating result|card-when-present] [--fix-morning-offs]
                                 [--extended-flat-races] [--report FILE]
                                 publish real monthly results files (see docs/importer.md)
                                 (through the running service when one holds the data dir)
  publish card|result|course FILE.json... [--check] [--json]
                                 publish values given as JSON of their Avro schema (docs/examples/);
                                 a bad value is reported (exit 1) and goes to the dead-letter topic;
                                 --check validates only
  export analytics [--out FILE]  every current row as NDJSON sorted by raceId then horseId
  topology build --geometry FILE --dem FILE... [--course ID] [--measured-on D] [--winning-post LON,LAT]
                 [--direction D] [--way ID]... [--dem-crs CRS] [--dem-product P] [--geometry-source S] [--json]
                                 measure course topology (docs/topology.md); with --course publish a new
                                 version of that course with the block, else print the blocks as JSON
  status [--url URL] [--json]    the running service's readiness, lag and tasks (the data dir's running service, else HOST:PORT);
                                 exit 0 ready, 1 not ready, 3 no service answering

environment: RACING_DATA_DIR (./data), HOST (127.0.0.1), PORT (3000), RACING_PARTITIONS (4),
             RACING_DEMO_YEARS (3), RACING_DEMO_SCALE (0.6), RATE_LIMIT_PER_MINUTE (600), LOG_LEVEL (info),
             RACING_MODE (embedded | kafka), KAFKA_BROKERS, SCHEMA_REGISTRY_URL, RACING_TOPIC_PREFIX,
             RACING_INSTANCE_ID, RACING_REPLICATION_FACTOR, RACING_CHECKPOINT_MS (5000),
             RACING_CATCHUP_CHECKPOINT_MS (RACING_CHECKPOINT_MS: while catching up),
             RACING_CHECKPOINT_SLICE_BYTES (33554432: a larger checkpoint is written in slices),
             RACING_LIVE (1 in embedded mode, 0 in Kafka mode: the demo's live feed while serving),
             RACING_HELPER_NICE (19: process and rebuild on Linux, the nice value of every thread but the
             event loop's; 0 leaves them)`;

/**
 * Not `start` and `serve`: while serving, libuv's pool reads the store for the API's requests, and at
 * nice 19 those reads would wait behind any other busy process on the machine.
 */
const REPLAY_COMMANDS = new Set(['process', 'rebuild']);

const LIVE_MESSAGE =
  'live feed on: cards, race-day updates and results are published as their time comes (RACING_LIVE=0 turns it off)';

async function withRuntime<T>(config: ServiceConfig, logger: Logger, f: (rt: Runtime) => Promise<T>): Promise<T> {
  const rt = await openRuntime(config, logger);
  try {
    return await f(rt);
  } finally {
    await rt.close();
  }
}

/** keys/export go through the running service when there is one (the store has a single writer). */
async function withTarget<T>(config: ServiceConfig, logger: Logger, f: (t: Target) => Promise<T>): Promise<T> {
  const service = runningService(config.dataDir);
  if (service) return f({ service });
  return withRuntime(config, logger, (rt) => f({ rt }));
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  // `racing <command> --help` prints the usage instead of running the command
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const config = serviceConfigFromEnv(process.env);
  const logger = createLogger({ level: config.logLevel });
  const t0 = performance.now();
  // the batch replays: the engine's thread before the helpers (cli/thread-priority.ts)
  if (REPLAY_COMMANDS.has(command)) {
    lowerHelperThreads(config.helperNice, {
      onError: (e) =>
        logger.warn({ err: e }, 'could not lower the helper threads; those not yet lowered keep their priority'),
    });
  }
  switch (command) {
    case 'start': {
      const rt = await openRuntime(config, logger);
      let feed: LiveFeed | undefined;
      if (await inputIsEmpty(rt)) {
        const range = demoRange(config.demoYears);
        process.stderr.write(
          `empty data dir ${config.dataDir}: generating a demo history from ${range.from} up to now\n`,
        );
        // The history is the demo's live feed published up to now; serving continues it (cli/commands/live-feed.ts).
        feed = await generateDemo(rt, { from: range.from, seed: 1, scale: config.demoScale });
        // the demo is live from this month on: its course snapshots are daily from the 1st (settings.ts)
        if (config.dailySnapshotsFrom === null) {
          writeSettings(config.dataDir, { dailySnapshotsFrom: `${new Date().toISOString().slice(0, 7)}-01` });
        }
      }
      const figures = await processAll(rt);
      process.stderr.write(
        `processed ${figures.records} records: ${figures.rows} rows in ${figures.seconds.toFixed(1)}s\n`,
      );
      const live: { handle?: LiveFeedHandle | undefined } = {};
      const url = await serve(rt, figures.processor, async () => {
        await live.handle?.stop();
        await rt.close();
      });
      process.stderr.write(`serving on ${url} (ready ${((performance.now() - t0) / 1000).toFixed(1)}s after start)\n`);
      live.handle = await startLiveFeed(rt, feed ? { feed } : {});
      if (live.handle) process.stderr.write(`${LIVE_MESSAGE}\n`);
      else if (config.live)
        process.stderr.write(
          'no live feed: this data dir was not created by `racing start` of this version (start from an empty data dir for a live demo)\n',
        );
      return -1; // keep running
    }
    case 'registry': {
      const url = await serveRegistry(config, logger);
      process.stderr.write(`schema registry on ${url}\n`);
      return -1;
    }
    case 'serve': {
      const rt = await openRuntime(config, logger);
      const { processor } = await processAll(rt);
      const live: { handle?: LiveFeedHandle | undefined } = {};
      const url = await serve(rt, processor, async () => {
        await live.handle?.stop();
        await rt.close();
      });
      process.stderr.write(`serving on ${url}\n`);
      live.handle = await startLiveFeed(rt);
      if (live.handle) process.stderr.write(`${LIVE_MESSAGE}\n`);
      return -1;
    }
    case 'generate': {
      const { values } = parseArgs({
        args: rest,
        options: {
          from: { type: 'string' },
          to: { type: 'string' },
          seed: { type: 'string' },
          until: { type: 'string' },
          since: { type: 'string' },
          scale: { type: 'string' },
          summary: { type: 'boolean', default: false },
          'summary-only': { type: 'boolean', default: false },
        },
      });
      const from = checkDateArg('from', values.from);
      const to = checkDateArg('to', values.to);
      const seed = values.seed === undefined ? 1 : Number(values.seed);
      if (!Number.isInteger(seed) || seed < 0)
        throw new RacingError('validation_failed', '--seed must be a non-negative integer');
      // The feed as of now by default: no results for races not yet run. --until all publishes everything.
      let until: number | undefined = Date.now();
      if (values.until === 'all') until = undefined;
      else if (values.until !== undefined) {
        until = Date.parse(values.until);
        if (Number.isNaN(until))
          throw new RacingError('validation_failed', '--until must be an ISO 8601 instant or "all"');
      }
      const scale = values.scale === undefined ? 1 : Number(values.scale);
      if (!(scale > 0 && scale <= 10))
        throw new RacingError('validation_failed', '--scale must be a number in (0, 10]');
      let since: number | undefined;
      if (values.since !== undefined) {
        since = Date.parse(values.since);
        if (Number.isNaN(since)) throw new RacingError('validation_failed', '--since must be an ISO 8601 instant');
      }
      const args = {
        from,
        to,
        seed,
        scale,
        ...(until === undefined ? {} : { until }),
        ...(since === undefined ? {} : { since }),
      };
      // Kafka mode publishes to the broker only, so it runs beside a service that holds the data dir.
      if (!values['summary-only'])
        if (config.mode === 'kafka') await withPublisher(config, logger, (p) => generate(p, args));
        else await withRuntime(config, logger, (rt) => generate(rt, args));
      if (values.summary || values['summary-only']) process.stdout.write(`${generatedSummary(args)}\n`);
      return 0;
    }
    case 'process': {
      const { processor: _, ...f } = await withRuntime(config, logger, (rt) => processAll(rt));
      process.stdout.write(`${JSON.stringify(f)}\n`);
      return 0;
    }
    case 'rebuild': {
      const { values } = parseArgs({ args: rest, options: { yes: { type: 'boolean', default: false } } });
      if (config.mode === 'kafka' && !values.yes) {
        throw new RacingError(
          'validation_failed',
          "rebuild in Kafka mode deletes the records of the derived topics and resets this instance's consumer groups; " +
            'stop the other instances and run `racing rebuild --yes`',
        );
      }
      const { processor: _, ...f } = await withRuntime(config, logger, (rt) => rebuild(rt));
      process.stdout.write(
        `rebuild: ${f.records} records, ${f.rows} rows in ${f.seconds.toFixed(2)}s = ${Math.round(f.rowsPerSecond)} rows/s\n`,
      );
      process.stdout.write(`${JSON.stringify(f)}\n`);
      return 0;
    }
    case 'keys': {
      const [sub, ...args] = rest;
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { name: { type: 'string' }, json: { type: 'boolean', default: false } },
      });
      if (sub === 'create') {
        if (!values.name) throw new RacingError('validation_failed', 'keys create needs --name NAME');
        const k = await withTarget(config, logger, (t) => createKey(t, values.name!));
        if (values.json) process.stdout.write(`${JSON.stringify({ id: k.id, key: k.key })}\n`);
        else process.stdout.write(`id:  ${k.id}\nkey: ${k.key}\nThe key is shown only now; store it safely.\n`);
        return 0;
      }
      if (sub === 'revoke') {
        const id = positionals[0];
        if (!id) throw new RacingError('validation_failed', 'keys revoke needs KEY_ID');
        await withTarget(config, logger, (t) => revokeKey(t, id));
        process.stdout.write(`revoked ${id}\n`);
        return 0;
      }
      if (sub === 'list') {
        const keys = await withTarget(config, logger, (t) => listKeys(t));
        if (values.json) process.stdout.write(`${JSON.stringify(keys)}\n`);
        else
          for (const k of keys)
            process.stdout.write(
              `${k.id}\t${k.name}\t${k.createdAt}\t${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}\n`,
            );
        return 0;
      }
      throw new RacingError('validation_failed', 'keys needs one of: create, revoke, list');
    }
    case 'accounts': {
      const [sub, ...args] = rest;
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { json: { type: 'boolean', default: false } },
      });
      if (sub === 'grant' || sub === 'revoke') {
        const email = positionals[0];
        if (!email) throw new RacingError('validation_failed', `accounts ${sub} needs EMAIL`);
        const account = await withTarget(config, logger, (t) => setAccess(t, email, sub === 'grant'));
        if (values.json) process.stdout.write(`${JSON.stringify(account)}\n`);
        else
          process.stdout.write(
            `${sub === 'grant' ? 'granted API access to' : 'withdrew API access from'} ${account.email}\n`,
          );
        return 0;
      }
      if (sub === 'list') {
        const accounts = await withTarget(config, logger, (t) => listAccounts(t));
        if (values.json) process.stdout.write(`${JSON.stringify(accounts)}\n`);
        else if (accounts.length > 0) process.stdout.write(`${formatAccounts(accounts)}\n`);
        return 0;
      }
      throw new RacingError('validation_failed', 'accounts needs one of: grant, revoke, list');
    }
    case 'import': {
      const [what, ...args] = rest;
      if (what !== 'results-csv') throw new RacingError('validation_failed', 'import needs: results-csv FILE...');
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: {
          'official-rating': { type: 'string' },
          'fix-morning-offs': { type: 'boolean', default: false },
          'extended-flat-races': { type: 'boolean', default: false },
          report: { type: 'string' },
        },
      });
      const rating = values['official-rating'];
      if (rating !== undefined && rating !== 'result' && rating !== 'card-when-present') {
        throw new RacingError('validation_failed', '--official-rating must be result or card-when-present');
      }
      // through the running service when one holds the data dir (it keeps the import ledger)
      const f = await importFiles(
        config,
        {
          files: positionals,
          ...(rating ? { officialRating: rating } : {}),
          fixMorningOffs: values['fix-morning-offs'] ?? false,
          extendedFlatRaces: values['extended-flat-races'] ?? false,
          ...(values.report ? { reportFile: values.report } : {}),
        },
        (f) => withRuntime(config, logger, f),
      );
      const r = f.report;
      process.stdout.write(
        `import: ${r.files} files, ${r.rows} rows, ${r.races} races, ${r.runners} runners, ` +
          `${r.duplicateRowsDropped} duplicate rows dropped, ${r.rejectedRows} rows rejected\n`,
      );
      for (const [reason, n] of Object.entries(r.rejectedByReason))
        process.stdout.write(`  rejected ${reason}: ${n}\n`);
      for (const issue of r.issues.slice(0, 20)) {
        process.stdout.write(
          `  ${issue.file}:${issue.line}: ${issue.reason}${issue.detail ? ` (${issue.detail})` : ''}\n`,
        );
      }
      if (r.issues.length > 20)
        process.stdout.write(`  ... ${r.issues.length - 20} more (--report FILE writes them all)\n`);
      process.stdout.write(
        `published ${f.published.courses} courses, ${f.published.cards} cards, ${f.published.results} results; ` +
          `${f.alreadyPublished} events already published; ${f.changedCards} changed cards as new versions; ` +
          `${f.changedResultsSkipped} changed results skipped (${f.seconds.toFixed(1)}s)\n`,
      );
      return 0;
    }
    case 'publish': {
      const [kind, ...args] = rest;
      if (kind !== 'card' && kind !== 'result' && kind !== 'course')
        throw new RacingError('validation_failed', 'publish needs: card|result|course FILE.json...');
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { check: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
      });
      const reports = await publishFiles(config, logger, kind satisfies PublishKind, positionals, {
        check: values.check ?? false,
        withRuntime: (f) => withRuntime(config, logger, f),
      });
      for (const r of reports) {
        const { out, err } = formatPublishReport(r);
        process.stderr.write(err);
        process.stdout.write(values.json ? `${JSON.stringify(r)}\n` : out);
      }
      return reports.some((r) => r.rejected > 0) ? 1 : 0;
    }
    case 'status': {
      const { values } = parseArgs({
        args: rest,
        options: { url: { type: 'string' }, json: { type: 'boolean', default: false } },
      });
      // --url, else HOST/PORT when set, else the address the service of this data dir advertises
      const advertised =
        process.env['HOST'] === undefined && process.env['PORT'] === undefined
          ? runningService(config.dataDir)?.apiUrl
          : undefined;
      const url = values.url ?? advertised ?? serviceUrl(config);
      let status;
      try {
        status = await fetchStatus(url);
      } catch (e) {
        if (!isRacingError(e) || e.code !== 'not_found') throw e;
        process.stderr.write(`racing: ${e.message}\n`);
        return 3;
      }
      process.stdout.write(`${values.json ? JSON.stringify(status) : formatStatus(url, status)}\n`);
      return status.ready ? 0 : 1;
    }
    case 'export': {
      const [what, ...args] = rest;
      if (what !== 'analytics') throw new RacingError('validation_failed', 'export needs: analytics');
      const { values } = parseArgs({ args, options: { out: { type: 'string' } } });
      await withTarget(config, logger, (t) => exportAnalytics(t, values.out));
      return 0;
    }
    case 'topology':
      return topologyCommand(rest, config, logger);
    default:
      process.stderr.write(`unknown command '${command}'\n${USAGE}\n`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (e: unknown) => {
    if (isRacingError(e)) process.stderr.write(`racing: ${e.message} (${e.code})\n`);
    else process.stderr.write(`racing: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exitCode = 1;
  },
);
