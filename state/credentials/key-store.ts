/**
 * API keys. A key is shown once, at creation; the store keeps only its SHA-256, indexed by that hash, so
 * a leaked store does not leak usable keys. Verification is cached in memory; revocation through this
 * KeyStore takes effect at once in this process (the cache is per process: every instance that serves
 * requests must revoke through its own KeyStore, which is what the admin routes do).
 *
 * Store layout (under the StorePort handed in): `id/<keyId>` -> JSON record, `hash/<sha256 hex>` -> keyId.
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
}

/** The one response that carries the secret key. */
export interface CreatedKey {
  id: string;
  key: string;
  name: string;
  createdAt: string;
}

/** A key as stored and replicated: the record plus the SHA-256 hash of the key (never the key). */
export interface StoredKey extends KeyRecord {
  hash: string;
}

export interface KeyStoreOptions {
  /** Epoch ms; injectable for deterministic tests. */
  clock?: () => number;
  /** Verified hashes kept in memory (least recently used evicted). */
  cacheSize?: number;
  /** Called with each created or revoked record after it is stored (Kafka mode: replicate it to the keys topic). */
  publish?: (stored: StoredKey) => Promise<void>;
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
  /** sha256 hex -> record, for keys verified active. */
  readonly #cache = new Map<string, KeyRecord>();
  /**
   * Ids revoked by this process. A verify that started before a revoke may finish after it with a record
   * read before the revoke; checking this set before caching and returning closes that window.
   */
  readonly #revoked = new Set<string>();

  readonly #publish: ((stored: StoredKey) => Promise<void>) | undefined;

  constructor(store: StorePort, options: KeyStoreOptions = {}) {
    this.#store = store;
    this.#publish = options.publish;
    this.#clock = options.clock ?? Date.now;
    this.#cacheSize = options.cacheSize ?? 10_000;
  }

  /** Creates a key; the returned `key` is the only copy of the secret. */
  async create(name: string): Promise<CreatedKey> {
    const key = KEY_PREFIX + randomBytes(32).toString('base64url');
    const id = KEY_ID_PREFIX + randomBytes(10).toString('hex');
    const hash = hashKey(key);
    const createdAt = new Date(this.#clock()).toISOString();
    const stored: StoredKey = { id, name, createdAt, revokedAt: null, hash };
    await this.#store.batch([
      { type: 'put', key: `id/${id}`, value: Buffer.from(JSON.stringify(stored)) },
      { type: 'put', key: `hash/${hash}`, value: Buffer.from(id) },
    ]);
    await this.#publish?.(stored);
    return { id, key, name, createdAt };
  }

  /** The active key record for a presented key, or undefined for an unknown, malformed or revoked key. */
  async verify(key: string): Promise<KeyRecord | undefined> {
    if (!KEY_RE.test(key)) return undefined;
    const hash = hashKey(key);
    const cached = this.#cache.get(hash);
    if (cached) {
      if (this.#revoked.has(cached.id)) {
        this.#cache.delete(hash);
        return undefined;
      }
      // Refresh recency for the LRU.
      this.#cache.delete(hash);
      this.#cache.set(hash, cached);
      return cached;
    }
    const idBuf = await this.#store.get(`hash/${hash}`);
    if (!idBuf) return undefined;
    const stored = await this.#read(idBuf.toString());
    if (!stored || stored.revokedAt !== null || stored.hash !== hash || this.#revoked.has(stored.id)) return undefined;
    const record = publicRecord(stored);
    this.#cache.set(hash, record);
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
    // In memory first, so no request is admitted between here and the store write.
    this.#revoked.add(id);
    this.#cache.delete(stored.hash);
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
    if (stored.revokedAt !== null) {
      this.#revoked.add(stored.id);
      this.#cache.delete(stored.hash);
    }
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
    return out.sort((a, b) =>
      a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0,
    );
  }

  async #read(id: string): Promise<StoredKey | undefined> {
    const buf = await this.#store.get(`id/${id}`);
    return buf ? (JSON.parse(buf.toString()) as StoredKey) : undefined;
  }
}

function publicRecord(s: StoredKey): KeyRecord {
  return { id: s.id, name: s.name, createdAt: s.createdAt, revokedAt: s.revokedAt };
}
