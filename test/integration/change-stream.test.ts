/**
 * The change stream on the whole embedded pipeline, read by an outside SSE client (the `eventsource`
 * package): a generated history is processed and served; then results and a card with a non-runner are
 * published while clients listen (everything, one race, one meeting date); the service is stopped, more
 * results are processed while it is down, and it is started again on the same data dir and port. The
 * clients reconnect on their own with Last-Event-ID and must end up with exactly the change log's events
 * after where they started: nothing missing, nothing twice, in order, each filtered as asked. Heartbeat
 * comments are checked on the wire.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { EventSource } from 'eventsource';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../api/app.js';
import { STREAM_EVENT_DATA, StreamEventSchema } from '../../api/stream-routes.js';
import { serviceConfigFromEnv } from '../../cli/config.js';
import { newBackground, startBackground } from '../../cli/commands/background.js';
import { processAll } from '../../cli/commands/pipeline.js';
import { openRuntime, type Runtime } from '../../cli/runtime.js';
import type { RaceCard } from '../../domain/avro-types.generated.js';
import type { PublishableEvent } from '../../domain/events.js';
import { generateFeed } from '../../domain/generator/index.js';
import { silentLogger } from '../../domain/logger.js';
import { parseDate } from '../../domain/time.js';
import { type Change, changeId } from '../../state/read-model/change-log.js';
import { publishEvents } from '../../streams/publisher.js';

const logger = silentLogger();
FormatRegistry.Set('date', (v) => parseDate(v) !== undefined);
FormatRegistry.Set('date-time', (v) => !Number.isNaN(Date.parse(v)));
const RANGE = { from: '2024-05-01', to: '2024-05-14', seed: 7, scale: 0.3 };
const PATH = '/api/v1/stream/analytics';

interface Seen {
  type: string;
  id: string;
  text: string;
  data: Record<string, unknown>;
}

interface Client {
  name: string;
  query: string;
  events: Seen[];
  source: EventSource;
  wire: string;
}

interface Service {
  rt: Runtime;
  app: FastifyInstance;
  url: string;
  stop(): Promise<void>;
}

async function until(what: string, ok: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const seqOf = (id: string) => Number(id.slice(id.indexOf('-') + 1));
const rowEvents = (c: Client) => c.events.filter((e) => e.type === 'upsert' || e.type === 'tombstone');

describe('the change stream across a service restart (embedded pipeline, eventsource client)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'racing-change-stream-'));
  const config = serviceConfigFromEnv({ RACING_DATA_DIR: dir, LOG_LEVEL: 'silent', RACING_CHECKPOINT_MS: '200' });
  let service: Service | undefined;
  let port = 0;
  let key = '';
  const clients: Client[] = [];

  const feed = [...generateFeed(RANGE)] as PublishableEvent[];
  // The history: everything published before the first result of the last-but-one day.
  const cut = feed.find((e) => e.kind === 'result' && e.publishedAt >= Date.parse('2024-05-13T00:00:00Z'))!.publishedAt;
  const history = feed.filter((e) => e.publishedAt < cut);
  const latestCard = new Map<string, RaceCard>();
  for (const e of history) if (e.kind === 'card') latestCard.set(e.value.raceId, e.value);
  // Results still to come, of races whose card is already in: published in three steps below.
  const live = feed.filter(
    (e): e is PublishableEvent & { kind: 'result' } =>
      e.kind === 'result' && e.publishedAt >= cut && latestCard.has(e.value.raceId),
  );
  const target = live[0]!.value.raceId;
  const targetDate = latestCard.get(target)!.meetingDate;
  // A race of another day, not resulted in this test, loses a runner: its row becomes a tombstone.
  const withdrawnRace = [...latestCard.values()].find(
    (c) =>
      c.meetingDate !== targetDate && c.offTime > cut && !live.slice(0, 8).some((r) => r.value.raceId === c.raceId),
  )!;
  const withdrawn = withdrawnRace.runners.find((r) => !r.nonRunner)!.horseId;
  const nonRunnerCard: PublishableEvent = {
    kind: 'card',
    publishedAt: cut,
    value: {
      ...withdrawnRace,
      version: withdrawnRace.version + 1,
      publishedAt: cut,
      runners: withdrawnRace.runners.map((r) => (r.horseId === withdrawn ? { ...r, nonRunner: true } : r)),
    },
  };

  async function start(): Promise<Service> {
    const rt = await openRuntime(config, logger);
    const { processor } = await processAll(rt);
    const abort = new AbortController();
    const tasks = startBackground(rt, processor, newBackground(), {
      signal: abort.signal,
      onFatal: (e) => {
        throw e;
      },
    });
    const app = buildApp({
      readModel: rt.view,
      changes: rt.view.changes,
      keys: rt.keys,
      config: { ...config.api, port },
      logger,
      stream: { ...config.stream, heartbeatMs: 200, retryMs: 100 },
    });
    const url = await app.listen({ host: '127.0.0.1', port });
    port = Number(new URL(url).port);
    return {
      rt,
      app,
      url,
      async stop() {
        await app.close();
        abort.abort();
        await Promise.allSettled(tasks);
        await rt.close();
      },
    };
  }

  function listen(name: string, query: string): Client {
    const client: Client = { name, query, events: [], wire: '', source: undefined as unknown as EventSource };
    client.source = new EventSource(`http://127.0.0.1:${port}${PATH}${query}`, {
      fetch: async (input, init) => {
        const res = await fetch(input, { ...init, headers: { ...init.headers, 'X-Api-Key': key } });
        if (!res.body) return res;
        const [mine, wire] = res.body.tee();
        void (async () => {
          const text = new TextDecoder();
          for await (const chunk of wire) client.wire += text.decode(chunk, { stream: true });
        })().catch(() => undefined);
        return new Response(mine, { status: res.status, headers: res.headers });
      },
    });
    for (const type of ['ready', 'upsert', 'tombstone', 'reset', 'position', 'closing']) {
      client.source.addEventListener(type, (e) => {
        client.events.push({
          type,
          id: e.lastEventId,
          text: e.data,
          data: JSON.parse(e.data) as Record<string, unknown>,
        });
      });
    }
    clients.push(client);
    return client;
  }

  /** Waits until the view has applied everything the processor produced (the change log's head is still). */
  async function settled(s: Service): Promise<number> {
    let last = -1;
    let still = 0;
    await until('the view to settle', async () => {
      const head = (await s.rt.view.changes.position()).head;
      const analytics = (await s.rt.log.endOffsets(s.rt.topics.analytics)).reduce((a, b) => a + b, 0);
      const viewed = (await s.rt.log.committed(s.rt.groups.view, s.rt.topics.analytics)).reduce((a, b) => a + b, 0);
      still = head === last && analytics === viewed ? still + 1 : 0;
      last = head;
      return still >= 8;
    });
    return last;
  }

  beforeAll(async () => {
    const rt = await openRuntime(config, logger);
    try {
      await publishEvents(rt.log, rt.codecs, history);
      key = (await rt.keys.create('stream client')).key;
    } finally {
      await rt.close();
    }
    service = await start();
  }, 300_000);

  afterAll(async () => {
    for (const c of clients) c.source.close();
    await service?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('delivers every change exactly once, in order and filtered, across a restart; heartbeats on the wire', async () => {
    const s1 = service!;
    const all = listen('all', '');
    const race = listen('race', `?raceId=${target}`);
    const day = listen('day', `?date=${targetDate}`);
    await until('ready', () => clients.every((c) => c.events.some((e) => e.type === 'ready')));
    const { epoch, head: from } = await s1.rt.view.changes.position();
    for (const c of clients) expect(c.events[0]).toMatchObject({ type: 'ready', id: changeId(epoch, from) });

    // step 1, while the clients listen: a non-runner, then three results (the first is the target race's)
    await publishEvents(s1.rt.log, s1.rt.codecs, [nonRunnerCard, ...live.slice(0, 3)]);
    const runners = latestCard
      .get(target)!
      .runners.filter((r) => !r.nonRunner)
      .map((r) => r.horseId);
    await until('the target race final rows on its stream', () => {
      const finals = new Set(
        rowEvents(race)
          .filter((e) => e.type === 'upsert' && e.data['status'] === 'final')
          .map((e) => e.data['horseId']),
      );
      return runners.every((h) => finals.has(h));
    });
    await until('the tombstone', () =>
      rowEvents(all).some((e) => e.type === 'tombstone' && e.data['horseId'] === withdrawn),
    );
    expect(rowEvents(all).find((e) => e.type === 'tombstone' && e.data['horseId'] === withdrawn)!.data).toEqual({
      raceId: withdrawnRace.raceId,
      horseId: withdrawn,
    });
    // an upsert is the row as GET /races/{raceId}/analytics serves it, byte for byte
    const served = (await (
      await fetch(`${s1.url}/api/v1/races/${target}/analytics`, { headers: { 'X-Api-Key': key } })
    ).json()) as Record<string, unknown>[];
    const lastOf = (h: unknown) =>
      rowEvents(race)
        .filter((e) => e.data['horseId'] === h)
        .at(-1)!;
    for (const row of served) expect(lastOf(row['horseId']).text).toBe(JSON.stringify(row));
    const beforeStop = await settled(s1);
    await until('the clients to catch up', () => rowEvents(all).length === beforeStop - from);
    expect(all.wire.split(': heartbeat\n\n').length).toBeGreaterThan(2);

    // step 2, with the service down: stopped, results published and processed, started on the same port
    await s1.stop();
    service = undefined;
    await until('the clients to see the shutdown', () =>
      clients.every((c) => c.events.some((e) => e.type === 'closing' && e.data['reason'] === 'shutdown')),
    );
    const rt = await openRuntime(config, logger);
    try {
      await publishEvents(rt.log, rt.codecs, live.slice(3, 6));
    } finally {
      await rt.close();
    }
    const s2 = await start();
    service = s2;
    const afterRestart = await settled(s2);
    expect(afterRestart).toBeGreaterThan(beforeStop);
    for (const c of clients) {
      await until(`${c.name} to reconnect`, () => c.events.filter((e) => e.type === 'ready').length === 2);
      const again = c.events.filter((e) => e.type === 'ready')[1]!;
      expect(again.data['resumed'], c.name).toBe(true);
    }

    // step 3, live again
    await publishEvents(s2.rt.log, s2.rt.codecs, live.slice(6, 8));
    const end = await settled(s2);
    expect((await s2.rt.view.changes.position()).epoch).toBe(epoch);
    const log: Change[] = await s2.rt.view.changes.read(from, 1_000_000);
    expect(log.length).toBe(end - from);
    expect(log.map((c) => c.seq)).toEqual(log.map((_, i) => from + i + 1));

    const expected = (keep: (c: Change) => boolean) =>
      log.filter(keep).map((c) => [changeId(epoch, c.seq), c.value ? 'upsert' : 'tombstone', c.raceId, c.horseId]);
    const got = (c: Client) => rowEvents(c).map((e) => [e.id, e.type, e.data['raceId'], e.data['horseId']]);
    await until(
      'every change on every stream',
      () =>
        got(all).length === expected(() => true).length &&
        got(race).length === expected((c) => c.raceId === target).length &&
        got(day).length === expected((c) => c.meetingDate === targetDate).length,
    );
    expect(got(all)).toEqual(expected(() => true));
    expect(got(race)).toEqual(expected((c) => c.raceId === target));
    expect(got(day)).toEqual(expected((c) => c.meetingDate === targetDate));
    // the filters did leave something out, and the backlog processed while the service was down was delivered
    expect(got(day).length).toBeLessThan(got(all).length);
    expect(got(all).some(([id]) => seqOf(id as string) > beforeStop && seqOf(id as string) <= afterRestart)).toBe(true);
    for (const c of clients) expect(c.events.filter((e) => e.type === 'reset')).toEqual([]);
    // every event is what the OpenAPI document describes
    for (const e of clients.flatMap((c) => c.events)) {
      expect(Value.Check(StreamEventSchema, { event: e.type, id: e.id, data: e.text }), e.text).toBe(true);
      expect(Value.Check(STREAM_EVENT_DATA[e.type]!, e.data), e.text).toBe(true);
    }
  }, 300_000);
});
