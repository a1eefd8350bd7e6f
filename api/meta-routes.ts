/**
 * Routes that need no key: the demo day, the OpenAPI document, the data dictionary and the health check.
 */
import type { FastifyInstance } from 'fastify';
import { RacingError } from '../domain/errors.js';
import { utcDate } from '../domain/time.js';
import { DataDictionarySchema, buildDataDictionary } from './data-dictionary.js';
import { byOffTimeThenRaceId, sortedRace, sortedRows } from './race-routes.js';
import type { ReadModel } from '../state/read-model-port.js';
import { DemoResponse, HealthResponse, OpenObject } from './schemas.js';

export function metaRoutes(deps: { readModel: ReadModel; clock: () => number; openApi: () => unknown }) {
  const { readModel, clock } = deps;
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
      async () => {
        const date = await readModel.demoDate(utcDate(clock()));
        if (date === undefined) throw new RacingError('not_found', 'no demo day is available yet');
        const summaries = [...(await readModel.racesOn(date))].sort(byOffTimeThenRaceId);
        const races = [];
        for (const s of summaries) {
          const [race, rows] = await Promise.all([readModel.race(s.raceId), readModel.analytics(s.raceId)]);
          if (race) races.push({ ...sortedRace(race), analytics: sortedRows(rows ?? []) });
        }
        return { date, races };
      },
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
      async () => deps.openApi(),
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
      async () => dictionary,
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
