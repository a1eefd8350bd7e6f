/**
 * GET /api/v1/stream/analytics over a real socket, read by an outside SSE client (the `eventsource`
 * package, WHATWG EventSource semantics) and, where the wire itself is under test (heartbeat comments,
 * a client that stops reading), by node:http. The read model is a LevelReadModel on the in-memory store
 * fed through apply(), as the view materialiser feeds it; test/integration/change-stream.test.ts runs
 * the same endpoint on the whole pipeline across a restart.
 */
import { get as httpGet, type IncomingMessage } from 'node:http';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { EventSource } from 'eventsource';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../api/app.js';
import { apiConfig } from '../../api/config.js';
import { STREAM_EVENT_DATA, type StreamConfig, StreamEventSchema } from '../../api/stream-routes.js';
import type { AnalyticsRow } from '../../domain/avro-types.generated.js';
import type { ViewEvent } from '../../domain/events.js';
import { parseDate } from '../../domain/time.js';
import { silentLogger } from '../../domain/logger.js';
import { AccountStore } from '../../state/credentials/account-store.js';
import { KeyStore } from '../../state/credentials/key-store.js';
import { SessionStore } from '../../state/credentials/session-store.js';
import { type ChangeRetention, changeId } from '../../state/read-model/change-log.js';
import { LevelReadModel } from '../../state/read-model/level-read-model.js';
import { card, horse, race } from '../support/builders.js';
import { makeRow } from '../support/fake-read-model.js';
import { memoryStore } from '../support/memory-store.js';
import { cheapHash } from './harness.js';

// TypeBox's Value.Check knows no formats by itself (Fastify's Ajv does); register the two the schemas use.
FormatRegistry.Set('date', (v) => parseDate(v) !== undefined);
FormatRegistry.Set('date-time', (v) => !Number.isNaN(Date.parse(v)));

const decode = async (b: Buffer) => JSON.parse(b.toString('utf8')) as AnalyticsRow;
const PATH = '/api/v1/stream/analytics';

interface Served {
  app: FastifyInstance;
  url: string;
  model: LevelReadModel;
  keys: KeyStore;
  accounts: AccountStore;
  sessions: SessionStore;
  key: string;
  epoch: () => Promise<string>;
  offset: number;
  /** applies row records (as the analytics topic would deliver them) */
  rows(specs: { r: string; h: string; tombstone?: boolean; pad?: number }[]): Promise<void>;
  cards(specs: { r: string; off: string; runners?: string[] }[]): Promise<void>;
}

const servers: Served[] = [];
const sources: EventSource[] = [];

afterEach(async () => {
  for (const s of sources.splice(0)) s.close();
  for (const s of servers.splice(0)) await s.app.close();
});

async function serve(stream: Partial<StreamConfig> = {}, retention?: ChangeRetention): Promise<Served> {
  const store = memoryStore();
  const model = new LevelReadModel(store.sub('view/'), decode, retention ? { retention } : {});
  // as in a service that has had stream clients: the change log keeps what is applied from now on
  await model.changes.retain();
  const keys = new KeyStore(store.sub('keys/'));
  const { key } = await keys.create('stream test');
  const accounts = new AccountStore(store.sub('accounts/'), { hash: cheapHash });
  const sessions = new SessionStore(store.sub('sessions/'));
  const app = buildApp({
    readModel: model,
    changes: model.changes,
    keys,
    accounts,
    sessions,
    config: apiConfig({ rateLimit: { requestsPerMinute: 100_000, perAddressPerMinute: 100_000 } }),
    logger: silentLogger(),
    stream: { heartbeatMs: 100, retryMs: 50, ...stream },
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const s: Served = {
    app,
    url,
    model,
    keys,
    accounts,
    sessions,
    key,
    offset: 0,
    epoch: async () => (await model.changes.position()).epoch,
    async rows(specs) {
      const events = specs.map((x): ViewEvent & { source: { topic: string; partition: number; offset: number } } => ({
        kind: 'row',
        key: `${race(x.r)}:${horse(x.h)}`,
        value: x.tombstone
          ? null
          : Buffer.from(
              JSON.stringify(
                makeRow({ raceId: race(x.r), horseId: horse(x.h), stableForm: 'x'.repeat(x.pad ?? 0) || '1-2-3' }),
              ),
            ),
        source: { topic: 'racing.analytics.v1', partition: 0, offset: s.offset++ },
      }));
      await model.apply(events);
    },
    async cards(specs) {
      await model.apply(
        specs.map((x): ViewEvent => ({
          kind: 'card',
          value: card({ r: x.r, off: x.off, runners: (x.runners ?? ['A', 'B']).map((h) => ({ h })) }),
        })),
      );
    },
  };
  servers.push(s);
  return s;
}

interface Seen {
  type: string;
  id: string;
  data: Record<string, unknown>;
  text: string;
}

/** Every event is what the OpenAPI document says: the event's fields, and its data against its own schema. */
function conforms(e: Seen): boolean {
  return (
    Value.Check(StreamEventSchema, { event: e.type, id: e.id, data: e.text }) &&
    Value.Check(STREAM_EVENT_DATA[e.type]!, JSON.parse(e.text))
  );
}

const TYPES = ['ready', 'upsert', 'tombstone', 'reset', 'position', 'closing'];

/** An EventSource with the key (and optional extra headers); `raw` sees the bytes on the wire. */
function subscribe(
  s: Served,
  query = '',
  options: { headers?: Record<string, string>; raw?: (text: string) => void } = {},
): { events: Seen[]; source: EventSource; errors: number[] } {
  const events: Seen[] = [];
  const errors: number[] = [];
  const source = new EventSource(`${s.url}${PATH}${query}`, {
    fetch: async (input, init) => {
      const res = await fetch(input, {
        ...init,
        headers: { ...init.headers, 'X-Api-Key': s.key, ...options.headers },
      });
      if (!options.raw || !res.body) return res;
      const [mine, theirs] = res.body.tee();
      void (async () => {
        const text = new TextDecoder();
        for await (const chunk of theirs) options.raw!(text.decode(chunk, { stream: true }));
      })().catch(() => undefined);
      return new Response(mine, { status: res.status, headers: res.headers });
    },
  });
  for (const type of TYPES) {
    source.addEventListener(type, (e) => {
      events.push({ type, id: e.lastEventId, data: JSON.parse(e.data) as Record<string, unknown>, text: e.data });
    });
  }
  source.addEventListener('error', (e) => errors.push((e as unknown as { code?: number }).code ?? 0));
  sources.push(source);
  return { events, source, errors };
}

async function until(what: string, ok: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const seqOf = (id: string) => Number(id.slice(id.indexOf('-') + 1));
const changes = (events: Seen[]) => events.filter((e) => e.type === 'upsert' || e.type === 'tombstone');
const brief = (e: Seen) => [e.type, e.data['raceId'], e.data['horseId']];

describe('GET /api/v1/stream/analytics', () => {
  it('refuses a request without a key (401) and names a bad parameter or header (400 problem+json)', async () => {
    const s = await serve();
    const noKey = await fetch(`${s.url}${PATH}`);
    expect(noKey.status).toBe(401);
    expect(((await noKey.json()) as { code: string }).code).toBe('missing_api_key');
    const cases: [string, Record<string, string>, string, string][] = [
      ['?raceId=nope', {}, 'query', 'raceId'],
      ['?date=2024-02-30', {}, 'query', 'date'],
      ['?date=2024-5-1', {}, 'query', 'date'],
      ['?lastEventId=12', {}, 'query', 'lastEventId'],
      ['', { 'Last-Event-ID': 'not-an-id' }, 'header', 'Last-Event-ID'],
    ];
    for (const [query, headers, where, name] of cases) {
      const res = await fetch(`${s.url}${PATH}${query}`, { headers: { 'X-Api-Key': s.key, ...headers } });
      expect(res.status, query).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      const body = (await res.json()) as { code: string; errors: { in: string; name: string }[] };
      expect(body.code).toBe('validation_failed');
      expect(body.errors[0]).toMatchObject({ in: where, name });
    }
  });

  it('is described in the OpenAPI document as a text/event-stream response', async () => {
    const s = await serve();
    const doc = (await (await fetch(`${s.url}/api/v1/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    const op = doc.paths[PATH]!['get']!;
    expect(op['security']).toEqual([{ ApiKey: [] }, { Session: [] }]);
    expect((op['parameters'] as { name: string }[]).map((p) => p.name).sort()).toEqual([
      'date',
      'lastEventId',
      'raceId',
    ]);
    const ok = (op['responses'] as Record<string, { content?: Record<string, unknown> }>)['200']!;
    expect(Object.keys(ok.content!)).toEqual(['text/event-stream']);
    expect(String(op['description'])).toMatch(/Last-Event-ID/);
    for (const status of ['400', '401', '429']) expect(op['responses']).toHaveProperty(status);
  });

  it('streams upserts (the row as served) and tombstones in order, each with an id, filtered by race and by date', async () => {
    const s = await serve();
    await s.cards([
      { r: 'R1', off: '2024-05-10T14:00:00.000Z' },
      { r: 'R2', off: '2024-05-11T14:00:00.000Z' },
    ]);
    const everything = subscribe(s);
    const oneRace = subscribe(s, `?raceId=${race('R1')}`);
    const oneDay = subscribe(s, '?date=2024-05-11');
    await until('ready', () => [everything, oneRace, oneDay].every((c) => c.events.some((e) => e.type === 'ready')));
    const epoch = await s.epoch();
    expect(everything.events[0]).toMatchObject({
      type: 'ready',
      id: changeId(epoch, 0),
      data: { resumed: false, head: changeId(epoch, 0) },
    });

    await s.rows([
      { r: 'R1', h: 'A' },
      { r: 'R1', h: 'B' },
    ]);
    await s.rows([{ r: 'R2', h: 'A' }]);
    await s.rows([{ r: 'R1', h: 'A', tombstone: true }]);
    await until('four changes', () => changes(everything.events).length === 4);
    const all = changes(everything.events);
    expect(all.map(brief)).toEqual([
      ['upsert', race('R1'), horse('A')],
      ['upsert', race('R1'), horse('B')],
      ['upsert', race('R2'), horse('A')],
      ['tombstone', race('R1'), horse('A')],
    ]);
    expect(all.map((e) => e.id)).toEqual([1, 2, 3, 4].map((n) => changeId(epoch, n)));
    expect(all[3]!.data).toEqual({ raceId: race('R1'), horseId: horse('A') });
    for (const e of everything.events) expect(conforms(e), JSON.stringify(e)).toBe(true);
    const served = (await (
      await fetch(`${s.url}/api/v1/races/${race('R2')}/analytics`, { headers: { 'X-Api-Key': s.key } })
    ).json()) as unknown[];
    expect(all[2]!.data).toEqual(served[0]);

    await until('filtered changes', () => changes(oneRace.events).length === 3 && changes(oneDay.events).length === 1);
    expect(changes(oneRace.events).map((e) => e.id)).toEqual([1, 2, 4].map((n) => changeId(epoch, n)));
    expect(changes(oneDay.events).map(brief)).toEqual([['upsert', race('R2'), horse('A')]]);
    // nothing else arrives for the filtered streams
    await new Promise((r) => setTimeout(r, 150));
    expect(changes(oneRace.events)).toHaveLength(3);
    expect(changes(oneDay.events)).toHaveLength(1);
  });

  it('sends the response headers of a keyed route and heartbeat comments; a filtered stream gets position events', async () => {
    const s = await serve({ heartbeatMs: 100 });
    const res = await fetch(`${s.url}${PATH}`, { headers: { 'X-Api-Key': s.key } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('ratelimit-limit')).toBe('100000');
    await res.body?.cancel();
    const head = await fetch(`${s.url}${PATH}`, { method: 'HEAD', headers: { 'X-Api-Key': s.key } });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(await head.text()).toBe('');

    let wire = '';
    const quiet = subscribe(s, `?raceId=${race('R3')}`, { raw: (t) => (wire += t) });
    await until('ready', () => quiet.events.length > 0);
    await s.rows([{ r: 'R1', h: 'A' }]);
    await s.rows([{ r: 'R2', h: 'A' }]);
    await until('a position event', () => quiet.events.some((e) => e.type === 'position'));
    await until('two heartbeats', () => wire.split(': heartbeat\n\n').length > 2);
    expect(wire).toMatch(/^retry: 50\nevent: ready\n/);
    const epoch = await s.epoch();
    expect(quiet.events.filter((e) => e.type === 'position').at(-1)).toMatchObject({
      type: 'position',
      id: changeId(epoch, 2),
      data: {},
    });
    expect(changes(quiet.events)).toEqual([]);
  });

  it('resumes exactly after the Last-Event-ID header or the lastEventId parameter (the header wins)', async () => {
    const s = await serve();
    await s.rows(['A', 'B', 'C', 'D', 'E'].map((h) => ({ r: 'R1', h })));
    const epoch = await s.epoch();
    const byQuery = subscribe(s, `?lastEventId=${changeId(epoch, 2)}`);
    const byHeader = subscribe(s, `?lastEventId=${changeId(epoch, 1)}`, {
      headers: { 'Last-Event-ID': changeId(epoch, 3) },
    });
    await until('backlogs', () => changes(byQuery.events).length === 3 && changes(byHeader.events).length === 2);
    expect(byQuery.events[0]).toMatchObject({ type: 'ready', id: changeId(epoch, 2), data: { resumed: true } });
    expect(changes(byQuery.events).map((e) => seqOf(e.id))).toEqual([3, 4, 5]);
    expect(changes(byHeader.events).map((e) => seqOf(e.id))).toEqual([4, 5]);
    // then live, without a gap or a repeat at the hand-over
    await s.rows([{ r: 'R1', h: 'F' }]);
    await until('live change', () => changes(byQuery.events).length === 4);
    expect(changes(byQuery.events).map((e) => seqOf(e.id))).toEqual([3, 4, 5, 6]);
  });

  it('sends reset (then the changes after the head) for an id from another log, ahead of it, or no longer kept', async () => {
    const s = await serve({}, { maxChanges: 5, maxAgeDays: 7 });
    for (let i = 0; i < 20; i++) await s.rows([{ r: 'R1', h: `H${i}` }]);
    const epoch = await s.epoch();
    const { oldest, head } = await s.model.changes.position();
    expect(oldest).toBeGreaterThan(2);
    const cases: [string, string][] = [
      ['0123456789-3', 'unknown_epoch'],
      [changeId(epoch, 99), 'ahead'],
      [changeId(epoch, 1), 'expired'],
    ];
    const conns = cases.map(([id]) => subscribe(s, `?lastEventId=${id}`));
    await until('resets', () => conns.every((c) => c.events.length > 0));
    for (const c of conns) expect(conforms(c.events[0]!)).toBe(true);
    cases.forEach(([id, reason], i) => {
      expect(conns[i]!.events[0]).toMatchObject({
        type: 'reset',
        id: changeId(epoch, head),
        data: { reason, lastEventId: id },
      });
    });
    // the oldest kept position itself still resumes
    const edge = subscribe(s, `?lastEventId=${changeId(epoch, oldest - 1)}`);
    await until('edge backlog', () => changes(edge.events).length === head - oldest + 1);
    expect(edge.events[0]!.type).toBe('ready');
    await s.rows([{ r: 'R1', h: 'after' }]);
    await until('after reset', () => conns.every((c) => changes(c.events).length === 1));
    for (const c of conns) expect(changes(c.events).map((e) => seqOf(e.id))).toEqual([head + 1]);
  });

  it('closes a client that stops reading with closing (slow_consumer); it then catches up with Last-Event-ID', async () => {
    const s = await serve({ bufferEvents: 20 });
    let res: IncomingMessage | undefined;
    await new Promise<void>((resolve, reject) => {
      const req = httpGet(`${s.url}${PATH}`, { headers: { 'x-api-key': s.key } }, (r) => {
        res = r;
        r.pause();
        resolve();
      });
      req.on('error', reject);
    });
    // ~5 MB of rows that nobody reads: the socket fills, then the buffer overflows
    for (let i = 0; i < 50; i++) {
      await s.rows(Array.from({ length: 20 }, (_, j) => ({ r: 'R1', h: `H${i}-${j}`, pad: 5000 })));
      await new Promise((r) => setTimeout(r, 2));
    }
    let text = '';
    res!.setEncoding('utf8');
    res!.on('data', (chunk: string) => (text += chunk));
    res!.resume();
    await new Promise<void>((resolve) => res!.on('end', resolve));
    const closing = /event: closing\nid: (\S+)\ndata: (.*)\n\n$/.exec(text);
    expect(closing, text.slice(-300)).not.toBeNull();
    expect(JSON.parse(closing![2]!)).toMatchObject({ reason: 'slow_consumer' });
    const got = [...text.matchAll(/event: upsert\nid: (\S+)\n/g)].map((m) => seqOf(m[1]!));
    expect(got.length).toBeGreaterThan(0);
    expect(got.length).toBeLessThan(1000);
    expect(got).toEqual(got.map((_, i) => i + 1));
    expect(seqOf(closing![1]!)).toBe(got.at(-1));
    // reconnect from the closing event's id: the rest, in order, nothing twice
    const again = subscribe(s, '', { headers: { 'Last-Event-ID': closing![1]! } });
    await until('the rest', () => changes(again.events).length === 1000 - got.length, 20_000);
    expect(changes(again.events).map((e) => seqOf(e.id))).toEqual(
      Array.from({ length: 1000 - got.length }, (_, i) => got.length + i + 1),
    );
  }, 60_000);

  it('streams to a signed-in session of an account with access, and closes when the session ends', async () => {
    const s = await serve({ heartbeatMs: 50 });
    const account = (await s.accounts.create('stream@example.com', 'a long enough password'))!;
    const { token } = await s.sessions.create(account.id);
    const cookie = { Cookie: `racing_session=${token}` };
    // no access yet: 403, as on every data endpoint
    const refused = await fetch(`${s.url}${PATH}`, { headers: cookie });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { code: string }).code).toBe('access_not_granted');
    await s.accounts.setAccess('stream@example.com', true);
    const events: Seen[] = [];
    const source = new EventSource(`${s.url}${PATH}`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, ...cookie } }),
    });
    sources.push(source);
    for (const type of ['ready', 'upsert', 'closing'])
      source.addEventListener(type, (e) =>
        events.push({ type, id: e.lastEventId, data: JSON.parse(e.data) as Record<string, unknown>, text: e.data }),
      );
    await until('ready', () => events.length > 0);
    await s.rows([{ r: 'R1', h: 'A' }]);
    await until('an upsert', () => events.some((e) => e.type === 'upsert'));
    await s.sessions.end(token);
    await until('closing', () => events.some((e) => e.type === 'closing'));
    expect(events.at(-1)!.data).toMatchObject({ reason: 'credentials_revoked' });
  });

  it('closes the stream when its key is revoked and when the service stops', async () => {
    const s = await serve({ heartbeatMs: 50 });
    const second = await s.keys.create('second');
    const revoked = subscribe(s);
    const other = new EventSource(`${s.url}${PATH}`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, 'X-Api-Key': second.key } }),
    });
    sources.push(other);
    const closings: string[] = [];
    other.addEventListener('closing', (e) => closings.push((JSON.parse(e.data) as { reason: string }).reason));
    await until('ready', () => revoked.events.length > 0);
    await s.keys.revoke((await s.keys.verify(s.key))!.id);
    await until('revocation', () => revoked.events.some((e) => e.type === 'closing'));
    expect(revoked.events.at(-1)!.data).toMatchObject({ reason: 'credentials_revoked' });
    expect(conforms(revoked.events.at(-1)!)).toBe(true);
    // the reconnect with the revoked key is refused: EventSource gives up on a 401
    await until('refused reconnect', () => revoked.errors.includes(401));
    expect(revoked.source.readyState).toBe(EventSource.CLOSED);

    await until('second ready', () => other.readyState === EventSource.OPEN);
    await s.app.close();
    servers.splice(servers.indexOf(s), 1);
    await until('shutdown', () => closings.includes('shutdown'));
  });
});
