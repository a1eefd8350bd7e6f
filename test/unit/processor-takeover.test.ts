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
  const state = { down: false };
  const log = interceptProduce(inner, (topic, records, produce) =>
    state.down && topic === topics.analytics
      ? Promise.reject(new RacingError('broker_unreachable', 'Kafka broker unreachable', { retriable: true }))
      : produce(topic, records),
  );
  const open = () => AnalyticsProcessor.open({ log, codecs, store: store.sub('processor/'), logger });
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
});
