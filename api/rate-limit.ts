/**
 * Per-key rate limits: a fixed window of one minute aligned to the clock, so the numbers in the
 * RateLimit-* headers are exact and easy to reason about (a client may burst up to twice the limit across
 * a window boundary; that is the usual price of fixed windows and is documented). The clock is injected,
 * so tests are deterministic.
 */
export const WINDOW_MS = 60_000;

export interface RateLimitDecision {
  allowed: boolean;
  /** Requests allowed per window. */
  limit: number;
  /** Requests left in the current window after this one. */
  remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  resetSeconds: number;
}

export class RateLimiter {
  readonly #limit: number;
  readonly #clock: () => number;
  readonly #counts = new Map<string, { window: number; count: number }>();
  #sweptWindow = -1;

  /** The two RateLimit-* values that never change, made once. */
  readonly #limitText: string;
  readonly #policyText: string;

  constructor(options: { requestsPerMinute: number; clock: () => number }) {
    this.#limit = options.requestsPerMinute;
    this.#clock = options.clock;
    this.#limitText = String(this.#limit);
    this.#policyText = `${this.#limit};w=${WINDOW_MS / 1000}`;
  }

  /** Counts one request for `subject` (a key id) and says whether it is allowed. */
  take(subject: string): RateLimitDecision {
    const now = this.#clock();
    const window = Math.floor(now / WINDOW_MS);
    if (window !== this.#sweptWindow) {
      // Forget subjects idle since an earlier window, so memory follows the active keys only.
      for (const [k, v] of this.#counts) if (v.window !== window) this.#counts.delete(k);
      this.#sweptWindow = window;
    }
    let entry = this.#counts.get(subject);
    if (!entry || entry.window !== window) {
      entry = { window, count: 0 };
      this.#counts.set(subject, entry);
    }
    const resetSeconds = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
    if (entry.count >= this.#limit) return { allowed: false, limit: this.#limit, remaining: 0, resetSeconds };
    entry.count += 1;
    return { allowed: true, limit: this.#limit, remaining: this.#limit - entry.count, resetSeconds };
  }

  /**
   * Sets the RateLimit-* headers of one of this limiter's decisions on a reply: the same fields as
   * `RateLimiter.headers`, without an object per request.
   */
  setHeaders(reply: { header(name: string, value: string): unknown }, d: RateLimitDecision): void {
    const own = d.limit === this.#limit;
    reply.header('ratelimit-limit', own ? this.#limitText : String(d.limit));
    reply.header('ratelimit-remaining', String(d.remaining));
    reply.header('ratelimit-reset', String(d.resetSeconds));
    reply.header('ratelimit-policy', own ? this.#policyText : `${d.limit};w=${WINDOW_MS / 1000}`);
  }

  /** The RateLimit-* response headers for a decision (draft-ietf-httpapi-ratelimit-headers field names). */
  static headers(d: RateLimitDecision): Record<string, string> {
    return {
      'ratelimit-limit': String(d.limit),
      'ratelimit-remaining': String(d.remaining),
      'ratelimit-reset': String(d.resetSeconds),
      'ratelimit-policy': `${d.limit};w=${WINDOW_MS / 1000}`,
    };
  }
}
