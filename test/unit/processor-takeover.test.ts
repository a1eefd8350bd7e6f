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
import { compactedTopic, embeddedWorld, interceptProduce } from '../support/embedded-world.js';

const logger = silentLogger();
const FEED = { from: '2024-06-01', to: '2024-06-03', seed: 7, scale: 0.3 };

/** Input published to an embedded log; `down` makes produce to the analytics topic fail as in an outage. */
async function world() {
  const { store, log: inner, topics, codecs } = await embeddedWorld(generateFeed(FEED));
  // `down`: every produce to the analytics topic fails; `upFor`: that many more succeed, then `down`
  const state = { down: false, upFor: Number.POSITIVE_INFINITY, produced: 0 };
  const log = interceptProduce(inner, (topic, records, produce) => {
    if (topic === topics.analytics && !state.down && state.upFor-- <= 0) state.down = true;
    if (state.down && topic === topics.analytics)
      return Promise.reject(new RacingError('broker_unreachable', 'Kafka broker unreachable', { retriable: true }));
    if (topic === topics.analytics) state.produced++;
    return produce(topic, records);
  });
  const open = (flushSliceRaces?: number) =>
    AnalyticsProcessor.open({
      log,
      codecs,
      store: store.sub('processor/'),
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
    ownership.apply([0, 1, 2, 3]);
    await expect(first.checkpointNow()).rejects.toThrow(/unreachable/);
    expect(w.state.produced).toBe(2);
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
});
