/**
 * Sign-in throttling: at most N failed sign-ins per account and M per client address within a sliding
 * window. It is checked before the password is, so once an account is throttled even the right password
 * is refused until the window moves on: guessing cannot continue at any rate. Sign-ups count against the
 * address too (each costs a scrypt hash). The account key is the normalised email whether or not an
 * account exists, so the throttle behaves the same for unknown addresses and reveals nothing.
 *
 * In memory, per process: in Kafka mode each API replica throttles on its own (a client spreading
 * attempts over R replicas gets R times the budget; a shared limiter would need a shared store).
 */
export interface ThrottleLimits {
  failuresPerAccount: number;
  failuresPerAddress: number;
  windowMs: number;
}

export interface ThrottleDecision {
  allowed: boolean;
  /** Whole seconds until an attempt is allowed again (0 when allowed). */
  retryAfterSeconds: number;
}

/** Timestamps of recent events per subject, at most `max` of them. */
class SlidingLog {
  readonly #events = new Map<string, number[]>();
  #calls = 0;

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** Ms until `subject` may act again (0 when below the limit). */
  wait(subject: string, now: number): number {
    const events = this.#recent(subject, now);
    if (events.length < this.max) return 0;
    return events[0]! + this.windowMs - now;
  }

  add(subject: string, now: number): void {
    const events = this.#recent(subject, now);
    events.push(now);
    if (events.length > this.max) events.shift();
    this.#events.set(subject, events);
    // Forget idle subjects now and then, so memory follows recent activity only.
    if (++this.#calls % 1000 === 0) {
      for (const [k, v] of this.#events) if (v.at(-1)! <= now - this.windowMs) this.#events.delete(k);
    }
  }

  clear(subject: string): void {
    this.#events.delete(subject);
  }

  #recent(subject: string, now: number): number[] {
    const events = (this.#events.get(subject) ?? []).filter((t) => t > now - this.windowMs);
    if (events.length === 0) this.#events.delete(subject);
    return events;
  }
}

export class SignInThrottle {
  readonly #accounts: SlidingLog;
  readonly #addresses: SlidingLog;

  constructor(
    limits: ThrottleLimits,
    private readonly clock: () => number,
  ) {
    this.#accounts = new SlidingLog(limits.failuresPerAccount, limits.windowMs);
    this.#addresses = new SlidingLog(limits.failuresPerAddress, limits.windowMs);
  }

  /** Whether a sign-in for `account` (normalised email) from `address` may be tried now. */
  check(address: string, account?: string): ThrottleDecision {
    const now = this.clock();
    const wait = Math.max(this.#addresses.wait(address, now), account ? this.#accounts.wait(account, now) : 0);
    return { allowed: wait <= 0, retryAfterSeconds: wait <= 0 ? 0 : Math.max(1, Math.ceil(wait / 1000)) };
  }

  /** A failed sign-in counts against both the account and the address. */
  failure(address: string, account: string): void {
    const now = this.clock();
    this.#accounts.add(account, now);
    this.#addresses.add(address, now);
  }

  /** An attempt that costs a hash but has no account to blame (a sign-up) counts against the address. */
  attempt(address: string): void {
    this.#addresses.add(address, this.clock());
  }

  /** A successful sign-in clears the account's failures (not the address's). */
  success(account: string): void {
    this.#accounts.clear(account);
  }
}
