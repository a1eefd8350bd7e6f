/**
 * Serialised GET responses kept in memory, so a hot route answers with bytes already built, hashed and
 * compressed instead of reading, sorting, serialising and hashing on every request.
 *
 * Correctness rests on the read model's revision (ReadModel.revision): an entry remembers the revision
 * it was built from (read before building, so a change racing the build leaves the entry stale, never
 * wrong) and is rebuilt once the revision moves. Entries that do not depend on data (the OpenAPI
 * document, the data dictionary) never go stale. A read model without a revision gets no caching, only
 * the same negotiation and ETags. The bytes come from the route's own response serializer, so the cache
 * knows nothing of the fields it holds.
 *
 * Concurrent misses of one key share one build; compressed variants are made on first demand, once.
 * Memory is bounded by total bytes, least recently used first out.
 *
 * A route whose cache key follows from its URL alone (the path and query the schema validated; no clock,
 * no header) says so with `byUrl`: the cache then remembers which key a GET of that exact URL was served
 * from, and `sendHot` answers the next GET of the same URL from the current entry before validation and
 * the handler run (the API key hook calls it once the key is checked and the request counted). The same
 * URL validates the same way and maps to the same key, so the response is the one the handler would send.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { COMPRESSION_THRESHOLD, compress, type Encoding, negotiateEncoding } from './compression.js';
import { etagOf, ifNoneMatchMatches } from './etag.js';

interface Variant {
  body: Buffer;
  etag: string;
}

interface Entry {
  /** read-model revision the entry was built from; undefined: does not depend on data */
  revision: number | undefined;
  identity: Variant;
  encoded: Partial<Record<Exclude<Encoding, 'identity'>, Promise<Variant>>>;
  /** the compressed variants already made, for the synchronous path */
  ready: Partial<Record<Exclude<Encoding, 'identity'>, Variant>>;
  bytes: number;
  /** recency: the cache's use counter when the entry was last served (least recently used goes first) */
  used: number;
}

/** The key a URL was served from, and whether that entry is static. */
interface UrlKey {
  key: string;
  isStatic: boolean;
}

/** URLs remembered for `sendHot` (oldest forgotten first); a forgotten URL takes the handler's path again. */
const MAX_URLS = 10_000;

export interface ResponseCacheOptions {
  /** The read model's revision, or undefined when it cannot tell (then data entries are never reused). */
  revision: () => number | undefined;
  /** Upper bound of the identity bytes held (compressed variants add at most about as much again). */
  maxBytes?: number;
}

const JSON_TYPE = 'application/json; charset=utf-8';

function encodingFor(request: FastifyRequest, entry: Entry): Encoding {
  return entry.identity.body.length >= COMPRESSION_THRESHOLD
    ? negotiateEncoding(request.headers['accept-encoding'])
    : 'identity';
}

export class ResponseCache {
  readonly #revision: () => number | undefined;
  readonly #maxBytes: number;
  readonly #entries = new Map<string, Entry>();
  readonly #building = new Map<string, Promise<Entry>>();
  /** GET URL -> the key it was served from, for routes that declared `byUrl` */
  readonly #urls = new Map<string, UrlKey>();
  #bytes = 0;
  #uses = 0;

  constructor(options: ResponseCacheOptions) {
    this.#revision = options.revision;
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  }

  /**
   * Sends the 200 JSON response for `key`, building it with `build` (whose value the route's response
   * schema serialises) when there is no current entry. Errors thrown by `build` reach the caller (and
   * every request waiting on the same build) and nothing is cached.
   *
   * Resolves to nothing rather than to the reply: a handler that returned the reply (a thenable) would
   * make Fastify wait for the response to finish through stream listeners, a cost on every request.
   *
   * `byUrl`: the key is a function of the request's URL alone, so a later GET of the same URL may be
   * answered by `sendHot` (see above). Never for a key that depends on the clock or on a header.
   */
  send(
    request: FastifyRequest,
    reply: FastifyReply,
    key: string,
    build: () => Promise<unknown>,
    options: { static?: boolean; byUrl?: boolean } = {},
  ): void | Promise<void> {
    const isStatic = options.static === true;
    if (options.byUrl === true && request.method === 'GET') this.#rememberUrl(request.url, key, isStatic);
    // The hot path, without a promise: a current entry whose variant for this client is made.
    if (this.#sendCurrent(request, reply, key, isStatic)) return;
    return this.#sendSlowly(request, reply, key, build, isStatic);
  }

  /**
   * Answers a GET from the entry its URL was served from before (see `byUrl`) when that entry is current
   * and its variant for this client is made; true when it sent the response, false to go on as usual.
   */
  sendHot(request: FastifyRequest, reply: FastifyReply): boolean {
    if (request.method !== 'GET') return false;
    const known = this.#urls.get(request.url);
    return known !== undefined && this.#sendCurrent(request, reply, known.key, known.isStatic);
  }

  #rememberUrl(url: string, key: string, isStatic: boolean): void {
    const known = this.#urls.get(url);
    if (known !== undefined && known.key === key && known.isStatic === isStatic) return;
    this.#urls.set(url, { key, isStatic });
    if (this.#urls.size > MAX_URLS) {
      const oldest = this.#urls.keys().next();
      if (!oldest.done) this.#urls.delete(oldest.value);
    }
  }

  /** Sends the current entry's variant for this client if it is made; false when there is none. */
  #sendCurrent(request: FastifyRequest, reply: FastifyReply, key: string, isStatic: boolean): boolean {
    const current = this.#current(key, isStatic);
    if (!current) return false;
    const encoding = encodingFor(request, current);
    const variant = encoding === 'identity' ? current.identity : current.ready[encoding];
    if (!variant) return false;
    this.#reply(request, reply, variant, encoding);
    return true;
  }

  async #sendSlowly(
    request: FastifyRequest,
    reply: FastifyReply,
    key: string,
    build: () => Promise<unknown>,
    isStatic: boolean,
  ): Promise<void> {
    const entry = await this.#entry(reply, key, build, isStatic);
    const encoding = encodingFor(request, entry);
    const variant = encoding === 'identity' ? entry.identity : await this.#encoded(entry, encoding);
    return this.#reply(request, reply, variant, encoding);
  }

  #reply(request: FastifyRequest, reply: FastifyReply, variant: Variant, encoding: Encoding): void {
    reply.header('etag', variant.etag);
    reply.header('vary', 'Accept-Encoding');
    if (ifNoneMatchMatches(request.headers['if-none-match'], variant.etag)) {
      reply.code(304).send();
      return;
    }
    if (encoding !== 'identity') reply.header('content-encoding', encoding);
    reply.type(JSON_TYPE).send(variant.body);
  }

  /** The entry for `key` if it is current (refreshing its recency), else undefined. */
  #current(key: string, isStatic: boolean): Entry | undefined {
    const current = this.#entries.get(key);
    if (!current) return undefined;
    if (!isStatic) {
      const revision = this.#revision();
      if (revision === undefined || current.revision !== revision) return undefined;
    }
    // Recency as a counter, not by moving the key to the end of the Map (a delete and an insert on every
    // hit, and the Map's rehashing): eviction, which is rare, finds the least recently used.
    current.used = ++this.#uses;
    return current;
  }

  /** Entries held and their identity bytes (for tests and diagnostics). */
  stats(): { entries: number; bytes: number } {
    return { entries: this.#entries.size, bytes: this.#bytes };
  }

  async #entry(reply: FastifyReply, key: string, build: () => Promise<unknown>, isStatic: boolean): Promise<Entry> {
    const revision = isStatic ? undefined : this.#revision();
    const current = this.#current(key, isStatic);
    if (current) return current;
    const buildKey = `${revision ?? 'x'}\u0000${key}`;
    let pending = this.#building.get(buildKey);
    if (!pending) {
      pending = (async () => {
        const body = Buffer.from(reply.serialize(await build()) as string);
        const entry: Entry = {
          revision,
          identity: { body, etag: etagOf(body) },
          encoded: {},
          ready: {},
          bytes: body.length,
          used: 0,
        };
        if (isStatic || revision !== undefined) this.#store(key, entry);
        return entry;
      })();
      this.#building.set(buildKey, pending);
      pending.then(
        () => this.#building.delete(buildKey),
        () => this.#building.delete(buildKey),
      );
    }
    return pending;
  }

  #encoded(entry: Entry, encoding: Exclude<Encoding, 'identity'>): Promise<Variant> {
    let variant = entry.encoded[encoding];
    if (!variant) {
      variant = compress(entry.identity.body, encoding).then((body) => {
        entry.bytes += body.length;
        const made = { body, etag: etagOf(body) };
        entry.ready[encoding] = made;
        return made;
      });
      entry.encoded[encoding] = variant;
    }
    return variant;
  }

  #store(key: string, entry: Entry): void {
    const old = this.#entries.get(key);
    if (old) {
      this.#bytes -= old.identity.body.length;
      this.#entries.delete(key);
    }
    if (entry.identity.body.length > this.#maxBytes) return;
    entry.used = ++this.#uses;
    this.#entries.set(key, entry);
    this.#bytes += entry.identity.body.length;
    // Least recently used first out (the entry just stored is the most recent, so it stays): one scan per
    // entry evicted, on the rare store that goes over the bound.
    while (this.#bytes > this.#maxBytes) {
      let oldestKey: string | undefined;
      let oldest: Entry | undefined;
      for (const [k, e] of this.#entries) {
        if (oldest === undefined || e.used < oldest.used) {
          oldestKey = k;
          oldest = e;
        }
      }
      if (oldestKey === undefined || oldest === undefined || oldest === entry) break;
      this.#entries.delete(oldestKey);
      this.#bytes -= oldest.identity.body.length;
    }
  }
}
