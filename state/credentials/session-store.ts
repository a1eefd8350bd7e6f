/**
 * Signed-in sessions. The session token lives only in the browser's cookie; the store keeps its SHA-256
 * (the session id), so a leaked store or topic does not leak usable sessions. A session lasts a fixed
 * time from sign-in (no sliding expiry: that would need a write per request) and ends at sign-out.
 *
 * Store layout (under the StorePort handed in): `id/<sha256 hex of the token>` -> JSON StoredSession.
 * Ended and expired sessions are deleted; in Kafka mode the end is replicated as a record with
 * `endedAt` set, which every replica applies by deleting its copy.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { StorePort } from '../store-port.js';

export interface StoredSession {
  /** SHA-256 hex of the token */
  id: string;
  accountId: string;
  /** ISO 8601 UTC */
  createdAt: string;
  /** ISO 8601 UTC */
  expiresAt: string;
  /** ISO 8601 UTC of sign-out; null while the session is live */
  endedAt: string | null;
}

export interface SessionStoreOptions {
  clock?: () => number;
  /** How long a session lasts after sign-in (default 7 days). */
  ttlMs?: number;
  publish?: (stored: StoredSession) => Promise<void>;
  /** Live sessions kept in memory (least recently used evicted). */
  cacheSize?: number;
}

export const SESSION_TOKEN_PREFIX = 'rs_';
const TOKEN_RE = /^rs_[A-Za-z0-9_-]{43}$/;
const ID_RE = /^[0-9a-f]{64}$/;
export const DEFAULT_SESSION_TTL_MS = 7 * 24 * 3600_000;

export function sessionIdOf(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export class SessionStore {
  readonly #store: StorePort;
  readonly #clock: () => number;
  readonly #ttlMs: number;
  readonly #publish: ((stored: StoredSession) => Promise<void>) | undefined;
  readonly #cacheSize: number;
  readonly #cache = new Map<string, StoredSession>();
  /** Ids ended in this process, so a verify racing a sign-out cannot bring the session back. */
  readonly #ended = new Set<string>();

  constructor(store: StorePort, options: SessionStoreOptions = {}) {
    this.#store = store;
    this.#clock = options.clock ?? Date.now;
    this.#ttlMs = options.ttlMs ?? DEFAULT_SESSION_TTL_MS;
    this.#publish = options.publish;
    this.#cacheSize = options.cacheSize ?? 10_000;
  }

  /** Starts a session; the token is the only copy of the secret and goes into the cookie. */
  async create(accountId: string): Promise<{ token: string; session: StoredSession }> {
    const token = SESSION_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const now = this.#clock();
    const session: StoredSession = {
      id: sessionIdOf(token),
      accountId,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + this.#ttlMs).toISOString(),
      endedAt: null,
    };
    await this.#store.put(`id/${session.id}`, Buffer.from(JSON.stringify(session)));
    await this.#publish?.(session);
    return { token, session };
  }

  /** The live session of a token, or undefined for a malformed, unknown, ended or expired one. */
  async verify(token: string): Promise<StoredSession | undefined> {
    if (!TOKEN_RE.test(token)) return undefined;
    const id = sessionIdOf(token);
    if (this.#ended.has(id)) return undefined;
    let session = this.#cache.get(id);
    if (session) {
      this.#cache.delete(id);
    } else {
      const buf = await this.#store.get(`id/${id}`);
      if (!buf) return undefined;
      session = JSON.parse(buf.toString()) as StoredSession;
      if (this.#ended.has(id)) return undefined;
    }
    if (session.endedAt !== null || Date.parse(session.expiresAt) <= this.#clock()) {
      await this.#store.del(`id/${id}`);
      return undefined;
    }
    this.#cache.set(id, session);
    if (this.#cache.size > this.#cacheSize) {
      const oldest = this.#cache.keys().next();
      if (!oldest.done) this.#cache.delete(oldest.value);
    }
    return session;
  }

  /** Ends the session of a token at once (sign-out). Idempotent. */
  async end(token: string): Promise<void> {
    if (!TOKEN_RE.test(token)) return;
    const id = sessionIdOf(token);
    const buf = await this.#store.get(`id/${id}`);
    this.#ended.add(id);
    this.#cache.delete(id);
    if (!buf) return;
    const session = JSON.parse(buf.toString()) as StoredSession;
    await this.#store.del(`id/${id}`);
    await this.#publish?.({ ...session, endedAt: new Date(this.#clock()).toISOString() });
  }

  /** Applies a session replicated from another instance (Kafka mode): a live one is stored, an ended one deleted. */
  async applyReplicated(stored: StoredSession): Promise<void> {
    if (!ID_RE.test(stored.id)) return;
    if (stored.endedAt !== null) {
      this.#ended.add(stored.id);
      this.#cache.delete(stored.id);
      await this.#store.del(`id/${stored.id}`);
      return;
    }
    if (this.#ended.has(stored.id)) return;
    await this.#store.put(`id/${stored.id}`, Buffer.from(JSON.stringify(stored)));
  }

  /** Deletes expired sessions from the store (run at start-up; a live service deletes them as they are presented). */
  async sweep(): Promise<number> {
    const now = this.#clock();
    const dead: string[] = [];
    for await (const [key, value] of this.#store.entries({ gte: 'id/', lt: 'id0' })) {
      const s = JSON.parse(value.toString()) as StoredSession;
      if (s.endedAt !== null || Date.parse(s.expiresAt) <= now) dead.push(key);
    }
    if (dead.length > 0) await this.#store.batch(dead.map((key) => ({ type: 'del' as const, key })));
    return dead.length;
  }
}
