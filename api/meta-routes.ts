/**
 * Routes that need no key: the demo day, the OpenAPI document, the data dictionary and the health check.
 */
import type { FastifyInstance } from 'fastify';
import { RacingError } from '../domain/errors.js';
import { utcDate } from '../domain/time.js';
import { DataDictionarySchema, buildDataDictionary } from './data-dictionary.js';
import { byOffTimeThenRaceId, sortedRace, sortedRows } from './race-routes.js';
import type { ReadModel } from '../state/read-model-port.js';
import type { ResponseCache } from './response-cache.js';
import { DemoResponse, HealthResponse, OpenObject } from './schemas.js';

export function metaRoutes(deps: {
  readModel: ReadModel;
  clock: () => number;
  openApi: () => unknown;
  cache: ResponseCache;
}) {
  const { readModel, clock, cache } = deps;
  // Built once at registration: a mismatch between the dictionary and the .avsc fails at startup.
  const dictionary = buildDataDictionary();
  return async (app: FastifyInstance): Promise<void> => {
    app.get(
      '/demo',
      {
        config: { access: 'public' },
        schema: {
          summary: 'A sample day for evaluation (no key)',
          description:
            'The latest meeting date on or before today (UTC) whose races all have results: every race with its ' +
            'runners and analytics rows.',
          tags: ['demo'],
          response: { 200: DemoResponse },
        },
      },
      // The biggest public body (a whole day with every row): built once per change of the data and
      // per day, then served from the cache, compressed.
      async (request, reply) =>
        cache.send(request, reply, `demo:${utcDate(clock())}`, async () => {
          const date = await readModel.demoDate(utcDate(clock()));
          if (date === undefined) throw new RacingError('not_found', 'no demo day is available yet');
          const summaries = [...(await readModel.racesOn(date))].sort(byOffTimeThenRaceId);
          const races = [];
          for (const s of summaries) {
            const [race, rows] = await Promise.all([readModel.race(s.raceId), readModel.analytics(s.raceId)]);
            if (race) races.push({ ...sortedRace(race), analytics: sortedRows(rows ?? []) });
          }
          return { date, races };
        }),
    );

    app.get(
      '/openapi.json',
      {
        config: { access: 'public' },
        schema: {
          summary: 'This OpenAPI 3.1 document (no key)',
          tags: ['meta'],
          response: { 200: OpenObject },
        },
      },
      async (request, reply) => cache.send(request, reply, 'openapi', async () => deps.openApi(), { static: true }),
    );

    app.get(
      '/data-dictionary',
      {
        config: { access: 'public' },
        schema: {
          summary: 'Every analytics field: type, unit, definition, missing-value convention; enum code tables (no key)',
          tags: ['meta'],
          response: { 200: DataDictionarySchema },
        },
      },
      async (request, reply) => cache.send(request, reply, 'data-dictionary', async () => dictionary, { static: true }),
    );

    app.get(
      '/health',
      {
        config: { access: 'public' },
        schema: { summary: 'Liveness (no key)', tags: ['meta'], response: { 200: HealthResponse } },
      },
      async () => ({ status: 'ok' as const }),
    );
  };
}
