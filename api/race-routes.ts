/**
 * Keyed data routes: race days, races (by date and the recent feed), one race, a race's analytics.
 * Every list is sorted here as well as by the read model: the order is part of the API contract and
 * must not depend on an adapter getting it right.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { AnalyticsRow } from '../domain/avro-types.generated.js';
import { RacingError } from '../domain/errors.js';
import { isId } from '../domain/ids.js';
import { isoUtc, MS_PER_DAY, parseDate, startOfUtcDay } from '../domain/time.js';
import { invalidParam } from './errors.js';
import type { RaceDetail, RaceSummary, ReadModel } from '../state/read-model-port.js';
import type { ResponseCache } from './response-cache.js';
import { AnalyticsResponse, DateString, RaceDaysResponse, RaceDetailSchema, RacesResponse } from './schemas.js';

/** Longest inclusive range accepted by /race-days (design.md: over 366 days is range_too_large). */
export const MAX_RANGE_DAYS = 366;

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

export function byOffTimeThenRaceId(a: RaceSummary, b: RaceSummary): number {
  return Date.parse(a.offTime) - Date.parse(b.offTime) || compare(a.raceId, b.raceId);
}

export function sortedRace(race: RaceDetail): RaceDetail {
  const runners = [...race.runners].sort((a, b) => a.saddleCloth - b.saddleCloth || compare(a.horseId, b.horseId));
  return { ...race, runners };
}

export function sortedRows(rows: readonly AnalyticsRow[]): AnalyticsRow[] {
  return [...rows].sort((a, b) => compare(a.horseId, b.horseId));
}

/** Parses a date parameter the schema has already checked; the second check keeps handlers honest. */
function dateParam(name: string, value: string): number {
  const t = parseDate(value);
  if (t === undefined) throw invalidParam('query', name, 'must be a real calendar date in YYYY-MM-DD form');
  return t;
}

function raceIdParam(value: string): string {
  if (!isId('race', value)) throw invalidParam('path', 'raceId', 'must be a race id: rac_ followed by an opaque token');
  return value;
}

/** The shape isId('race', ...) accepts, published so the schema promises exactly what the handler takes. */
export const RACE_ID_PATTERN = '^rac_[0-9a-z]{1,64}$';

/**
 * For the response cache: the key follows from the URL alone, so a repeated GET of the URL is answered
 * from the cache in the key hook (ResponseCache.sendHot). Not for the recent feed, whose key is the clock's.
 */
const BY_URL = { byUrl: true } as const;

const RaceIdParams = Type.Object({
  raceId: Type.String({ description: 'race id: rac_ followed by an opaque token', pattern: RACE_ID_PATTERN }),
});

export function raceRoutes(readModel: ReadModel, clock: () => number, cache: ResponseCache) {
  return async (app: FastifyInstance): Promise<void> => {
    app.get<{ Querystring: { from: string; to: string } }>(
      '/race-days',
      {
        config: { access: 'key' },
        schema: {
          summary: 'Days that have racing, each with its race count',
          description: `Inclusive range of meeting dates; at most ${MAX_RANGE_DAYS} days.`,
          tags: ['races'],
          querystring: Type.Object({ from: DateString, to: DateString }),
          response: { 200: RaceDaysResponse },
        },
      },
      async (request, reply) => {
        const { from, to } = request.query;
        const fromMs = dateParam('from', from);
        const toMs = dateParam('to', to);
        if (toMs < fromMs) throw invalidParam('query', 'to', `must not be before from (${from})`);
        const days = (toMs - fromMs) / MS_PER_DAY + 1;
        if (days > MAX_RANGE_DAYS) {
          throw new RacingError(
            'range_too_large',
            `the range ${from}..${to} spans ${days} days; at most ${MAX_RANGE_DAYS} are allowed`,
          );
        }
        return cache.send(
          request,
          reply,
          `race-days:${from}:${to}`,
          async () => {
            const list = await readModel.raceDays(from, to);
            return { from, to, days: [...list].sort((a, b) => compare(a.date, b.date)) };
          },
          BY_URL,
        );
      },
    );

    app.get<{ Querystring: { date?: string } }>(
      '/races',
      {
        config: { access: 'key' },
        schema: {
          summary: 'Races on a meeting date, or the recent feed',
          description:
            'With date: every race whose local meeting date is that day. Without date: the recent feed, races ' +
            'off from the start of yesterday to the end of tomorrow (UTC). Both ordered by offTime, then raceId.',
          tags: ['races'],
          querystring: Type.Object({ date: Type.Optional(DateString) }),
          response: { 200: RacesResponse },
        },
      },
      async (request, reply) => {
        const { date } = request.query;
        if (date !== undefined) {
          dateParam('date', date);
          return cache.send(
            request,
            reply,
            `races:${date}`,
            async () => {
              const races = await readModel.racesOn(date);
              return { date, races: [...races].sort(byOffTimeThenRaceId) };
            },
            BY_URL,
          );
        }
        const fromMs = startOfUtcDay(clock()) - MS_PER_DAY;
        const toMs = fromMs + 3 * MS_PER_DAY;
        return cache.send(request, reply, `recent:${fromMs}`, async () => {
          const races = await readModel.racesOffBetween(fromMs, toMs);
          return { from: isoUtc(fromMs), to: isoUtc(toMs), races: [...races].sort(byOffTimeThenRaceId) };
        });
      },
    );

    app.get<{ Params: { raceId: string } }>(
      '/races/:raceId',
      {
        config: { access: 'key' },
        schema: {
          summary: 'One race with its runners',
          description: 'Runners (non-runners included, flagged) ordered by saddleCloth, then horseId.',
          tags: ['races'],
          params: RaceIdParams,
          response: { 200: RaceDetailSchema },
        },
      },
      async (request, reply) => {
        const raceId = raceIdParam(request.params.raceId);
        return cache.send(
          request,
          reply,
          `race:${raceId}`,
          async () => {
            const race = await readModel.race(raceId);
            if (!race) throw new RacingError('not_found', `no race ${raceId}`);
            return sortedRace(race);
          },
          BY_URL,
        );
      },
    );

    app.get<{ Params: { raceId: string } }>(
      '/races/:raceId/analytics',
      {
        config: { access: 'key' },
        schema: {
          summary: "A race's analytics rows",
          description:
            'One row per runner (non-runners have none), ordered by horseId. Fields: see /api/v1/data-dictionary.',
          tags: ['analytics'],
          params: RaceIdParams,
          response: { 200: AnalyticsResponse },
        },
      },
      async (request, reply) => {
        const raceId = raceIdParam(request.params.raceId);
        return cache.send(
          request,
          reply,
          `analytics:${raceId}`,
          async () => {
            const rows = await readModel.analytics(raceId);
            if (!rows) throw new RacingError('not_found', `no race ${raceId}`);
            return sortedRows(rows);
          },
          BY_URL,
        );
      },
    );
  };
}
