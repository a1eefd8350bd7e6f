import { describe, expect, it } from 'vitest';
import { AccountStore, accountIdOf, type StoredAccount } from '../../state/credentials/account-store.js';
import { KeyStore, type KeyUsage } from '../../state/credentials/key-store.js';
import { hashPassword, verifyPassword } from '../../state/credentials/password.js';
import { SessionStore, type StoredSession } from '../../state/credentials/session-store.js';
import type { BatchOp, StorePort } from '../../state/store-port.js';
import { memoryStore } from '../support/memory-store.js';
import { hookWrite } from '../support/store-batch.js';

const cheap = (p: string) => hashPassword(p, { logN: 10, r: 8, p: 1 });

/** A store that counts writes (put, del and batches). */
function countingStore(inner: StorePort = memoryStore()): StorePort & { writes: number } {
  const s = {
    writes: 0,
    get: (k: string) => inner.get(k),
    getMany: (ks: readonly string[]) => inner.getMany(ks),
    entries: (r?: Parameters<StorePort['entries']>[0]) => inner.entries(r),
    clear: (r?: Parameters<StorePort['clear']>[0]) => inner.clear(r),
    sub: (p: string) => inner.sub(p),
    close: () => inner.close(),
    async put(k: string, v: Buffer) {
      s.writes++;
      await inner.put(k, v);
    },
    async del(k: string) {
      s.writes++;
      await inner.del(k);
    },
    async batch(ops: readonly BatchOp[]) {
      s.writes++;
      await inner.batch(ops);
    },
    writeBatch: () =>
      hookWrite(inner.writeBatch(), async (write) => {
        s.writes++;
        await write();
      }),
  };
  return s;
}

describe('password hashing (scrypt)', () => {
  it('stores parameters, salt and key in one string; verifies only the right password', async () => {
    const a = await cheap('correct horse');
    const b = await cheap('correct horse');
    expect(a).toMatch(/^scrypt\$10\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(a).not.toBe(b); // salted
    expect(await verifyPassword('correct horse', a)).toBe(true);
    expect(await verifyPassword('correct horsf', a)).toBe(false);
    expect(await verifyPassword('correct horse', 'scrypt$10$8$1$AAAA$short')).toBe(false);
    expect(await verifyPassword('correct horse', 'bcrypt$whatever')).toBe(false);
  });

  it('defaults to N = 2^15, r = 8 (memory-hard: 32 MiB per hash)', async () => {
    expect(await hashPassword('x'.repeat(12))).toMatch(/^scrypt\$15\$8\$1\$/);
  });
});

describe('AccountStore', () => {
  it('normalises the email into a stable id; a second sign-up of the address is refused but still hashes', async () => {
    let hashes = 0;
    const accounts = new AccountStore(memoryStore(), {
      clock: () => 1000,
      hash: (p) => {
        hashes++;
        return cheap(p);
      },
    });
    const a = await accounts.create(' Ada@Example.COM ', 'pw-0123456789');
    expect(a).toEqual({
      id: accountIdOf('ada@example.com'),
      email: 'ada@example.com',
      createdAt: '1970-01-01T00:00:01.000Z',
      accessGrantedAt: null,
    });
    expect(await accounts.create('ada@example.com', 'other-0123456789')).toBeUndefined();
    expect(hashes).toBe(2);
    expect(await accounts.authenticate('ADA@example.com', 'pw-0123456789')).toEqual(a);
    expect(await accounts.authenticate('ada@example.com', 'other-0123456789')).toBeUndefined();
  });

  it('an unknown address costs a hash check like a wrong password does', async () => {
    let hashes = 0;
    const accounts = new AccountStore(memoryStore(), {
      hash: (p) => {
        hashes++;
        return cheap(p);
      },
    });
    expect(await accounts.authenticate('nobody@example.com', 'whatever-password')).toBeUndefined();
    expect(hashes).toBe(1); // the throwaway hash that the password is checked against
  });

  it('grants and withdraws access at once, and it all survives a restart on the same store', async () => {
    const store = memoryStore();
    let now = 0;
    const accounts = new AccountStore(store, { clock: () => now, hash: cheap });
    const a = (await accounts.create('a@example.com', 'pw-0123456789'))!;
    expect(await accounts.hasAccess(a.id)).toBe(false);
    now = 5000;
    expect((await accounts.setAccess('A@example.com', true))!.accessGrantedAt).toBe('1970-01-01T00:00:05.000Z');
    expect(await accounts.hasAccess(a.id)).toBe(true);
    const restarted = new AccountStore(store, { hash: cheap });
    expect(await restarted.hasAccess(a.id)).toBe(true);
    expect(await restarted.authenticate('a@example.com', 'pw-0123456789')).toBeDefined();
    await restarted.setAccess('a@example.com', false);
    expect(await restarted.hasAccess(a.id)).toBe(false);
    expect(await accounts.setAccess('nobody@example.com', true)).toBeUndefined();
  });

  it('replicas that apply the published records in order end up with the same accounts', async () => {
    const published: StoredAccount[] = [];
    const writer = new AccountStore(memoryStore(), { hash: cheap, publish: async (r) => void published.push(r) });
    await writer.create('a@example.com', 'pw-0123456789');
    await writer.setAccess('a@example.com', true);
    await writer.setAccess('a@example.com', false);
    await writer.setAccess('a@example.com', true);
    expect(published).toHaveLength(4);
    expect(JSON.stringify(published)).not.toContain('pw-0123456789');
    const replica = new AccountStore(memoryStore(), { hash: cheap });
    for (const r of published) await replica.applyReplicated(r);
    expect(await replica.list()).toEqual(await writer.list());
    expect(await replica.authenticate('a@example.com', 'pw-0123456789')).toBeDefined();
  });
});

describe('SessionStore', () => {
  it('verifies a live session, not after it expires or ends, and survives a restart', async () => {
    const store = memoryStore();
    let now = 0;
    const sessions = new SessionStore(store, { clock: () => now, ttlMs: 60_000 });
    const { token, session } = await sessions.create('acc_00000000000000000000');
    expect(token).toMatch(/^rs_[A-Za-z0-9_-]{43}$/);
    expect(await sessions.verify(token)).toEqual(session);
    expect(await new SessionStore(store, { clock: () => now }).verify(token)).toEqual(session);
    expect(await sessions.verify(`${token.slice(0, -1)}x`)).toBeUndefined();
    now = 60_000;
    expect(await sessions.verify(token)).toBeUndefined();
    const second = await sessions.create('acc_00000000000000000000');
    expect(await sessions.verify(second.token)).toBeDefined(); // cached now
    await sessions.end(second.token);
    expect(await sessions.verify(second.token)).toBeUndefined();
    expect(await new SessionStore(store, { clock: () => now }).verify(second.token)).toBeUndefined();
  });

  it('a sign-out on one replica ends the session on another that applies the record', async () => {
    const published: StoredSession[] = [];
    const a = new SessionStore(memoryStore(), { publish: async (s) => void published.push(s) });
    const b = new SessionStore(memoryStore());
    const { token } = await a.create('acc_00000000000000000000');
    for (const s of published.splice(0)) await b.applyReplicated(s);
    expect(await b.verify(token)).toBeDefined();
    await a.end(token);
    expect(published).toHaveLength(1);
    expect(published[0]!.endedAt).not.toBeNull();
    expect(JSON.stringify(published)).not.toContain(token);
    for (const s of published) await b.applyReplicated(s);
    expect(await b.verify(token)).toBeUndefined();
  });

  it('sweep deletes expired sessions only', async () => {
    let now = 0;
    const sessions = new SessionStore(memoryStore(), { clock: () => now, ttlMs: 1000 });
    await sessions.create('acc_00000000000000000000');
    now = 500;
    const live = await sessions.create('acc_00000000000000000000');
    now = 1200;
    expect(await sessions.sweep()).toBe(1);
    expect(await sessions.verify(live.token)).toBeDefined();
  });
});

describe('KeyStore usage ("last used")', () => {
  it('costs no store write per request: uses are noted in memory and flushed in one batch', async () => {
    const store = countingStore();
    let now = Date.parse('2024-06-01T10:00:00.000Z');
    const usage: KeyUsage[] = [];
    const keys = new KeyStore(store, { clock: () => now, publishUsage: async (u) => void usage.push(u) });
    const a = await keys.create('a', { accountId: 'acc_00000000000000000000' });
    const b = await keys.create('b', { accountId: 'acc_00000000000000000000' });
    const before = store.writes;
    for (let i = 0; i < 100; i++) {
      const rec = (await keys.verify(i % 2 ? a.key : b.key))!;
      keys.touch(rec.id);
      now += 1000;
    }
    expect(store.writes).toBe(before);
    // Pending uses already show on the account page of this process.
    const listed = await keys.listForAccount('acc_00000000000000000000');
    expect(listed.find((k) => k.id === a.id)!.lastUsedAt).toBe('2024-06-01T10:01:39.000Z');
    expect(await keys.flushUsage()).toBe(2);
    expect(store.writes).toBe(before + 1);
    expect(usage.map((u) => u.id).sort()).toEqual([a.id, b.id].sort());
    expect(await keys.flushUsage()).toBe(0);
    const restarted = new KeyStore(store);
    const lastUsed = async () =>
      Object.fromEntries((await restarted.listForAccount('acc_00000000000000000000')).map((k) => [k.id, k.lastUsedAt]));
    expect(await lastUsed()).toEqual({ [a.id]: '2024-06-01T10:01:39.000Z', [b.id]: '2024-06-01T10:01:38.000Z' });
    // Replicated usage keeps the later instant.
    await restarted.applyReplicatedUsage({ id: a.id, lastUsedAt: '2024-01-01T00:00:00.000Z' });
    await restarted.applyReplicatedUsage({ id: b.id, lastUsedAt: '2024-07-01T00:00:00.000Z' });
    expect(await lastUsed()).toEqual({ [a.id]: '2024-06-01T10:01:39.000Z', [b.id]: '2024-07-01T00:00:00.000Z' });
  });

  it('lists only the keys of the account, operator keys under none', async () => {
    const keys = new KeyStore(memoryStore());
    await keys.create('operator');
    const mine = await keys.create('mine', { accountId: 'acc_00000000000000000001' });
    await keys.create('theirs', { accountId: 'acc_00000000000000000002' });
    expect((await keys.listForAccount('acc_00000000000000000001')).map((k) => k.id)).toEqual([mine.id]);
    expect((await keys.verify(mine.key))!.accountId).toBe('acc_00000000000000000001');
  });
});
