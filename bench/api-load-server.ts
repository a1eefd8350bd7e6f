/**
 * The servers bench/api-load.bench.ts loads, each in its own child process so that its CPU time can be
 * read on its own and the load generator keeps a core:
 *
 *   service <data dir>          the public app over a processed data dir, built as `racing serve` builds it
 *                               (real read model, key, account and session stores, request metrics, the
 *                               logger at info); prints {url, key, paths, bytes, ...}
 *   bare <service url> <key> <paths json>
 *                               a bare Fastify app answering the same paths with the very bytes the service
 *                               sends for them, for each coding the request accepts (identity, br, gzip:
 *                               the service's compressed bytes, with their Content-Encoding); prints
 *                               {url, wireBytes: {"<coding> <path>": bytes}}
 *
 * Each prints one JSON line on stdout, then answers every `cpu` line on stdin with its process CPU time
 * ({"user":µs,"system":µs}) and exits when stdin closes.
 */
import { request as httpRequest } from 'node:http';
import { createInterface } from 'node:readline';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import type * as AppModule from '../api/app.js';
import type * as ApiConfigModule from '../api/config.js';
import type * as ServerModule from '../api/server.js';
import type * as BackgroundModule from '../cli/commands/background.js';
import type * as ConfigModule from '../cli/config.js';
import type * as RuntimeModule from '../cli/runtime.js';
import type * as TimeModule from '../domain/time.js';
import { serviceModules } from './service-modules.js';

// The service as `npm start` runs it: compiled JavaScript from dist/; BENCH_SOURCE=1 runs the sources.
const load = serviceModules(Boolean(process.env['BENCH_SOURCE']));

const [mode, ...args] = process.argv.slice(2);
let close: () => Promise<void>;

if (mode === 'service') {
  const { buildApp } = await load<typeof AppModule>('api/app.js');
  const { apiConfig } = await load<typeof ApiConfigModule>('api/config.js');
  const { startServer } = await load<typeof ServerModule>('api/server.js');
  const { newBackground, operationsOf } = await load<typeof BackgroundModule>('cli/commands/background.js');
  const { serviceConfigFromEnv } = await load<typeof ConfigModule>('cli/config.js');
  const { openRuntime } = await load<typeof RuntimeModule>('cli/runtime.js');
  const { addDays } = await load<typeof TimeModule>('domain/time.js');
  const dataDir = args[0]!;
  const config = serviceConfigFromEnv({ ...process.env, RACING_DATA_DIR: dataDir });
  // The production logger at info, writing to stderr: stdout carries the lines for the parent.
  const logger = pino({ level: 'info', base: { service: 'racing' } }, pino.destination(2));
  const rt = await openRuntime(config, logger.child({ component: 'bench' }));
  // The busiest meeting date, and its race with the most analytics rows.
  const days = await rt.view.raceDays('1000-01-01', '9999-12-31');
  const busiest = [...days].sort((a, b) => b.races - a.races || (a.date < b.date ? -1 : 1))[0];
  if (!busiest) throw new Error(`no races in ${dataDir}`);
  let raceId = '';
  let most = -1;
  for (const race of await rt.view.racesOn(busiest.date)) {
    const rows = (await rt.view.analytics(race.raceId)) ?? [];
    if (rows.length > most) [raceId, most] = [race.raceId, rows.length];
  }
  const { key } = await rt.keys.create('bench');
  const app = buildApp({
    operations: operationsOf(rt, newBackground()),
    readModel: rt.view,
    keys: rt.keys,
    accounts: rt.accounts,
    sessions: rt.sessions,
    // Limits above the load: what is measured is serving, not refusing.
    config: apiConfig({ rateLimit: { requestsPerMinute: 1_000_000, perAddressPerMinute: 1_000_000 } }),
    logger,
  });
  const url = await startServer(app, { host: '127.0.0.1', port: 0 });
  // The course endpoints: the busiest race's course, its snapshots of the 366 days up to the last race day.
  const courseId = (await rt.view.race(raceId))!.courseId;
  const lastDay = days.reduce((d, x) => (x.date > d ? x.date : d), busiest.date);
  const paths = {
    analytics: `/api/v1/races/${raceId}/analytics`,
    racesOnDate: `/api/v1/races?date=${busiest.date}`,
    courses: '/api/v1/courses',
    courseProfile: `/api/v1/courses/${courseId}?asOf=${busiest.date}`,
    courseSnapshots: `/api/v1/courses/${courseId}/analytics?from=${addDays(lastDay, -365)}&to=${lastDay}`,
    openTopology: '/api/v1/open-data/course-topology',
  };
  const bytes: Record<string, number> = {};
  for (const [name, path] of Object.entries(paths)) {
    const res = await fetch(url + path, { headers: { 'x-api-key': key } });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    bytes[name] = (await res.arrayBuffer()).byteLength;
  }
  process.stdout.write(
    `${JSON.stringify({ url, key, paths, bytes, rows: most, date: busiest.date, races: busiest.races })}\n`,
  );
  close = async () => {
    await app.close();
    await rt.close();
  };
} else if (mode === 'bare') {
  const [serviceUrl, key, pathsJson] = args as [string, string, string];
  const paths = JSON.parse(pathsJson) as Record<string, string>;
  const codings = ['identity', 'br', 'gzip'] as const;
  const bodies = new Map<string, Buffer>();
  for (const path of Object.values(paths)) {
    for (const coding of codings) bodies.set(`${coding} ${path}`, await rawBody(serviceUrl + path, key, coding));
  }
  const bare: FastifyInstance = Fastify();
  for (const path of Object.values(paths)) {
    const route = path.split('?')[0]!;
    bare.get(route, async (request, reply) => {
      // the coding the service picks for the same header: br first, then gzip (api/compression.ts)
      const accept = request.headers['accept-encoding'] ?? '';
      const coding = /\bbr\b/.test(accept) ? 'br' : /\bgzip\b/.test(accept) ? 'gzip' : 'identity';
      reply.type('application/json; charset=utf-8').header('vary', 'Accept-Encoding');
      if (coding !== 'identity') reply.header('content-encoding', coding);
      return reply.send(bodies.get(`${coding} ${path}`)!);
    });
  }
  const url = await bare.listen({ host: '127.0.0.1', port: 0 });
  const wireBytes = Object.fromEntries([...bodies].map(([k, b]) => [k, b.byteLength]));
  process.stdout.write(`${JSON.stringify({ url, wireBytes })}\n`);
  close = () => bare.close();
} else {
  throw new Error('usage: api-load-server.ts service <data dir> | bare <service url> <key> <paths json>');
}

/** The bytes the service sends for a path when the client accepts this coding (not decoded: fetch would). */
function rawBody(url: string, key: string, coding: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'x-api-key': key };
    if (coding !== 'identity') headers['accept-encoding'] = coding;
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const got = res.headers['content-encoding'] ?? 'identity';
        if (res.statusCode !== 200 || got !== coding) {
          reject(new Error(`${url} (${coding}): ${res.statusCode}, content-encoding ${got}`));
        } else resolve(Buffer.concat(chunks));
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  if (line.trim() === 'cpu') process.stdout.write(`${JSON.stringify(process.cpuUsage())}\n`);
});
lines.on('close', () => {
  void close().then(() => process.exit(0));
});
