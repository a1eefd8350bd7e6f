/**
 * GET /api/v1/stream/analytics: the analytics rows as they change, as server-sent events
 * (text/event-stream), from the read model's change log (state/read-model/change-log.ts).
 *
 * Events, each with an `id:` (`<epoch>-<seq>`, see the change log):
 *   ready      first event of a connection; its id is where the stream starts (the position resumed
 *              from, or the head for a fresh connection); data {"resumed": bool, "head": id}
 *   upsert     a row as GET /races/{raceId}/analytics serves it
 *   tombstone  {"raceId", "horseId"}: the runner's row was deleted (a non-runner)
 *   reset      instead of ready, when the Last-Event-ID cannot be resumed from (older than the change
 *              log keeps, from another log: a rebuild or another replica, or ahead of it); data
 *              {"reason": "expired" | "unknown_epoch" | "ahead", "detail", "lastEventId"}; its id is the
 *              head: reload what you hold (GET the races), then apply the events that follow
 *   position   {} sent with a heartbeat when changes the filters left out moved the position on, so a
 *              filtered client resumes from there rather than rescanning them
 *   closing    the server is ending the stream; data {"reason": "slow_consumer" | "max_duration" |
 *              "shutdown" | "credentials_revoked" | "reset", "detail"}; reconnect with Last-Event-ID
 * Heartbeats are comment lines (`: heartbeat`) every heartbeat interval.
 *
 * One connection reads the change log from its position while it is behind (the store is the buffer, at
 * the client's pace: it waits for the socket to drain), then follows the live changes, buffering at most
 * `bufferEvents` of them; a client that lets more pile up while its socket is full is sent `closing`
 * (slow_consumer) and disconnected; it can reconnect and catch up from the log.
 */
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServerResponse } from 'node:http';
import { isId } from '../domain/ids.js';
import { parseDate } from '../domain/time.js';
import { RacingError } from '../domain/errors.js';
import type { KeyStore } from '../state/credentials/key-store.js';
import {
  type Change,
  type ChangeFeed,
  type ChangePosition,
  CHANGE_ID_PATTERN,
  type ChangeRetention,
  changeId,
  DEFAULT_CHANGE_RETENTION,
  parseChangeId,
} from '../state/read-model/change-log.js';
import { API_KEY_HEADER } from './auth.js';
import { invalidParam } from './errors.js';
import { RACE_ID_PATTERN } from './race-routes.js';
import { AnalyticsRowSchema, DateString } from './schemas.js';
import { type Credentials, signedIn } from './session.js';

export interface StreamConfig {
  /** a comment line this often (and a credentials check) */
  heartbeatMs: number;
  /** a connection is closed (closing: max_duration) after this long; the client reconnects and resumes */
  maxConnectionMs: number;
  /** live events waiting for one connection's socket, at most */
  bufferEvents: number;
  /** the `retry:` the stream advises clients to wait before reconnecting */
  retryMs: number;
  /** how much the change log keeps (what a Last-Event-ID can resume from) */
  retention: ChangeRetention;
}

export const DEFAULT_STREAM_CONFIG: StreamConfig = Object.freeze({
  heartbeatMs: 15_000,
  maxConnectionMs: 3_600_000,
  bufferEvents: 10_000,
  retryMs: 2_000,
  retention: DEFAULT_CHANGE_RETENTION,
});

type Env = Readonly<Record<string, string | undefined>>;

function intVar(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max)
    throw new RacingError('config_invalid', `${name} must be a whole number in ${min}..${max} (got '${raw}')`, {
      details: { variable: name },
    });
  return n;
}

/**
 * RACING_STREAM_HEARTBEAT_SECONDS (15), RACING_STREAM_MAX_CONNECTION_SECONDS (3600),
 * RACING_STREAM_BUFFER_EVENTS (10000), RACING_STREAM_RETRY_MS (2000), RACING_CHANGE_LOG_MAX_CHANGES
 * (250000) and RACING_CHANGE_LOG_MAX_DAYS (7).
 */
export function streamConfigFromEnv(env: Env): StreamConfig {
  const d = DEFAULT_STREAM_CONFIG;
  return Object.freeze({
    heartbeatMs: intVar(env, 'RACING_STREAM_HEARTBEAT_SECONDS', d.heartbeatMs / 1000, 1, 3600) * 1000,
    maxConnectionMs:
      intVar(env, 'RACING_STREAM_MAX_CONNECTION_SECONDS', d.maxConnectionMs / 1000, 1, 7 * 86_400) * 1000,
    bufferEvents: intVar(env, 'RACING_STREAM_BUFFER_EVENTS', d.bufferEvents, 1, 10_000_000),
    retryMs: intVar(env, 'RACING_STREAM_RETRY_MS', d.retryMs, 0, 3_600_000),
    retention: Object.freeze({
      maxChanges: intVar(env, 'RACING_CHANGE_LOG_MAX_CHANGES', d.retention.maxChanges, 1, 1_000_000_000),
      maxAgeDays: intVar(env, 'RACING_CHANGE_LOG_MAX_DAYS', d.retention.maxAgeDays, 1, 36_500),
    }),
  });
}

export interface StreamDeps {
  feed: ChangeFeed;
  keys: KeyStore;
  credentials?: Credentials;
  config?: Partial<StreamConfig>;
  /** Instrumentation (benchmarks): called after changes were written to a connection's socket. */
  onWritten?: (changes: readonly Change[]) => void;
}

/** Changes read from the log per store read while a connection catches up. */
const PAGE = 500;
/** After `closing`, a client that does not read is cut off this much later. */
const END_GRACE_MS = 10_000;

const EVENT_FORMAT =
  'Server-sent events (text/event-stream), in the order the service applied the analytics topic (topic order ' +
  'per partition). Every event has an id `<epoch>-<seq>`; reconnect with the Last-Event-ID header (or the ' +
  'lastEventId parameter; the header wins) to resume after it, without gaps or duplicates, across restarts, while ' +
  'the change log keeps it (the latest 250,000 changes and at most 7 days by default). Events: `ready` ' +
  '({resumed, head}: the first, its id the starting position); `upsert` (data: the row, as GET ' +
  '/api/v1/races/{raceId}/analytics serves it: an AnalyticsRow); `tombstone` ({raceId, horseId}: the row was ' +
  'deleted, a non-runner); `reset` (instead of ready when the Last-Event-ID cannot be resumed from: {reason: ' +
  'expired | unknown_epoch | ahead, detail, lastEventId}; reload the races over GET, then apply what follows); ' +
  '`position` ({}: the position moved past changes the filters left out); `closing` ({reason: slow_consumer | ' +
  'max_duration | shutdown | credentials_revoked | reset, detail}: reconnect with Last-Event-ID). Comment ' +
  'lines `: heartbeat` keep the connection alive. See docs/api.md.';

const StreamQuery = Type.Object({
  raceId: Type.Optional(
    Type.String({ pattern: RACE_ID_PATTERN, description: "only this race's rows (a race id: rac_...)" }),
  ),
  date: Type.Optional(
    Type.String({
      format: 'date',
      pattern: DateString.pattern,
      description: 'only rows of races on this local meeting date (YYYY-MM-DD)',
    }),
  ),
  lastEventId: Type.Optional(
    Type.String({
      pattern: CHANGE_ID_PATTERN,
      description: 'resume after this event id, for clients that cannot send the Last-Event-ID header',
    }),
  ),
});

const EventId = Type.String({
  pattern: CHANGE_ID_PATTERN,
  description: 'the position after this event: <epoch>-<seq>',
});
const Reason = (reasons: string[]) => Type.Union(reasons.map((r) => Type.Literal(r)));

/** The data of each event (JSON), by event name. */
export const STREAM_EVENT_DATA: Readonly<Record<string, TSchema>> = {
  ready: Type.Object(
    { resumed: Type.Boolean({ description: 'true when resuming after a Last-Event-ID' }), head: EventId },
    { additionalProperties: false },
  ),
  upsert: AnalyticsRowSchema,
  tombstone: Type.Object(
    { raceId: Type.String({ pattern: RACE_ID_PATTERN }), horseId: Type.String() },
    { additionalProperties: false },
  ),
  reset: Type.Object(
    {
      reason: Reason(['expired', 'unknown_epoch', 'ahead']),
      detail: Type.String(),
      lastEventId: Type.String({ description: 'the id that could not be resumed from' }),
    },
    { additionalProperties: false },
  ),
  position: Type.Object({}, { additionalProperties: false }),
  closing: Type.Object(
    {
      reason: Reason(['slow_consumer', 'max_duration', 'shutdown', 'credentials_revoked', 'reset']),
      detail: Type.String(),
    },
    { additionalProperties: false },
  ),
};

/** One server-sent event as the OpenAPI document describes it (the fields of the event, data as JSON text). */
export const StreamEventSchema = Type.Union(
  Object.entries(STREAM_EVENT_DATA).map(([name, data]) =>
    Type.Object({
      event: Type.Literal(name),
      id: EventId,
      data: Type.String({ contentMediaType: 'application/json', contentSchema: data }),
      retry: Type.Optional(Type.Integer({ minimum: 0, description: 'reconnection delay advised, ms (first event)' })),
    }),
  ),
  {
    description:
      'each event of the text/event-stream: ready, upsert, tombstone, reset, position or closing, with its id and ' +
      'its data as JSON (contentSchema)',
  },
);

interface Filter {
  raceId?: string;
  date?: string;
}

const matches = (f: Filter, c: Change) =>
  (f.raceId === undefined || c.raceId === f.raceId) && (f.date === undefined || c.meetingDate === f.date);

function message(event: string, id: string, data: unknown): string {
  return `event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The text of a change's event, rendered once per change object (every live subscriber shares it). */
const rendered = new WeakMap<Change, Promise<string>>();

function render(feed: ChangeFeed, epoch: string, c: Change): Promise<string> {
  let text = rendered.get(c);
  if (!text) {
    const id = changeId(epoch, c.seq);
    text =
      c.value === null
        ? Promise.resolve(message('tombstone', id, { raceId: c.raceId, horseId: c.horseId }))
        : feed.decodeRow(c.value).then((row) => `event: upsert\nid: ${id}\ndata: ${JSON.stringify(row)}\n\n`);
    rendered.set(c, text);
  }
  return text;
}

function singleHeader(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  if (Array.isArray(v)) return v.join(', ');
  return v === undefined ? undefined : v;
}

/** Where a connection starts: after `seq`, or a reset to the head. */
type Start = { seq: number; resumed: boolean } | { seq: number; reset: { reason: string; detail: string } };

function startOf(pos: ChangePosition, last: { epoch: string; seq: number } | undefined): Start {
  if (last === undefined) return { seq: pos.head, resumed: false };
  if (last.epoch !== pos.epoch)
    return {
      seq: pos.head,
      reset: {
        reason: 'unknown_epoch',
        detail: 'the id is not from this change log (it was rebuilt, or the id is from another replica)',
      },
    };
  if (last.seq > pos.head)
    return { seq: pos.head, reset: { reason: 'ahead', detail: 'the id is ahead of this change log' } };
  if (last.seq + 1 < pos.oldest)
    return {
      seq: pos.head,
      reset: {
        reason: 'expired',
        detail: `changes after this id are no longer kept (the oldest kept is ${changeId(pos.epoch, pos.oldest)})`,
      },
    };
  return { seq: last.seq, resumed: true };
}

/** One open stream. */
class Connection {
  /** Every change up to this seq has been written to the socket or left out by the filters. */
  private sent: number;
  /** The seq of the last id written. */
  private lastId: number;
  /** Live changes not yet handled (all of them, filtered when written). */
  private queue: Change[] = [];
  /** The last seq notified to this connection. */
  private lastSeen: number;
  /** The log holds changes not in the queue: read them from the store before following the queue. */
  private storeAhead: boolean;
  private pumping = false;
  private blocked = false;
  private closed = false;
  private drained: (() => void) | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly unsubscribe: () => void;

  constructor(
    private readonly raw: ServerResponse,
    private readonly feed: ChangeFeed,
    private readonly epoch: string,
    private readonly filter: Filter,
    private readonly config: StreamConfig,
    private readonly onEnd: (c: Connection) => void,
    private readonly stillAllowed: () => Promise<boolean>,
    private readonly onWritten: ((changes: readonly Change[]) => void) | undefined,
    start: number,
    head: number,
  ) {
    this.sent = start;
    this.lastId = start;
    this.lastSeen = head;
    this.storeAhead = start < head;
    this.unsubscribe = feed.subscribe((changes) => this.onChanges(changes));
    raw.on('close', () => this.finish());
    raw.on('drain', () => {
      this.blocked = false;
      const d = this.drained;
      this.drained = undefined;
      d?.();
    });
    const heartbeat = setInterval(() => void this.heartbeat(), config.heartbeatMs);
    const deadline = setTimeout(
      () => this.close('max_duration', 'the connection reached its longest duration; reconnect with Last-Event-ID'),
      config.maxConnectionMs,
    );
    heartbeat.unref();
    deadline.unref();
    this.timers.push(heartbeat, deadline);
  }

  begin(first: string): void {
    this.write(first);
    this.pump();
  }

  private onChanges(changes: readonly Change[]): void {
    if (this.closed || changes.length === 0) return;
    if (changes[0]!.seq <= this.lastSeen) {
      // The log started again from 1 (the read model was cleared): this position means nothing any more.
      this.close('reset', 'the change log was rebuilt; reconnect with Last-Event-ID');
      return;
    }
    this.lastSeen = changes[changes.length - 1]!.seq;
    for (const c of changes) this.queue.push(c);
    if (this.queue.length > this.config.bufferEvents) {
      if (this.storeAhead) {
        // Catching up from the store, which holds these too: drop them, the store is the buffer.
        this.queue = [];
      } else if (this.blocked) {
        this.close(
          'slow_consumer',
          `more than ${this.config.bufferEvents} events waited for this client; reconnect with Last-Event-ID to catch up`,
        );
        return;
      }
    }
    this.pump();
  }

  /** Writes what is due, in order, waiting for the socket to drain; one pump at a time. */
  private pump(): void {
    if (this.pumping || this.closed) return;
    this.pumping = true;
    this.run()
      .catch((err: unknown) => {
        if (!this.closed) this.raw.destroy(err instanceof Error ? err : new Error(String(err)));
      })
      .finally(() => {
        this.pumping = false;
      });
  }

  private async run(): Promise<void> {
    for (;;) {
      if (this.closed) return;
      if (this.storeAhead) {
        const page = await this.feed.read(this.sent, PAGE);
        if (this.closed) return;
        if (page.length > 0 && page[0]!.seq !== this.sent + 1) {
          // Pruned while this connection was reading: say so rather than skip.
          this.close('reset', 'changes after this position were pruned while it was read; reconnect');
          return;
        }
        await this.send(page);
        if (page.length < PAGE) {
          this.storeAhead = false;
          this.trim();
        }
        continue;
      }
      this.trim();
      if (this.queue.length === 0) return;
      if (this.queue[0]!.seq !== this.sent + 1) {
        this.storeAhead = true;
        continue;
      }
      await this.send(this.queue.splice(0, PAGE));
    }
  }

  private trim(): void {
    let drop = 0;
    while (drop < this.queue.length && this.queue[drop]!.seq <= this.sent) drop++;
    if (drop > 0) this.queue = this.queue.slice(drop);
  }

  /** Writes the matching changes of a contiguous run; `sent` moves past each once it is written. */
  private async send(changes: readonly Change[]): Promise<void> {
    const written: Change[] = [];
    for (const c of changes) {
      if (this.closed) return;
      if (matches(this.filter, c)) {
        const text = await render(this.feed, this.epoch, c);
        if (this.closed) return;
        this.write(text);
        this.lastId = c.seq;
        written.push(c);
      }
      this.sent = c.seq;
      if (this.blocked) {
        if (written.length > 0) this.onWritten?.(written.splice(0));
        await new Promise<void>((resolve) => (this.drained = resolve));
      }
    }
    if (written.length > 0) this.onWritten?.(written);
  }

  private write(text: string): void {
    if (this.closed) return;
    if (!this.raw.write(text)) this.blocked = true;
  }

  private async heartbeat(): Promise<void> {
    if (this.closed) return;
    this.write(': heartbeat\n\n');
    // Everything up to `sent` is written or left out by the filters, so the position may move there.
    if (this.sent > this.lastId) {
      this.write(message('position', changeId(this.epoch, this.sent), {}));
      this.lastId = this.sent;
    }
    let allowed = true;
    try {
      allowed = await this.stillAllowed();
    } catch {
      // A store hiccup is not a revocation; the next heartbeat checks again.
    }
    if (!allowed) this.close('credentials_revoked', 'the API key was revoked or the session ended');
  }

  /** Sends `closing` and ends the response; a client that does not read it is cut off later. */
  close(reason: string, detail: string): void {
    if (this.closed) return;
    if (!this.raw.destroyed && !this.raw.writableEnded)
      this.raw.write(message('closing', changeId(this.epoch, this.sent), { reason, detail }));
    this.finish();
    this.raw.end();
    setTimeout(() => this.raw.destroy(), END_GRACE_MS).unref();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    for (const t of this.timers) clearTimeout(t);
    this.queue = [];
    const d = this.drained;
    this.drained = undefined;
    d?.();
    this.onEnd(this);
  }
}

export function streamRoutes(deps: StreamDeps) {
  const config: StreamConfig = { ...DEFAULT_STREAM_CONFIG, ...deps.config };
  const open = new Set<Connection>();
  return async (app: FastifyInstance): Promise<void> => {
    app.addHook('preClose', async () => {
      for (const c of [...open]) c.close('shutdown', 'the service is stopping; reconnect with Last-Event-ID');
    });

    app.get<{ Querystring: { raceId?: string; date?: string; lastEventId?: string } }>(
      '/stream/analytics',
      {
        config: { access: 'key', produces: 'text/event-stream' },
        schema: {
          summary: 'Analytics row changes as server-sent events',
          description: EVENT_FORMAT,
          tags: ['analytics'],
          querystring: StreamQuery,
          response: {
            200: StreamEventSchema,
          },
        },
      },
      async (request, reply) => {
        const { raceId, date, lastEventId } = request.query;
        if (raceId !== undefined && !isId('race', raceId))
          throw invalidParam('query', 'raceId', 'must be a race id: rac_ followed by an opaque token');
        if (date !== undefined && parseDate(date) === undefined)
          throw invalidParam('query', 'date', 'must be a real calendar date in YYYY-MM-DD form');
        const header = singleHeader(request, 'last-event-id');
        let last: { epoch: string; seq: number } | undefined;
        if (header !== undefined && header !== '') {
          last = parseChangeId(header);
          if (!last)
            throw invalidParam('header', 'Last-Event-ID', 'must be an event id this stream sent (<epoch>-<seq>)');
        } else if (lastEventId !== undefined) {
          last = parseChangeId(lastEventId);
          if (!last) throw invalidParam('query', 'lastEventId', 'must be an event id this stream sent (<epoch>-<seq>)');
        }
        const filter: Filter = { ...(raceId !== undefined ? { raceId } : {}), ...(date !== undefined ? { date } : {}) };
        const pos = await deps.feed.retain();
        const start = startOf(pos, last);
        const stillAllowed = allowedCheck(request, deps);

        reply.hijack();
        const raw = reply.raw;
        request.raw.socket?.setNoDelay(true);
        raw.writeHead(200, {
          ...headersOf(reply),
          'content-type': 'text/event-stream; charset=utf-8',
          'cache-control': 'no-store',
          'x-accel-buffering': 'no',
          // The socket ends with the stream: a long-lived response leaves nothing worth keeping alive, and an
          // idle keep-alive socket would hold up the server's close by its keep-alive timeout.
          connection: 'close',
        });
        if (request.method === 'HEAD') {
          // The headers a GET would get, and no stream.
          raw.end();
          return;
        }
        const connection = new Connection(
          raw,
          deps.feed,
          pos.epoch,
          filter,
          config,
          (c) => open.delete(c),
          stillAllowed,
          deps.onWritten,
          start.seq,
          pos.head,
        );
        open.add(connection);
        const id = changeId(pos.epoch, start.seq);
        const retry = `retry: ${config.retryMs}\n`;
        const first =
          'reset' in start
            ? message('reset', id, { ...start.reset, lastEventId: changeId(last!.epoch, last!.seq) })
            : message('ready', id, { resumed: start.resumed, head: changeId(pos.epoch, pos.head) });
        connection.begin(retry + first);
        // Nothing to return: the reply is hijacked (returning the reply, a thenable, would hold this
        // handler's promise open for the life of the stream).
      },
    );
  };
}

/** The headers hooks set on the reply (rate limits, cache-control), for a hijacked response. */
function headersOf(reply: FastifyReply): Record<string, string | number | string[]> {
  const out: Record<string, string | number | string[]> = {};
  for (const [k, v] of Object.entries(reply.getHeaders())) if (v !== undefined) out[k] = v;
  return out;
}

/** Whether the request's key or session still grants access (checked with each heartbeat). */
function allowedCheck(request: FastifyRequest, deps: StreamDeps): () => Promise<boolean> {
  const key = singleHeader(request, API_KEY_HEADER);
  const creds = deps.credentials;
  if (key !== undefined && key !== '') {
    return async () => {
      const record = await deps.keys.verify(key);
      if (!record) return false;
      return record.accountId === null || !creds || creds.accounts.hasAccess(record.accountId);
    };
  }
  if (!creds) return async () => false;
  return async () => {
    const who = await signedIn(request, creds);
    return who !== undefined && who.account.accessGrantedAt !== null;
  };
}
