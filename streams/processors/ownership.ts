/**
 * Which race partitions this processor instance assembles rows for. Instances of a scaled-out
 * deployment join one consumer group on the cards topic; the partitions the group assigns to an
 * instance are the races (by murmur2 of raceId, as the topics are keyed) whose rows it emits. Every
 * instance still reads every input partition for its entity aggregates (like a global table), so a
 * row never needs state held by another instance.
 */
import { defaultPartition } from '../../domain/murmur2.js';
import type { Logger } from '../../domain/logger.js';
import type { LogPort } from '../log-port.js';
import { abortableDelay } from '../../domain/time.js';

/** Joining the group again after the membership ended with an error: first wait, doubling up to the cap. */
const REJOIN_FIRST_MS = 1_000;
const REJOIN_MAX_MS = 30_000;

export class PartitionOwnership {
  private owned = new Set<number>();
  /** the group's latest assignment (undefined before the first) */
  private assigned: Set<number> | undefined;
  private listener: ((gained: Set<number>, lost: Set<number>) => void) | undefined;
  private joined: Promise<{ done: Promise<void> }> | undefined;

  constructor(
    private readonly partitions: number,
    private readonly logger: Logger,
  ) {}

  owns = (raceId: string): boolean => this.owned.has(defaultPartition(raceId, this.partitions));

  partitionOf(raceId: string): number {
    return defaultPartition(raceId, this.partitions);
  }

  /** Whether this instance has joined the group (once per instance, across processors). */
  get joinedOnce(): boolean {
    return this.joined !== undefined;
  }

  get ownedPartitions(): number[] {
    return [...this.owned].sort((a, b) => a - b);
  }

  /** The processor to tell about changes of assignment (a later processor replaces an earlier one). */
  onChange(listener: (gained: Set<number>, lost: Set<number>) => void): void {
    this.listener = listener;
  }

  /** The group assigned these partitions: they become the owned ones. */
  assign(partitions: Iterable<number>): void {
    this.assigned = new Set(partitions);
    this.apply(this.assigned);
  }

  /** Owns every partition (a rebuild's instance, alone until it joins: see openProcessor). */
  applyAll(): void {
    this.apply(Array.from({ length: this.partitions }, (_, p) => p));
  }

  /** Whether this instance owns the race partition `p` now. */
  ownsPartition(p: number): boolean {
    return this.owned.has(p);
  }

  /** Owns the group's latest assignment again (a processor opened after the membership began, e.g. after a rebuild). */
  applyAssigned(): void {
    if (this.assigned) this.apply(this.assigned);
  }

  /**
   * Sets the owned partitions and tells the processor what was gained and lost. Before joining, a
   * restarted instance owns what it owned at its checkpoint, so it keeps emitting those while it
   * catches up; the group's assignment then settles it.
   */
  apply(partitions: Iterable<number>): void {
    const next = new Set(partitions);
    const gained = new Set([...next].filter((p) => !this.owned.has(p)));
    const lost = new Set([...this.owned].filter((p) => !next.has(p)));
    this.owned = next;
    if (gained.size > 0 || lost.size > 0) {
      this.logger.info({ owned: this.ownedPartitions }, 'race partitions assigned');
      this.listener?.(gained, lost);
    }
  }

  /**
   * Follows the group's assignment of `topic` until the signal aborts. Resolves once the first
   * assignment is known (the returned promise `done` settles when membership ends).
   */
  join(log: LogPort, group: string, topic: string, signal: AbortSignal): Promise<{ done: Promise<void> }> {
    // One membership per instance, however many processors it runs in turn (a rebuild opens a new one).
    this.joined ??= this.joinOnce(log, group, topic, signal);
    return this.joined;
  }

  private async joinOnce(
    log: LogPort,
    group: string,
    topic: string,
    signal: AbortSignal,
  ): Promise<{ done: Promise<void> }> {
    let first: () => void = () => {};
    let member = false;
    const assigned = new Promise<void>((resolve) => (first = resolve));
    const membership = () =>
      log.consume(
        {
          group,
          topics: [topic],
          signal,
          maxBatchRecords: 1000,
          startOffsets: async (tps) => {
            member = true;
            this.assign(tps.filter((tp) => tp.topic === topic).map((tp) => tp.partition));
            first();
            return new Map();
          },
          // Out of the group (the broker lost, the member joining again), the group may give these
          // partitions to others, who then emit them from their own state: owning nothing meanwhile,
          // this instance stops emitting them, and takes over from the topic whatever it gets back.
          onLeave: () => this.assign([]),
        },
        // Membership only: the records themselves are read by the processor's own consumer.
        async () => {},
      );
    // The consumer rejoins by itself through outages; an error that ends it anyway must not end the
    // membership in silence (the instance would keep emitting partitions the group gave to others,
    // and no one would take over the ones it held): out of the group it owns nothing, and joins again.
    const done = (async () => {
      for (let failures = 0; ;) {
        const startedAt = Date.now();
        try {
          await membership();
          return; // stopped (the signal aborted, or the log closed)
        } catch (err) {
          if (signal.aborted || !member) throw err; // the first join's failure is the caller's
          failures = Date.now() - startedAt > 60_000 ? 1 : failures + 1;
          const wait = Math.min(REJOIN_MAX_MS, REJOIN_FIRST_MS * 2 ** (failures - 1));
          this.logger.error({ err, retryInMs: wait }, 'left the group that assigns race partitions; joining again');
          this.assign([]);
          await abortableDelay(wait, signal);
          if (signal.aborted) return;
        }
      }
    })();
    await Promise.race([assigned, done]);
    return { done };
  }
}
