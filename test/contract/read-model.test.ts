import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AnalyticsRow } from '../../domain/avro-types.generated.js';
import type { ViewEvent } from '../../domain/events.js';
import { openLevelStore } from '../../state/adapters/level-store.js';
import type { RaceDetail, ReadModel } from '../../state/read-model-port.js';
import { LevelReadModel } from '../../state/read-model/level-read-model.js';
import { FakeReadModel } from '../support/fake-read-model.js';
import { snapshotKey } from '../support/course-builders.js';
import { addDays } from '../../domain/time.js';
import {
  describeReadModel,
  readModelContract,
  type ReadModelHarness,
  type ReadModelInput,
} from './read-model-contract.js';

/** A load as the view materialiser sees it: card, result and row records in publish order. */
function viewEvents(input: ReadModelInput): ViewEvent[] {
  return [
    ...input.cards.map((value): ViewEvent => ({ kind: 'card', value })),
    ...input.results.map((value): ViewEvent => ({ kind: 'result', value })),
    ...input.rows.map((r): ViewEvent => ({
      kind: 'row',
      key: `${r.raceId}:${r.horseId}`,
      value: Buffer.from(JSON.stringify(r)),
    })),
    ...(input.tombstones ?? []).map((t): ViewEvent => ({ kind: 'row', key: `${t.raceId}:${t.horseId}`, value: null })),
    ...(input.courses ?? []).map((value): ViewEvent => ({ kind: 'course', value })),
    ...(input.snapshots ?? []).map((value): ViewEvent => ({ kind: 'snapshot', key: snapshotKey(value), value })),
    ...(input.snapshotTombstones ?? []).map((key): ViewEvent => ({ kind: 'snapshot', key, value: null })),
  ];
}

/**
 * LevelReadModel over a real classic-level store (under the same sub-prefix the runtime uses), rows as
 * JSON bytes with a JSON decoder (the port does not care about the codec), each load applied in
 * batches of `batchSize` events: 1 exercises the rules across batches, 3 within and across them.
 */
async function levelHarness(batchSize: number): Promise<ReadModelHarness & { model: LevelReadModel }> {
  const dir = await mkdtemp(join(tmpdir(), 'read-model-contract-'));
  const store = await openLevelStore(dir);
  const model = new LevelReadModel(store.sub('view/'), async (buf) => JSON.parse(buf.toString('utf8')) as AnalyticsRow);
  return {
    model,
    async load(input) {
      const events = viewEvents(input);
      for (let i = 0; i < events.length; i += batchSize) await model.apply(events.slice(i, i + batchSize));
    },
    async close() {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function fakeHarness(): ReadModelHarness {
  const model = new FakeReadModel();
  return { model, load: async (input) => model.load(input) };
}

describeReadModel('LevelReadModel, one event per batch', () => levelHarness(1));
describeReadModel('LevelReadModel, batches of three events', () => levelHarness(3));
describeReadModel('FakeReadModel', fakeHarness);

// ---- the suite can fail: broken read models, each caught by the cases named ----

/** The harness with some of its model's methods replaced (the others delegate). */
function decorate(h: ReadModelHarness, patch: (inner: ReadModel) => Partial<ReadModel>): ReadModelHarness {
  const inner = h.model;
  const model: ReadModel = {
    raceDays: (from, to) => inner.raceDays(from, to),
    racesOn: (date) => inner.racesOn(date),
    racesOffBetween: (from, to) => inner.racesOffBetween(from, to),
    race: (raceId) => inner.race(raceId),
    analytics: (raceId) => inner.analytics(raceId),
    allAnalytics: () => inner.allAnalytics(),
    demoDate: (today) => inner.demoDate(today),
    courses: () => inner.courses(),
    course: (courseId, asOf) => inner.course(courseId, asOf),
    courseSnapshots: (courseId, query) => inner.courseSnapshots(courseId, query),
    ...(inner.revision ? { revision: () => inner.revision!() } : {}),
    ...patch(inner),
  };
  return { ...h, model };
}

/** The harness with its inputs altered on the way in: a model that mishandles what it is given. */
function rewrite(h: ReadModelHarness, alter: (input: ReadModelInput) => ReadModelInput): ReadModelHarness {
  return { ...h, load: (input) => h.load(alter(input)) };
}

const withoutResult = (d: RaceDetail): RaceDetail => ({
  ...d,
  status: 'declared',
  winningTimeSeconds: null,
  runners: d.runners.map((r) => ({
    ...r,
    position: null,
    resultStatus: null,
    beatenLengths: null,
    startingPrice: null,
    favourite: null,
  })),
});

async function* reversed<T>(it: AsyncIterable<T>): AsyncIterable<T> {
  const all: T[] = [];
  for await (const x of it) all.push(x);
  yield* all.reverse();
}

interface Mutant {
  name: string;
  /** the cases that must fail (others may fail too) */
  caughtBy: string[];
  wrap(h: ReadModelHarness): ReadModelHarness;
  base?: () => Promise<ReadModelHarness> | ReadModelHarness;
}

const mutants: Mutant[] = [
  {
    name: 'drops every result',
    caughtBy: ['race-result', 'result-versions', 'result-first', 'demo-date'],
    wrap: (h) => rewrite(h, (i) => ({ ...i, results: [] })),
  },
  {
    name: 'race() forgets the result facts',
    caughtBy: ['race-result', 'result-versions', 'result-first'],
    wrap: (h) =>
      decorate(h, (inner) => ({
        race: async (id) => {
          const d = await inner.race(id);
          return d && withoutResult(d);
        },
      })),
  },
  {
    name: 'a non-runner gets position 0 once the result is in',
    caughtBy: ['race-result'],
    wrap: (h) =>
      decorate(h, (inner) => ({
        race: async (id) => {
          const d = await inner.race(id);
          if (d?.status !== 'result') return d;
          return { ...d, runners: d.runners.map((r) => (r.nonRunner ? { ...r, position: 0 } : r)) };
        },
      })),
  },
  {
    name: 'a later-arriving older result wins',
    caughtBy: ['result-versions'],
    wrap: (h) => {
      let stamp = Date.parse('2030-01-01T00:00:00.000Z');
      return rewrite(h, (i) => ({ ...i, results: i.results.map((r) => ({ ...r, publishedAt: stamp++ })) }));
    },
  },
  {
    name: 'every list in reverse order',
    caughtBy: ['race-days', 'races-on', 'off-window', 'analytics', 'all-analytics'],
    wrap: (h) =>
      decorate(h, (inner) => ({
        raceDays: async (from, to) => (await inner.raceDays(from, to)).reverse(),
        racesOn: async (date) => (await inner.racesOn(date)).reverse(),
        racesOffBetween: async (from, to) => (await inner.racesOffBetween(from, to)).reverse(),
        analytics: async (id) => (await inner.analytics(id))?.reverse(),
        allAnalytics: () => reversed(inner.allAnalytics()),
      })),
  },
  {
    name: 'the first card of a race wins',
    caughtBy: ['latest-card', 'race-moved', 'result-versions'],
    wrap: (h) => {
      const seen = new Set<string>();
      return rewrite(h, (i) => ({
        ...i,
        cards: i.cards.filter((c) => (seen.has(c.raceId) ? false : (seen.add(c.raceId), true))),
      }));
    },
  },
  {
    name: 'the last card to arrive wins',
    caughtBy: ['latest-card'],
    wrap: (h) => {
      let stamp = Date.parse('2030-01-01T00:00:00.000Z');
      return rewrite(h, (i) => ({ ...i, cards: i.cards.map((c) => ({ ...c, publishedAt: stamp++ })) }));
    },
  },
  {
    name: 'the UTC date of the off is taken for the meeting date',
    caughtBy: ['race-days', 'races-on', 'demo-date'],
    wrap: (h) =>
      rewrite(h, (i) => ({
        ...i,
        cards: i.cards.map((c) => ({ ...c, meetingDate: new Date(c.offTime).toISOString().slice(0, 10) })),
      })),
  },
  {
    name: 'raceDays leaves out `to`',
    caughtBy: ['race-days'],
    wrap: (h) =>
      decorate(h, (inner) => ({
        raceDays: async (from, to) => (await inner.raceDays(from, to)).filter((d) => d.date !== to),
      })),
  },
  {
    name: 'racesOffBetween includes `to`',
    caughtBy: ['off-window'],
    wrap: (h) => decorate(h, (inner) => ({ racesOffBetween: (from, to) => inner.racesOffBetween(from, to + 1) })),
  },
  {
    name: 'tombstones are ignored',
    caughtBy: ['analytics', 'all-analytics'],
    wrap: (h) => rewrite(h, (i) => ({ ...i, tombstones: [] })),
  },
  {
    name: 'the first row of a key wins',
    caughtBy: ['analytics', 'all-analytics'],
    wrap: (h) => {
      const seen = new Set<string>();
      const key = (r: AnalyticsRow) => `${r.raceId}:${r.horseId}`;
      return rewrite(h, (i) => ({
        ...i,
        rows: i.rows.filter((r) => (seen.has(key(r)) ? false : (seen.add(key(r)), true))),
      }));
    },
  },
  {
    name: 'allAnalytics leaves out rows of races without a card',
    caughtBy: ['all-analytics'],
    wrap: (h) =>
      decorate(h, (inner) => ({
        allAnalytics: async function* () {
          for await (const r of inner.allAnalytics()) if (await inner.race(r.raceId)) yield r;
        },
      })),
  },
  {
    name: 'analytics of an unknown race is []',
    caughtBy: ['unknown', 'result-first'],
    wrap: (h) => decorate(h, (inner) => ({ analytics: async (id) => (await inner.analytics(id)) ?? [] })),
  },
  {
    name: 'demoDate is the latest day with any result',
    caughtBy: ['demo-date'],
    wrap: (h) =>
      decorate(h, (inner) => ({
        demoDate: async (today) => {
          for (const d of (await inner.raceDays('0000-01-01', today)).reverse()) {
            if ((await inner.racesOn(d.date)).some((s) => s.status === 'result')) return d.date;
          }
          return undefined;
        },
      })),
  },
  {
    name: 'the first version of a course wins',
    caughtBy: ['courses-latest', 'course-in-force'],
    wrap: (h) => {
      const seen = new Set<string>();
      return rewrite(h, (i) => ({
        ...i,
        courses: (i.courses ?? []).filter((c) => (seen.has(c.courseId) ? false : (seen.add(c.courseId), true))),
      }));
    },
  },
  {
    name: 'the last course version to arrive wins',
    caughtBy: ['courses-latest', 'course-in-force'],
    wrap: (h) => {
      let stamp = Date.parse('2030-01-01T00:00:00.000Z');
      return rewrite(h, (i) => ({ ...i, courses: (i.courses ?? []).map((c) => ({ ...c, publishedAt: stamp++ })) }));
    },
  },
  {
    name: 'courses are ordered by id, not name',
    caughtBy: ['courses-latest'],
    wrap: (h) =>
      decorate(h, (inner) => ({
        courses: async () => (await inner.courses()).sort((a, b) => (a.courseId < b.courseId ? -1 : 1)),
      })),
  },
  {
    name: 'course() takes the version in force at the start of asOf, not its end',
    caughtBy: ['course-in-force'],
    wrap: (h) =>
      decorate(h, (inner) => ({
        course: async (id, asOf) => {
          const [early, today] = [await inner.course(id, addDays(asOf, -1)), await inner.course(id, asOf)];
          return today && { ...today, version: early?.version ?? today.version };
        },
      })),
  },
  {
    name: 'course() is the latest version whatever the date',
    caughtBy: ['course-in-force'],
    wrap: (h) =>
      decorate(h, (inner) => ({
        course: async (id, asOf) => {
          const r = await inner.course(id, asOf);
          return r && { ...r, version: (await inner.course(id, '9999-12-31'))!.version };
        },
      })),
  },
  {
    name: 'only the latest surface period is in force (turf beside AW is lost)',
    caughtBy: ['course-in-force'],
    wrap: (h) =>
      decorate(h, (inner) => ({
        course: async (id, asOf) => {
          const r = await inner.course(id, asOf);
          return r && { ...r, surfaceInForce: r.surfaceInForce.slice(-1) };
        },
      })),
  },
  {
    name: 'snapshot tombstones are ignored',
    caughtBy: ['snapshot-replace'],
    wrap: (h) => rewrite(h, (i) => ({ ...i, snapshotTombstones: [] })),
  },
  {
    name: 'the first snapshot row of a key wins',
    caughtBy: ['snapshot-replace'],
    wrap: (h) => {
      const seen = new Set<string>();
      return rewrite(h, (i) => ({
        ...i,
        snapshots: (i.snapshots ?? []).filter((s) =>
          seen.has(snapshotKey(s)) ? false : (seen.add(snapshotKey(s)), true),
        ),
      }));
    },
  },
  {
    name: 'snapshots in reverse order',
    caughtBy: ['snapshots', 'snapshot-paging'],
    wrap: (h) =>
      decorate(h, (inner) => ({
        courseSnapshots: async (id, q) => {
          const page = await inner.courseSnapshots(id, q);
          return { ...page, snapshots: page.snapshots.reverse() };
        },
      })),
  },
  {
    name: 'snapshot filters are ignored',
    caughtBy: ['snapshots'],
    wrap: (h) =>
      decorate(h, (inner) => ({
        courseSnapshots: (id, { discipline: _d, distanceBucket: _b, surface: _s, ...q }) =>
          inner.courseSnapshots(id, q),
      })),
  },
  {
    name: 'toPeriodEnd is exclusive',
    caughtBy: ['snapshots'],
    wrap: (h) =>
      decorate(h, (inner) => ({
        courseSnapshots: (id, q) => inner.courseSnapshots(id, { ...q, toPeriodEnd: q.toPeriodEnd - 1 }),
      })),
  },
  {
    name: 'a page resumes at its last row (repeating it)',
    caughtBy: ['snapshot-paging'],
    wrap: (h) =>
      decorate(h, (inner) => ({
        courseSnapshots: (id, q) =>
          inner.courseSnapshots(id, q.after ? { ...q, after: { ...q.after, key: q.after.key.slice(0, -1) } } : q),
      })),
  },
  {
    name: 'hasMore is never set',
    caughtBy: ['snapshot-paging'],
    wrap: (h) =>
      decorate(h, (inner) => ({
        courseSnapshots: async (id, q) => ({ ...(await inner.courseSnapshots(id, q)), hasMore: false }),
      })),
  },
  {
    name: 'revision never changes',
    caughtBy: ['revision'],
    base: () => levelHarness(1),
    wrap: (h) => decorate(h, () => ({ revision: () => 0 })),
  },
];

/** Runs every applicable case against a fresh harness each; returns the ids of the cases that failed. */
async function failingCases(make: () => Promise<ReadModelHarness> | ReadModelHarness): Promise<string[]> {
  const failed: string[] = [];
  for (const c of readModelContract) {
    const h = await make();
    try {
      if (c.requires && !c.requires(h.model)) continue;
      await c.run(h);
    } catch {
      failed.push(c.id);
    } finally {
      await h.close?.();
    }
  }
  return failed;
}

describe('the ReadModel contract catches broken read models', () => {
  it('passes a model that only delegates (the decorator itself changes nothing)', async () => {
    expect(await failingCases(() => decorate(fakeHarness(), () => ({})))).toEqual([]);
    expect(await failingCases(async () => decorate(await levelHarness(2), () => ({})))).toEqual([]);
  });

  it('the result case sees a model that drops results answer differently', async () => {
    const broken = mutants.find((m) => m.name === 'drops every result')!.wrap(fakeHarness());
    const resultCase = readModelContract.find((c) => c.id === 'race-result')!;
    await expect(resultCase.run(broken)).rejects.toThrow();
  });

  for (const m of mutants) {
    it(`catches a model where ${m.name} (by ${m.caughtBy.join(', ')})`, async () => {
      const failed = await failingCases(async () => m.wrap(await (m.base ?? fakeHarness)()));
      expect(failed).toEqual(expect.arrayContaining(m.caughtBy));
    });
  }
});
