/**
 * API keys. A key is shown once, at creation; the store keeps only its SHA-256, indexed by that hash, so
 * a leaked store does not leak usable keys. Verification is cached in memory; revocation through this
 * KeyStore takes effect at once in this process (the cache is per process: every instance that serves
 * requests must revoke through its own KeyStore, which is what the admin routes do).
 *
 * Store layout (under the StorePort handed in): `id/<keyId>` -> JSON record, `hash/<sha256 hex>` -> keyId,
 * `used/<keyId>` -> ISO instant the key was last used. Keys created by the CLI have no account; keys
 * created from the account page carry their account's id. Both are verified the same way.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { StorePort } from '../store-port.js';

/** A key as listed: never the key itself nor its hash. */
export interface KeyRecord {
  id: string;
  name: string;
  /** ISO 8601 UTC */
  createdAt: string;
  /** ISO 8601 UTC, null while the key is active */
  revokedAt: string | null;
  /** The account that created the key on the account page; null for a key issued by an operator (CLI) */
  accountId: string | null;
}

/** A key as its owner sees it on the account page. */
export interface OwnedKey extends KeyRecord {
  /** ISO 8601 UTC of the last request made with it (to within the usage flush interval); null if never */
  lastUsedAt: string | null;
}

/** When a key was last used; replicated between API replicas in Kafka mode. */
export interface KeyUsage {
  id: string;
  lastUsedAt: string;
}

/** The one response that carries the secret key. */
export interface CreatedKey {
  id: string;
  key: string;
  name: string;
  createdAt: string;
}

/** A key as stored and replicated: the record plus the SHA-256 hash of the key (never the key). */
export interface StoredKey extends Omit<KeyRecord, 'accountId'> {
  hash: string;
  /** absent in records written before keys could belong to accounts */
  accountId?: string | null;
}

export interface KeyStoreOptions {
  /** Epoch ms; injectable for deterministic tests. */
  clock?: () => number;
  /** Verified hashes kept in memory (least recently used evicted). */
  cacheSize?: number;
  /** Called with each created or revoked record after it is stored (Kafka mode: replicate it to the keys topic). */
  publish?: (stored: StoredKey) => Promise<void>;
  /** Called with the usage records of each flush (Kafka mode: replicate them to the key-usage topic). */
  publishUsage?: (usage: KeyUsage) => Promise<void>;
}

export const KEY_PREFIX = 'rk_';
export const KEY_ID_PREFIX = 'key_';
const KEY_RE = /^rk_[A-Za-z0-9_-]{43}$/;
const KEY_ID_RE = /^key_[0-9a-f]{20}$/;

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** True when `id` has the shape of a key id (key_ + 20 hex digits). */
export function isKeyId(id: string): boolean {
  return KEY_ID_RE.test(id);
}

export class KeyStore {
  readonly #store: StorePort;
  readonly #clock: () => number;
  readonly #cacheSize: number;
  /**
   * Presented key -> record, for keys verified active. Keyed by the key itself (in memory only, where
   * every request's header is anyway) so that a cached verification costs no hash on the hot path.
   */
  readonly #cache = new Map<string, KeyRecord>();
  /**
   * Ids revoked by this process. A verify that started before a revoke may finish after it with a record
   * read before the revoke; checking this set before caching and returning closes that window.
   */
  readonly #revoked = new Set<string>();

  readonly #publish: ((stored: StoredKey) => Promise<void>) | undefined;
  readonly #publishUsage: ((usage: KeyUsage) => Promise<void>) | undefined;
  /**
   * Key id -> epoch ms of its latest use not yet written. Requests only touch this map; `flushUsage`
   * writes it in one batch, so "last used" costs no store write per request.
   */
  readonly #pendingUsage = new Map<string, number>();

  constructor(store: StorePort, options: KeyStoreOptions = {}) {
    this.#store = store;
    this.#publish = options.publish;
    this.#publishUsage = options.publishUsage;
    this.#clock = options.clock ?? Date.now;
    this.#cacheSize = options.cacheSize ?? 10_000;
  }

  /** Creates a key (of an account, from the account page); the returned `key` is the only copy of the secret. */
  async create(name: string, options: { accountId?: string } = {}): Promise<CreatedKey> {
    const key = KEY_PREFIX + randomBytes(32).toString('base64url');
    const id = KEY_ID_PREFIX + randomBytes(10).toString('hex');
    const hash = hashKey(key);
    const createdAt = new Date(this.#clock()).toISOString();
    const stored: StoredKey = { id, name, createdAt, revokedAt: null, hash, accountId: options.accountId ?? null };
    await this.#store.batch([
      { type: 'put', key: `id/${id}`, value: Buffer.from(JSON.stringify(stored)) },
      { type: 'put', key: `hash/${hash}`, value: Buffer.from(id) },
    ]);
    await this.#publish?.(stored);
    return { id, key, name, createdAt };
  }

  /**
   * The record of a presented key verified earlier and still active, from memory only (no promise: the
   * request hot path); undefined when `verify` has to decide.
   */
  cached(key: string): KeyRecord | undefined {
    const cached = this.#cache.get(key);
    if (!cached) return undefined;
    this.#cache.delete(key);
    if (this.#revoked.has(cached.id)) return undefined;
    // Re-inserted: refreshes its recency for the LRU.
    this.#cache.set(key, cached);
    return cached;
  }

  /** The active key record for a presented key, or undefined for an unknown, malformed or revoked key. */
  async verify(key: string): Promise<KeyRecord | undefined> {
    const cached = this.cached(key);
    if (cached) return cached;
    if (!KEY_RE.test(key)) return undefined;
    const hash = hashKey(key);
    const idBuf = await this.#store.get(`hash/${hash}`);
    if (!idBuf) return undefined;
    const stored = await this.#read(idBuf.toString());
    if (!stored || stored.revokedAt !== null || stored.hash !== hash || this.#revoked.has(stored.id)) return undefined;
    const record = publicRecord(stored);
    this.#cache.set(key, record);
    if (this.#cache.size > this.#cacheSize) {
      const oldest = this.#cache.keys().next();
      if (!oldest.done) this.#cache.delete(oldest.value);
    }
    return record;
  }

  /** Revokes a key at once. Returns the record, or undefined when no key has that id. Idempotent. */
  async revoke(id: string): Promise<KeyRecord | undefined> {
    if (!isKeyId(id)) return undefined;
    const stored = await this.#read(id);
    if (!stored) return undefined;
    // In memory first, so no request is admitted between here and the store write (cached entries of
    // the key are refused by the revoked set and dropped when next presented).
    this.#revoked.add(id);
    if (stored.revokedAt !== null) return publicRecord(stored);
    const revoked: StoredKey = { ...stored, revokedAt: new Date(this.#clock()).toISOString() };
    await this.#store.batch([
      { type: 'put', key: `id/${id}`, value: Buffer.from(JSON.stringify(revoked)) },
      { type: 'del', key: `hash/${stored.hash}` },
    ]);
    await this.#publish?.(revoked);
    return publicRecord(revoked);
  }

  /**
   * Applies a key record replicated from another instance (Kafka mode: every API replica materialises
   * the compacted keys topic). A revocation takes effect here as soon as it is applied.
   */
  async applyReplicated(stored: StoredKey): Promise<void> {
    if (stored.revokedAt !== null) this.#revoked.add(stored.id);
    await this.#store.batch([
      { type: 'put', key: `id/${stored.id}`, value: Buffer.from(JSON.stringify(stored)) },
      stored.revokedAt === null
        ? { type: 'put', key: `hash/${stored.hash}`, value: Buffer.from(stored.id) }
        : { type: 'del', key: `hash/${stored.hash}` },
    ]);
  }

  /** Every key, active and revoked, ordered by createdAt then id. Never includes keys or hashes. */
  async list(): Promise<KeyRecord[]> {
    const out: KeyRecord[] = [];
    for await (const [, value] of this.#store.entries({ gte: 'id/', lt: 'id0' })) {
      out.push(publicRecord(JSON.parse(value.toString()) as StoredKey));
    }
    return out.sort(byCreatedThenId);
  }

  /** One key by id (active or revoked), or undefined. */
  async get(id: string): Promise<KeyRecord | undefined> {
    if (!isKeyId(id)) return undefined;
    const stored = await this.#read(id);
    return stored ? publicRecord(stored) : undefined;
  }

  /**
   * The keys an account created, with when each was last used, ordered by createdAt then id. A scan of
   * every key: an account page is viewed rarely and the key count is small next to a scan's speed.
   */
  async listForAccount(accountId: string): Promise<OwnedKey[]> {
    const owned = (await this.list()).filter((k) => k.accountId === accountId);
    const used = await this.#store.getMany(owned.map((k) => `used/${k.id}`));
    return owned.map((k, i) => {
      const stored = used[i] ? Date.parse(used[i]!.toString()) : undefined;
      const pending = this.#pendingUsage.get(k.id);
      const last = Math.max(stored ?? -Infinity, pending ?? -Infinity);
      return { ...k, lastUsedAt: Number.isFinite(last) ? new Date(last).toISOString() : null };
    });
  }

  /** Notes that a key was used now. Memory only; `flushUsage` persists it. */
  touch(id: string): void {
    this.#pendingUsage.set(id, this.#clock());
  }

  /** Writes the usage noted since the last flush in one batch (and publishes it in Kafka mode). */
  async flushUsage(): Promise<number> {
    if (this.#pendingUsage.size === 0) return 0;
    const pending = [...this.#pendingUsage];
    this.#pendingUsage.clear();
    const usage = pending.map(([id, ms]) => ({ id, lastUsedAt: new Date(ms).toISOString() }));
    try {
      await this.#store.batch(
        usage.map((u) => ({ type: 'put', key: `used/${u.id}`, value: Buffer.from(u.lastUsedAt) })),
      );
    } catch (e) {
      // Keep what was not written for the next flush, unless a newer use has been noted since.
      for (const [id, ms] of pending) if (!this.#pendingUsage.has(id)) this.#pendingUsage.set(id, ms);
      throw e;
    }
    for (const u of usage) await this.#publishUsage?.(u);
    return usage.length;
  }

  /** Applies usage replicated from another replica: the later of the two instants wins. */
  async applyReplicatedUsage(usage: KeyUsage): Promise<void> {
    if (!isKeyId(usage.id) || Number.isNaN(Date.parse(usage.lastUsedAt))) return;
    const current = await this.#store.get(`used/${usage.id}`);
    if (current && Date.parse(current.toString()) >= Date.parse(usage.lastUsedAt)) return;
    await this.#store.put(`used/${usage.id}`, Buffer.from(usage.lastUsedAt));
  }

  async #read(id: string): Promise<StoredKey | undefined> {
    const buf = await this.#store.get(`id/${id}`);
    return buf ? (JSON.parse(buf.toString()) as StoredKey) : undefined;
  }
}

function publicRecord(s: StoredKey): KeyRecord {
  return { id: s.id, name: s.name, createdAt: s.createdAt, revokedAt: s.revokedAt, accountId: s.accountId ?? null };
}

function byCreatedThenId(a: KeyRecord, b: KeyRecord): number {
  return a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
