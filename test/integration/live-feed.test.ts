/**
 * The demo's live feed on the real embedded log, processor and view, with an injected clock (no real
 * waiting): the history as `racing start` publishes it, then tomorrow's card when its time comes, a
 * race-day update, a provisional row turning final once its result is published, and a restart that
 * publishes what was missed while down, once, also after a crash between producing and writing the
 * watermark.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newBackground, startBackground } from '../../cli/commands/background.js';
import {
  demoFeed,
  generateDemo,
  type LiveFeedHandle,
  openDemoFeed,
  startLiveFeed,
} from '../../cli/commands/live-feed.js';
import { processAll } from '../../cli/commands/pipeline.js';
import { serviceConfigFromEnv } from '../../cli/config.js';
import { openRuntime, type Runtime } from '../../cli/runtime.js';
import type { AnalyticsRow, RaceCard } from '../../domain/avro-types.generated.js';
import type { PublishableEvent } from '../../domain/events.js';
import { generateFeed } from '../../domain/generator/index.js';
import { silentLogger } from '../../domain/logger.js';
import { MS_PER_DAY, parseDate } from '../../domain/time.js';
import type { StorePort } from '../../state/store-port.js';
import { LiveFeed } from '../../streams/live-feed.js';
import { ManualClock } from '../support/manual-clock.js';

const PARAMS = { from: '2024-06-01', seed: 4, scale: 0.3 };
/** "now" when the demo is created: race day 2024-06-08, before that day's updates and tomorrow's cards */
const T0 = Date.parse('2024-06-08T06:00:00Z');
const TODAY = '2024-06-08';
const TOMORROW = '2024-06-09';
/** how far the tests look into the feed */
const END = Date.parse('2024-06-11T00:00:00Z');

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** The feed's events up to END, as the generator makes them. */
function feedUntilEnd(): PublishableEvent[] {
  const out: PublishableEvent[] = [];
  for (const e of demoFeed(PARAMS)) {
    if (e.publishedAt > END) break;
    out.push(e);
  }
  return out;
}

async function eventually<T>(what: string, f: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Every input record as topic|key|timestamp|value (hex), sorted, for exact comparisons. */
async function inputRecords(rt: Runtime): Promise<string[]> {
  const out: string[] = [];
  for (const topic of [rt.topics.courses, rt.topics.cards, rt.topics.results]) {
    const ends = await rt.log.endOffsets(topic);
    for (let p = 0; p < ends.length; p++) {
      for (let offset = 0; offset < ends[p]!;) {
        const records = await rt.log.read(topic, p, offset, 5_000);
        if (records.length === 0) break;
        for (const r of records) out.push(`${topic}|${r.key}|${r.timestamp}|${r.value?.toString('hex')}`);
        offset = records.at(-1)!.offset + 1;
      }
    }
  }
  return out.sort();
}

/** The same for the feed's events published by `until`. */
function expectedRecords(rt: Runtime, events: PublishableEvent[], until: number): string[] {
  const { codecs } = rt;
  return events
    .filter((e) => e.publishedAt <= until)
    .map((e) => {
      if (e.kind === 'card')
        return `${codecs.topics.cards}|${e.value.raceId}|${e.publishedAt}|${codecs.card.encode(e.value).toString('hex')}`;
      if (e.kind === 'result')
        return `${codecs.topics.results}|${e.value.raceId}|${e.publishedAt}|${codecs.result.encode(e.value).toString('hex')}`;
      return `${codecs.topics.courses}|${e.value.courseId}|${e.publishedAt}|${codecs.course.encode(e.value).toString('hex')}`;
    })
    .sort();
}

/** The service as `racing start` runs it: processor and view tailing the log, and the live feed. */
class Service {
  rt!: Runtime;
  live: LiveFeedHandle | undefined;
  private abort = new AbortController();
  private tasks: Promise<void>[] = [];

  static async start(dataDir: string, clock: ManualClock, create: boolean): Promise<Service> {
    const s = new Service();
    const config = serviceConfigFromEnv({ RACING_DATA_DIR: dataDir, LOG_LEVEL: 'silent', RACING_CHECKPOINT_MS: '100' });
    s.rt = await openRuntime(config, silentLogger());
    const feed = create ? await generateDemo(s.rt, PARAMS, clock) : undefined;
    const { processor } = await processAll(s.rt);
    s.tasks = startBackground(s.rt, processor, newBackground(), {
      signal: s.abort.signal,
      onFatal: (e) => {
        throw e;
      },
    });
    s.live = await startLiveFeed(s.rt, { clock, ...(feed ? { feed } : {}) });
    return s;
  }

  async stop(): Promise<void> {
    await this.live?.stop();
    this.abort.abort();
    await Promise.allSettled(this.tasks);
    await this.rt.close();
  }

  analytics(raceId: string): Promise<AnalyticsRow[] | undefined> {
    return this.rt.view.analytics(raceId);
  }
}

describe('the live feed', () => {
  const events = feedUntilEnd();
  const cards = events.filter((e): e is PublishableEvent & { kind: 'card' } => e.kind === 'card');
  let dataDir: string;
  let clock: ManualClock;
  let service: Service;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'racing-live-'));
    dirs.push(dataDir);
    clock = new ManualClock(T0);
    service = await Service.start(dataDir, clock, true);
    await clock.asleep();
  }, 300_000);

  afterAll(async () => {
    await service?.stop();
  });

  it('continues the feed `racing generate` makes: a later range end gives the same events', () => {
    const to = '2024-06-10';
    const horizon = (parseDate(to)! / MS_PER_DAY - 2) * MS_PER_DAY;
    const short = [...generateFeed({ ...PARAMS, to })].filter((e) => e.publishedAt < horizon);
    expect(short.length).toBeGreaterThan(100);
    expect(events.slice(0, short.length)).toEqual(short);
    expect(events[short.length]!.publishedAt).toBeGreaterThanOrEqual(horizon);
  });

  it('publishes the history up to now, and sleeps until the next event is due', async () => {
    expect(await inputRecords(service.rt)).toEqual(expectedRecords(service.rt, events, T0));
    const next = events.find((e) => e.publishedAt > T0)!;
    expect(clock.pending).toEqual([next.publishedAt]);
  });

  it("publishes tomorrow's card the day before, when its time comes; the race gets provisional rows", async () => {
    const card = cards.find((e) => e.publishedAt > T0 && e.value.version === 1 && e.value.meetingDate === TOMORROW)!;
    expect(card).toBeDefined();
    const raceId = card.value.raceId;
    await clock.set(card.publishedAt - 1);
    expect(await service.rt.view.race(raceId)).toBeUndefined();
    await clock.set(card.publishedAt);
    const rows = await eventually('provisional rows', async () => {
      const r = await service.analytics(raceId);
      return r && r.length > 0 ? r : undefined;
    });
    expect(rows.every((r) => r.status === 'provisional' && r.position === 0)).toBe(true);
    expect(rows.length).toBe(card.value.runners.filter((r) => !r.nonRunner).length);
  });

  let updated: RaceCard;
  it('publishes a race-day update (a non-runner, a jockey or going change) at its time; the rows follow', async () => {
    const update = cards.find(
      (e) =>
        e.publishedAt > clock.now() &&
        e.value.version > 1 &&
        e.value.meetingDate === TODAY &&
        e.value.runners.some((r) => r.nonRunner),
    )!;
    expect(update).toBeDefined();
    updated = update.value;
    const raceId = updated.raceId;
    const before = await eventually('the card before the update', () => service.rt.view.race(raceId));
    expect(before.cardVersion).toBeLessThan(updated.version);
    await clock.set(update.publishedAt);
    const race = await eventually('the new card version', async () => {
      const r = await service.rt.view.race(raceId);
      return r?.cardVersion === updated.version ? r : undefined;
    });
    expect(race.status).toBe('declared');
    const runners = updated.runners.filter((r) => !r.nonRunner);
    const rows = await eventually('rows of the declared runners', async () => {
      const r = await service.analytics(raceId);
      return r && r.length === runners.length ? r : undefined;
    });
    expect(new Set(rows.map((r) => r.horseId))).toEqual(new Set(runners.map((r) => r.horseId)));
    for (const r of rows) {
      expect(r.status).toBe('provisional');
      expect(r.jockeyId).toBe(runners.find((x) => x.horseId === r.horseId)!.jockeyId);
    }
  });

  it('turns the provisional rows final minutes after the off, when the result is published', async () => {
    const result = events.find((e) => e.kind === 'result' && e.value.raceId === updated.raceId)!;
    expect(result.publishedAt).toBeGreaterThan(updated.offTime);
    expect(result.publishedAt - updated.offTime).toBeLessThan(60 * 60_000);
    await clock.set(updated.offTime);
    expect((await service.analytics(updated.raceId))!.every((r) => r.status === 'provisional')).toBe(true);
    await clock.set(result.publishedAt);
    const rows = await eventually('final rows', async () => {
      const r = await service.analytics(updated.raceId);
      return r?.every((x) => x.status === 'final') ? r : undefined;
    });
    expect(rows.some((r) => r.position === 1)).toBe(true);
    expect((await service.rt.view.race(updated.raceId))!.status).toBe('result');
  });

  it('after a restart, publishes what was missed while down, once, then goes on live', async () => {
    const stoppedAt = clock.now();
    await service.stop();
    // a day and a half down: tomorrow's racing run and resulted, the next day's cards published
    const downUntil = stoppedAt + 1.5 * MS_PER_DAY;
    await clock.set(downUntil);
    service = await Service.start(dataDir, clock, false);
    await clock.asleep();
    expect(await inputRecords(service.rt)).toEqual(expectedRecords(service.rt, events, downUntil));
    // a race run while the service was down has final rows
    const missed = events.find(
      (e): e is PublishableEvent & { kind: 'result' } =>
        e.kind === 'result' && e.publishedAt > stoppedAt && e.publishedAt <= downUntil,
    )!.value.raceId;
    await eventually('final rows of a race run while down', async () => {
      const r = await service.analytics(missed);
      return r && r.length > 0 && r.every((x) => x.status === 'final') ? r : undefined;
    });
    // and on it goes, at each event's time
    const next = events.find((e) => e.publishedAt > downUntil)!;
    expect(clock.pending).toEqual([next.publishedAt]);
    await clock.set(next.publishedAt);
    expect(await inputRecords(service.rt)).toEqual(expectedRecords(service.rt, events, next.publishedAt));
  }, 300_000);

  it('a crash between producing a batch and writing its watermark publishes nothing twice', async () => {
    await service.stop();
    const config = serviceConfigFromEnv({ RACING_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const rt = await openRuntime(config, silentLogger());
    try {
      const crashAt = clock.now() + 6 * 60 * 60_000;
      await clock.set(crashAt);
      const deps = (store: StorePort) => ({
        log: rt.log,
        codecs: rt.codecs,
        store,
        logger: silentLogger(),
        clock,
        feed: demoFeed,
      });
      const crashing = await LiveFeed.open(deps(failingPut(rt.store.sub('live-feed/'))));
      await expect(crashing!.catchUp()).rejects.toThrow('disk full');
      // the batch is in the log, its watermark is not
      expect(await inputRecords(rt)).toEqual(expectedRecords(rt, events, crashAt));
      const reopened = (await openDemoFeed(rt, clock))!;
      expect(reopened.watermark).toBeLessThan(crashAt);
      const { published } = await reopened.catchUp();
      expect(published).toBe(0);
      expect(await inputRecords(rt)).toEqual(expectedRecords(rt, events, crashAt));
      expect(reopened.watermark).toBeLessThanOrEqual(crashAt);
      expect(reopened.nextAt).toBeGreaterThan(crashAt);
    } finally {
      await rt.close();
    }
  }, 300_000);
});

/** A store whose every put fails: the state write after a produced batch. */
function failingPut(store: StorePort): StorePort {
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'put') return () => Promise.reject(new Error('disk full'));
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

describe('RACING_LIVE and which data dirs have a feed', () => {
  it('is on by default in embedded mode, off in Kafka mode, and rejects other values by name', () => {
    const env = {
      RACING_DATA_DIR: '/tmp/x',
      KAFKA_BROKERS: '127.0.0.1:9092',
      SCHEMA_REGISTRY_URL: 'http://127.0.0.1:1',
    };
    expect(serviceConfigFromEnv(env).live).toBe(true);
    expect(serviceConfigFromEnv({ ...env, RACING_LIVE: '0' }).live).toBe(false);
    expect(serviceConfigFromEnv({ ...env, RACING_MODE: 'kafka' }).live).toBe(false);
    expect(serviceConfigFromEnv({ ...env, RACING_MODE: 'kafka', RACING_LIVE: '1' }).live).toBe(true);
    expect(() => serviceConfigFromEnv({ ...env, RACING_LIVE: 'maybe' })).toThrow(/RACING_LIVE \(1 or 0\)/);
  });

  it('runs no feed when turned off, nor on a data dir whose input racing start did not generate', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'racing-live-off-'));
    dirs.push(dataDir);
    for (const live of ['0', '1']) {
      const rt = await openRuntime(
        serviceConfigFromEnv({ RACING_DATA_DIR: dataDir, LOG_LEVEL: 'silent', RACING_LIVE: live }),
        silentLogger(),
      );
      try {
        expect(await startLiveFeed(rt, { clock: new ManualClock(T0) })).toBeUndefined();
      } finally {
        await rt.close();
      }
    }
  });
});
