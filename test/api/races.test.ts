import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IDS, sampleReadModel } from '../support/fake-read-model.js';
import { type Harness, harness, problemOf } from './harness.js';

let h: Harness;
beforeEach(async () => {
  h = await harness();
});
afterEach(async () => {
  await h.app.close();
});

describe('GET /api/v1/race-days', () => {
  it('returns the days with racing in the inclusive range, ascending, with counts', async () => {
    const res = await h.get('/api/v1/race-days?from=2024-05-09&to=2024-05-11', h.key);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      from: '2024-05-09',
      to: '2024-05-11',
      days: [
        // rac_start, rac_ylate and the New York race (meeting date 2024-05-09 although off 05-10 01:00Z)
        { date: '2024-05-09', races: 3 },
        { date: '2024-05-10', races: 2 },
        { date: '2024-05-11', races: 1 },
      ],
    });
  });

  it('accepts from == to and a 366-day range, refuses 367 days with range_too_large', async () => {
    expect((await h.get('/api/v1/race-days?from=2024-05-12&to=2024-05-12', h.key)).json()).toEqual({
      from: '2024-05-12',
      to: '2024-05-12',
      days: [{ date: '2024-05-12', races: 1 }],
    });
    // 2024 is a leap year: 2024-01-01..2024-12-31 is exactly 366 days.
    expect((await h.get('/api/v1/race-days?from=2024-01-01&to=2024-12-31', h.key)).statusCode).toBe(200);
    const res = await h.get('/api/v1/race-days?from=2024-01-01&to=2025-01-01', h.key);
    expect(res.statusCode).toBe(400);
    const p = problemOf(res);
    expect(p['code']).toBe('range_too_large');
    expect(p['detail']).toContain('367 days');
  });

  it('refuses to before from', async () => {
    const res = await h.get('/api/v1/race-days?from=2024-05-10&to=2024-05-09', h.key);
    expect(res.statusCode).toBe(400);
    expect(problemOf(res)).toMatchObject({ code: 'validation_failed', errors: [{ in: 'query', name: 'to' }] });
  });

  it.each([
    ['from', '/api/v1/race-days?from=2024-02-30&to=2024-03-01'],
    ['from', '/api/v1/race-days?from=2024-1-1&to=2024-03-01'],
    ['to', '/api/v1/race-days?from=2024-01-01&to=2023-02-29'],
    ['to', '/api/v1/race-days?from=2024-01-01&to=20240301'],
    ['to', '/api/v1/race-days?from=2024-01-01'],
    ['from', '/api/v1/race-days?to=2024-01-01'],
  ])('400 validation_failed naming %s for %s', async (name, url) => {
    const res = await h.get(url, h.key);
    expect(res.statusCode).toBe(400);
    const p = problemOf(res);
    expect(p['code']).toBe('validation_failed');
    expect(p['detail']).toContain(`query parameter '${name}'`);
    expect(p['errors']).toEqual([expect.objectContaining({ in: 'query', name })]);
  });
});

describe('GET /api/v1/races?date', () => {
  it('lists the races of a meeting date ordered by offTime, then raceId', async () => {
    const res = await h.get('/api/v1/races?date=2024-05-10', h.key);
    expect(res.statusCode).toBe(200);
    const body = res.json() as { date: string; races: { raceId: string }[] };
    expect(body.date).toBe('2024-05-10');
    // Same offTime: rac_tiea before rac_tieb although inserted the other way round.
    expect(body.races.map((r) => r.raceId)).toEqual([IDS.tieA, IDS.tieB]);
  });

  it('uses the local meeting date, not the UTC date of the off', async () => {
    const body = (await h.get('/api/v1/races?date=2024-05-09', h.key)).json() as { races: { raceId: string }[] };
    expect(body.races.map((r) => r.raceId)).toEqual([IDS.windowStart, IDS.yesterdayLate, IDS.newYork]);
  });

  it('returns summaries only (no runners) with every RaceSummary field', async () => {
    const body = (await h.get('/api/v1/races?date=2024-05-09', h.key)).json() as { races: Record<string, unknown>[] };
    const rm = sampleReadModel();
    const [expected] = await rm.racesOn('2024-05-09');
    expect(body.races[0]).toEqual(expected);
    expect(body.races[0]).not.toHaveProperty('runners');
  });

  it('an empty day is an empty list, not a 404', async () => {
    expect((await h.get('/api/v1/races?date=2023-01-01', h.key)).json()).toEqual({ date: '2023-01-01', races: [] });
  });

  it.each(['2024-02-30', '2024-1-1', 'today', '2024-05-09T00:00:00Z'])('400 naming date for %s', async (date) => {
    const res = await h.get(`/api/v1/races?date=${encodeURIComponent(date)}`, h.key);
    expect(res.statusCode).toBe(400);
    expect(problemOf(res)).toMatchObject({ code: 'validation_failed', errors: [{ in: 'query', name: 'date' }] });
  });
});

describe('GET /api/v1/races (recent feed)', () => {
  it('covers the start of yesterday to the end of tomorrow (UTC), excluding races just outside', async () => {
    const res = await h.get('/api/v1/races', h.key);
    expect(res.statusCode).toBe(200);
    const body = res.json() as { from: string; to: string; races: { raceId: string }[] };
    expect(body.from).toBe('2024-05-09T00:00:00.000Z');
    expect(body.to).toBe('2024-05-12T00:00:00.000Z');
    expect(body.races.map((r) => r.raceId)).toEqual([
      IDS.windowStart, // 05-09T00:00:00.000Z, first instant (inclusive)
      IDS.yesterdayLate,
      IDS.newYork,
      IDS.tieA,
      IDS.tieB,
      IDS.windowEnd, // 05-11T23:59:59.999Z, last instant
    ]);
    // IDS.beforeWindow (05-08T23:59:59.999Z) and IDS.afterWindow (05-12T00:00Z) are out.
  });

  it('moves with the injected clock', async () => {
    h.setNow(Date.parse('2024-05-12T23:59:59.999Z'));
    const body = (await h.get('/api/v1/races', h.key)).json() as { from: string; races: { raceId: string }[] };
    expect(body.from).toBe('2024-05-11T00:00:00.000Z');
    expect(body.races.map((r) => r.raceId)).toEqual([IDS.windowEnd, IDS.afterWindow]);
  });
});

describe('GET /api/v1/races/:raceId', () => {
  it('returns the race with runners ordered by saddleCloth, then horseId', async () => {
    const res = await h.get(`/api/v1/races/${IDS.tieA}`, h.key);
    expect(res.statusCode).toBe(200);
    const body = res.json() as {
      raceId: string;
      runners: { horseId: string; saddleCloth: number; nonRunner: boolean }[];
    };
    expect(body.raceId).toBe(IDS.tieA);
    expect(body.runners.map((r) => [r.saddleCloth, r.horseId])).toEqual([
      [1, 'hrs_x'],
      [2, 'hrs_y'],
      [2, 'hrs_z'],
    ]);
    expect(body.runners[0]!.nonRunner).toBe(true);
  });

  it('serialises every field of the read model, nulls included', async () => {
    const rm = sampleReadModel();
    const race = (await rm.race(IDS.newYork))!;
    const body = (await h.get(`/api/v1/races/${IDS.newYork}`, h.key)).json();
    expect(body).toEqual({ ...race, runners: [...race.runners].sort((a, b) => a.saddleCloth - b.saddleCloth) });
    expect((body as { runners: { sireId: unknown }[] }).runners[0]!.sireId).toBeNull();
  });

  it.each(['RAC_nyc', 'hrs_abc', 'rac_', 'rac_NYC', 'nyc', 'rac_a-b'])('400 for the malformed id %s', async (id) => {
    const res = await h.get(`/api/v1/races/${id}`, h.key);
    expect(res.statusCode).toBe(400);
    expect(problemOf(res)).toMatchObject({ code: 'validation_failed', errors: [{ in: 'path', name: 'raceId' }] });
  });

  it('404 not_found for an unknown race', async () => {
    const res = await h.get('/api/v1/races/rac_unknown', h.key);
    expect(res.statusCode).toBe(404);
    expect(problemOf(res)).toMatchObject({ code: 'not_found', instance: '/api/v1/races/rac_unknown' });
  });
});

describe('GET /api/v1/races/:raceId/analytics', () => {
  it('returns one row per runner ordered by horseId, every Avro field present', async () => {
    const res = await h.get(`/api/v1/races/${IDS.newYork}/analytics`, h.key);
    expect(res.statusCode).toBe(200);
    const rows = res.json() as Record<string, unknown>[];
    expect(rows.map((r) => r['horseId'])).toEqual(['hrs_a', 'hrs_b', 'hrs_c']);
    const expected = (await sampleReadModel().analytics(IDS.newYork))!;
    expect(rows).toEqual(expected);
    expect(rows[0]!['courseTotalClimbM']).toBeNull();
    expect(rows[1]!['lastRunDays']).toBe(730);
    expect(rows[1]!['ratingDifference']).toBe(-999);
  });

  it('404 for an unknown race, 400 for a malformed id', async () => {
    expect(problemOf(await h.get('/api/v1/races/rac_unknown/analytics', h.key))['code']).toBe('not_found');
    const bad = await h.get('/api/v1/races/xyz/analytics', h.key);
    expect(bad.statusCode).toBe(400);
  });

  it('a known race without rows yet is an empty array', async () => {
    const rm = sampleReadModel();
    rm.rows.set(IDS.tieA, []);
    const h2 = await harness({ readModel: rm });
    try {
      const res = await h2.get(`/api/v1/races/${IDS.tieA}/analytics`, h2.key);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([]);
    } finally {
      await h2.app.close();
    }
  });
});
