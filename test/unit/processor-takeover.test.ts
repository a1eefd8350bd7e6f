/**
 * A takeover of race partitions whose rows cannot be produced (the broker went away in the middle):
 * the processor must not carry on as if they were, or a restart from its checkpoint would believe
 * them on the topic and never produce them (rows missing from the export after a Kafka outage).
 * Embedded log and in-memory stores; the failing produce is injected.
 */
import { describe, expect, it } from 'vitest';
import { RacingError } from '../../domain/errors.js';
import { generateFeed } from '../../domain/generator/index.js';
import { silentLogger } from '../../domain/logger.js';
import { AnalyticsProcessor } from '../../streams/processors/analytics-processor.js';
import { PartitionOwnership } from '../../streams/processors/ownership.js';
import { compactedTopic, embeddedWorld, intercept, interceptProduce } from '../support/embedded-world.js';

const logger = silentLogger();
const FEED = { from: '2024-06-01', to: '2024-06-03', seed: 7, scale: 0.3 };

/** Input published to an embedded log; `down` makes produce to the analytics topic fail as in an outage. */
async function world() {
  const { store, log: inner, topics, codecs } = await embeddedWorld(generateFeed(FEED));
  // `down`: every produce to the analytics topic fails; `upFor`: that many more succeed, then `down`
  // `checkpoints`: the processor's checkpoints begun (store batches taken)
  const state = { down: false, upFor: Number.POSITIVE_INFINITY, produced: 0, checkpoints: 0 };
  const log = interceptProduce(inner, (topic, records, produce) => {
    if (topic === topics.analytics && !state.down && state.upFor-- <= 0) state.down = true;
    if (state.down && topic === topics.analytics)
      return Promise.reject(new RacingError('broker_unreachable', 'Kafka broker unreachable', { retriable: true }));
    if (topic === topics.analytics) state.produced++;
    return produce(topic, records);
  });
  const processorBase = store.sub('processor/');
  const processorStore = intercept(processorBase, 'writeBatch', () => {
    state.checkpoints++;
    return processorBase.writeBatch();
  });
  const open = (flushSliceRaces?: number) =>
    AnalyticsProcessor.open({
      log,
      codecs,
      store: processorStore,
      logger,
      ...(flushSliceRaces ? { flushSliceRaces } : {}),
    });
  return { log, topics, state, open };
}

describe('a takeover whose rows cannot be produced', () => {
  it('stops the processor without a checkpoint; the next one takes the partitions over again', async () => {
    const reference = await world();
    await (await reference.open()).run({ untilCaughtUp: true });
    const expected = await compactedTopic(reference.log, reference.topics.analytics);
    expect(expected.size).toBeGreaterThan(100);

    const w = await world();
    const ownership = new PartitionOwnership(4, logger);
    const first = await w.open();
    first.useOwnership(ownership);
    await first.run({ untilCaughtUp: true }); // owning nothing yet: no rows
    expect((await compactedTopic(w.log, w.topics.analytics)).size).toBe(0);

    // The group assigns every partition while the broker is away: the takeover's produce fails.
    w.state.down = true;
    ownership.apply([0, 1, 2, 3]);
    await expect(first.checkpointNow()).rejects.toThrow(/unreachable/);
    await expect(first.run({ untilCaughtUp: true })).rejects.toThrow(/unreachable/);

    // The broker is back; the service opens a new processor from the checkpoint (which owns nothing).
    w.state.down = false;
    const second = await w.open();
    second.useOwnership(ownership);
    await second.flushNow();
    await second.run({ untilCaughtUp: true });
    expect(await compactedTopic(w.log, w.topics.analytics)).toEqual(expected);
  });

  it('a takeover cut short between its checkpointed slices is taken over again after a restart', async () => {
    const reference = await world();
    await (await reference.open()).run({ untilCaughtUp: true });
    const expected = await compactedTopic(reference.log, reference.topics.analytics);

    const w = await world();
    const ownership = new PartitionOwnership(4, logger);
    const first = await w.open(8); // the takeover recomputes 8 races per produce, checkpointing between
    first.useOwnership(ownership);
    await first.run({ untilCaughtUp: true });
    // The group assigns every partition; two slices reach the topic (and are checkpointed), the third fails.
    w.state.upFor = 2;
    const before = w.state.checkpoints;
    ownership.apply([0, 1, 2, 3]);
    await expect(first.checkpointNow()).rejects.toThrow(/unreachable/);
    expect(w.state.produced).toBe(2);
    expect(w.state.checkpoints - before).toBe(2); // one after each slice produced, none after the failure
    const partial = await compactedTopic(w.log, w.topics.analytics);
    expect(partial.size).toBeGreaterThan(0);
    expect(partial.size).toBeLessThan(expected.size);

    // The next processor starts from the last checkpoint, written between the slices: the partitions
    // must not count as its own there, or the races left to recompute would never be produced.
    w.state.down = false;
    w.state.upFor = Number.POSITIVE_INFINITY;
    const second = await w.open(8);
    expect(second.checkpointedPartitions).toEqual([]);
    second.useOwnership(ownership);
    await second.flushNow();
    await second.run({ untilCaughtUp: true });
    expect(await compactedTopic(w.log, w.topics.analytics)).toEqual(expected);
    expect(second.checkpointedPartitions).toEqual([0, 1, 2, 3]);
  });

  it('partitions assigned, taken away or given back while a takeover runs are each taken over', async () => {
    const reference = await world();
    await (await reference.open()).run({ untilCaughtUp: true });
    const expected = await compactedTopic(reference.log, reference.topics.analytics);
    // each sequence of assignments arrives at once, before the first takeover has produced anything
    for (const assignments of [
      [
        [0, 1],
        [0, 1, 2, 3],
      ], // more partitions while the first are taken over
      [
        [0, 1, 2, 3],
        [0, 1],
        [0, 1, 2, 3],
      ], // two taken away and given back
      [[0, 1, 2, 3], [], [1, 3]], // all taken away, two given back
    ]) {
      const w = await world();
      const ownership = new PartitionOwnership(4, logger);
      const first = await w.open(8);
      first.useOwnership(ownership);
      await first.run({ untilCaughtUp: true });
      for (const a of assignments) ownership.apply(a);
      await first.checkpointNow();
      const last = assignments.at(-1)!;
      const topic = await compactedTopic(w.log, w.topics.analytics);
      const want = new Map(
        [...expected].filter(([k]) => last.includes(ownership.partitionOf(k.slice(0, k.indexOf(':'))))),
      );
      expect(want.size).toBeGreaterThan(50);
      // every row of the partitions owned in the end, and (the run owning nothing before) no others
      expect(topic).toEqual(want);
      expect(first.checkpointedPartitions).toEqual(last);
    }
  });
});
