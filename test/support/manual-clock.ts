/**
 * A clock for tests of timer-driven code (the live feed): time moves only when the test moves it, and
 * `set`/`advance` wake the sleepers whose time has come and wait until they are asleep again, so a test
 * never waits for real time and knows when the woken work is done.
 */
import type { Clock } from '../../streams/live-feed.js';

interface Sleeper {
  until: number;
  resolve: () => void;
}

export class ManualClock implements Clock {
  private sleepers: Sleeper[] = [];
  private sleeps = 0;
  private waiters: { after: number; resolve: () => void }[] = [];

  constructor(private t: number) {}

  now(): number {
    return this.t;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      if (signal.aborted) return resolve();
      const s: Sleeper = { until: this.t + Math.max(0, ms), resolve };
      this.sleepers.push(s);
      signal.addEventListener(
        'abort',
        () => {
          this.sleepers = this.sleepers.filter((x) => x !== s);
          resolve();
        },
        { once: true },
      );
      this.sleeps++;
      for (const w of this.waiters.filter((x) => this.sleeps > x.after)) w.resolve();
      this.waiters = this.waiters.filter((x) => this.sleeps <= x.after);
    });
  }

  /** Resolves once someone sleeps (again) after `after` sleeps in all; by default, once anyone is asleep. */
  asleep(after?: number): Promise<void> {
    if (after === undefined && this.sleepers.length > 0) return Promise.resolve();
    const n = after ?? this.sleeps;
    if (this.sleeps > n) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ after: n, resolve }));
  }

  /** Sleepers waiting now, by wake-up time (the next timer first). */
  get pending(): number[] {
    return this.sleepers.map((s) => s.until).sort((a, b) => a - b);
  }

  /** Moves the time to `t` (never back); wakes the sleepers due by then and waits until they sleep again. */
  async set(t: number): Promise<void> {
    if (t < this.t) throw new Error('the manual clock does not go back');
    this.t = t;
    const due = this.sleepers.filter((s) => s.until <= t);
    if (due.length === 0) return;
    this.sleepers = this.sleepers.filter((s) => s.until > t);
    const before = this.sleeps;
    for (const s of due) s.resolve();
    await this.asleep(before + due.length - 1);
  }

  advance(ms: number): Promise<void> {
    return this.set(this.t + ms);
  }
}
