/**
 * Accounts: an email, a scrypt password hash and whether an operator has granted API access (early
 * access: a new account has none). The account id is derived from the normalised email, so the same
 * address always names the same record: a second sign-up cannot create a duplicate, and in Kafka mode
 * the compacted accounts topic holds one record per address whichever replica wrote it.
 *
 * Store layout (under the StorePort handed in): `id/<accountId>` -> JSON StoredAccount.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { StorePort } from '../store-port.js';
import { hashPassword, verifyPassword } from './password.js';

/** An account as shown to its owner and to operators: never the password hash. */
export interface Account {
  id: string;
  email: string;
  /** ISO 8601 UTC */
  createdAt: string;
  /** ISO 8601 UTC when an operator granted API access; null while the account has none */
  accessGrantedAt: string | null;
}

/** An account as stored and replicated. */
export interface StoredAccount extends Account {
  passwordHash: string;
  /** ISO 8601 UTC of the last change (creation, grant, revoke) */
  updatedAt: string;
}

export interface AccountStoreOptions {
  /** Epoch ms; injectable for deterministic tests. */
  clock?: () => number;
  /** Called with each created or changed record after it is stored (Kafka mode: the accounts topic). */
  publish?: (stored: StoredAccount) => Promise<void>;
  /** Overrides password hashing (tests use cheap scrypt parameters). */
  hash?: (password: string) => Promise<string>;
  /** Accounts kept in memory (oldest evicted first). */
  cacheSize?: number;
}

export const ACCOUNT_ID_PREFIX = 'acc_';
const ACCOUNT_ID_RE = /^acc_[0-9a-f]{20}$/;
/** RFC 5321 caps a forward path at 256 octets, so an address is at most 254 characters. */
export const MAX_EMAIL_LENGTH = 254;
const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Trimmed and lower-cased: mail providers treat the local part case-insensitively in practice. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** True for a plausible address (something@domain.tld, no spaces, at most 254 characters). */
export function isEmail(email: string): boolean {
  return email.length <= MAX_EMAIL_LENGTH && EMAIL_RE.test(email);
}

export function accountIdOf(email: string): string {
  return ACCOUNT_ID_PREFIX + createHash('sha256').update(normalizeEmail(email), 'utf8').digest('hex').slice(0, 20);
}

export function isAccountId(id: string): boolean {
  return ACCOUNT_ID_RE.test(id);
}

export class AccountStore {
  readonly #store: StorePort;
  readonly #clock: () => number;
  readonly #publish: ((stored: StoredAccount) => Promise<void>) | undefined;
  readonly #hash: (password: string) => Promise<string>;
  /** Accounts read or written by this process: access checks run on every session or account-key request. */
  readonly #cache = new Map<string, StoredAccount>();
  readonly #cacheSize: number;
  #dummyHash: Promise<string> | undefined;

  constructor(store: StorePort, options: AccountStoreOptions = {}) {
    this.#store = store;
    this.#clock = options.clock ?? Date.now;
    this.#publish = options.publish;
    this.#hash = options.hash ?? ((p) => hashPassword(p));
    this.#cacheSize = options.cacheSize ?? 50_000;
  }

  /**
   * Creates an account without access. Undefined when the address is taken; the password is hashed in
   * both cases, so the time taken does not tell a caller whether the address exists.
   */
  async create(email: string, password: string): Promise<Account | undefined> {
    const normalized = normalizeEmail(email);
    const passwordHash = await this.#hash(password);
    const id = accountIdOf(normalized);
    if (await this.#read(id)) return undefined;
    const now = new Date(this.#clock()).toISOString();
    const stored: StoredAccount = {
      id,
      email: normalized,
      createdAt: now,
      accessGrantedAt: null,
      passwordHash,
      updatedAt: now,
    };
    await this.#write(stored);
    return publicAccount(stored);
  }

  /**
   * The account for an email and password, or undefined. An unknown address is checked against a
   * throwaway hash so that it costs the same scrypt work as a wrong password.
   */
  async authenticate(email: string, password: string): Promise<Account | undefined> {
    const stored = await this.#read(accountIdOf(email));
    this.#dummyHash ??= this.#hash(randomBytes(16).toString('hex'));
    const ok = await verifyPassword(password, stored?.passwordHash ?? (await this.#dummyHash));
    return ok && stored ? publicAccount(stored) : undefined;
  }

  async get(id: string): Promise<Account | undefined> {
    if (!isAccountId(id)) return undefined;
    const stored = await this.#read(id);
    return stored ? publicAccount(stored) : undefined;
  }

  async byEmail(email: string): Promise<Account | undefined> {
    return this.get(accountIdOf(email));
  }

  /** Whether an account in memory has API access; undefined when it is not in memory (ask `hasAccess`). */
  cachedAccess(id: string): boolean | undefined {
    const stored = this.#cache.get(id);
    return stored === undefined ? undefined : stored.accessGrantedAt !== null;
  }

  /** True when the account exists and has API access. Served from memory after the first read. */
  async hasAccess(id: string): Promise<boolean> {
    const stored = this.#cache.get(id) ?? (await this.#read(id));
    return stored !== undefined && stored.accessGrantedAt !== null;
  }

  /** Grants or withdraws API access, effective at once. Undefined for an unknown address; idempotent. */
  async setAccess(email: string, granted: boolean): Promise<Account | undefined> {
    const stored = await this.#read(accountIdOf(email));
    if (!stored) return undefined;
    if ((stored.accessGrantedAt !== null) === granted) return publicAccount(stored);
    const now = new Date(this.#clock()).toISOString();
    const changed: StoredAccount = { ...stored, accessGrantedAt: granted ? now : null, updatedAt: now };
    await this.#write(changed);
    return publicAccount(changed);
  }

  /** Every account, ordered by createdAt then email. */
  async list(): Promise<Account[]> {
    const out: Account[] = [];
    for await (const [, value] of this.#store.entries({ gte: 'id/', lt: 'id0' })) {
      out.push(publicAccount(JSON.parse(value.toString()) as StoredAccount));
    }
    return out.sort((a, b) =>
      a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : a.email < b.email ? -1 : 1,
    );
  }

  /**
   * Applies a record replicated from another instance (Kafka mode). Records are applied in topic order,
   * which is the order every replica agrees on, so replicas converge on the last write.
   */
  async applyReplicated(stored: StoredAccount): Promise<void> {
    if (!isAccountId(stored.id)) return;
    this.#remember(stored);
    await this.#store.put(`id/${stored.id}`, Buffer.from(JSON.stringify(stored)));
  }

  async #write(stored: StoredAccount): Promise<void> {
    // Memory first: a grant or revoke is honoured by the next request even while the write is in flight.
    this.#remember(stored);
    await this.#store.put(`id/${stored.id}`, Buffer.from(JSON.stringify(stored)));
    await this.#publish?.(stored);
  }

  async #read(id: string): Promise<StoredAccount | undefined> {
    const cached = this.#cache.get(id);
    if (cached) return cached;
    const buf = await this.#store.get(`id/${id}`);
    if (!buf) return undefined;
    const stored = JSON.parse(buf.toString()) as StoredAccount;
    this.#remember(stored);
    return stored;
  }

  #remember(stored: StoredAccount): void {
    this.#cache.delete(stored.id);
    this.#cache.set(stored.id, stored);
    if (this.#cache.size > this.#cacheSize) {
      const oldest = this.#cache.keys().next();
      if (!oldest.done) this.#cache.delete(oldest.value);
    }
  }
}

function publicAccount(s: StoredAccount): Account {
  return { id: s.id, email: s.email, createdAt: s.createdAt, accessGrantedAt: s.accessGrantedAt };
}
