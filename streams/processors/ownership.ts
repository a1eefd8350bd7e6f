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

export class PartitionOwnership {
  private owned = new Set<number>();
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

  get ownedPartitions(): number[] {
    return [...this.owned].sort((a, b) => a - b);
  }

  /** The processor to tell about changes of assignment (a later processor replaces an earlier one). */
  onChange(listener: (gained: Set<number>, lost: Set<number>) => void): void {
    this.listener = listener;
  }

  /** Sets the owned partitions (the embedded default owns them all). */
  assign(partitions: Iterable<number>): void {
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
    const assigned = new Promise<void>((resolve) => (first = resolve));
    const done = log.consume(
      {
        group,
        topics: [topic],
        signal,
        maxBatchRecords: 1000,
        startOffsets: async (tps) => {
          this.assign(tps.filter((tp) => tp.topic === topic).map((tp) => tp.partition));
          first();
          return new Map();
        },
      },
      // Membership only: the records themselves are read by the processor's own consumer.
      async () => {},
    );
    await Promise.race([assigned, done]);
    return { done };
  }
}
