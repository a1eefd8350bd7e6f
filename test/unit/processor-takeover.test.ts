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
import { createEmbeddedLog } from '../../streams/adapters/embedded-log.js';
import { createEmbeddedRegistry } from '../../streams/adapters/embedded-registry.js';
import { createCodecs } from '../../streams/codecs.js';
import type { LogPort } from '../../streams/log-port.js';
import { AnalyticsProcessor } from '../../streams/processors/analytics-processor.js';
import { PartitionOwnership } from '../../streams/processors/ownership.js';
import { publishEvents } from '../../streams/publisher.js';
import { topicNames, topicSpecs } from '../../streams/topics.js';
import { memoryStore } from '../support/memory-store.js';

const logger = silentLogger();
const FEED = { from: '2024-06-01', to: '2024-06-03', seed: 7, scale: 0.3 };

/** Input published to an embedded log; `down` makes produce to the analytics topic fail as in an outage. */
async function world() {
  const store = memoryStore();
  const inner = createEmbeddedLog(store.sub('log/'));
  const topics = topicNames();
  await inner.ensureTopics(topicSpecs(topics));
  const codecs = await createCodecs(createEmbeddedRegistry(store.sub('registry/')), topics);
  await publishEvents(inner, codecs, generateFeed(FEED));
  const state = { down: false };
  const log = new Proxy(inner, {
    get(target, key) {
      if (key === 'produce' && state.down)
        return (topic: string, records: unknown) =>
          topic === topics.analytics
            ? Promise.reject(new RacingError('broker_unreachable', 'Kafka broker unreachable', { retriable: true }))
            : target.produce(topic, records as never);
      const value = Reflect.get(target, key) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as LogPort;
  const open = () => AnalyticsProcessor.open({ log, codecs, store: store.sub('processor/'), logger });
  return { log, topics, state, open };
}

/** The current rows of the analytics topic (compacted view: the latest value per key, tombstones remove). */
async function rows(log: LogPort, topic: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let p = 0; p < (await log.partitions(topic)); p++) {
    for (const r of await log.read(topic, p, 0, 1_000_000)) {
      if (r.value) out.set(r.key, r.value.toString('base64'));
      else out.delete(r.key);
    }
  }
  return out;
}

describe('a takeover whose rows cannot be produced', () => {
  it('stops the processor without a checkpoint; the next one takes the partitions over again', async () => {
    const reference = await world();
    await (await reference.open()).run({ untilCaughtUp: true });
    const expected = await rows(reference.log, reference.topics.analytics);
    expect(expected.size).toBeGreaterThan(100);

    const w = await world();
    const ownership = new PartitionOwnership(4, logger);
    const first = await w.open();
    first.useOwnership(ownership);
    await first.run({ untilCaughtUp: true }); // owning nothing yet: no rows
    expect((await rows(w.log, w.topics.analytics)).size).toBe(0);

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
    expect(await rows(w.log, w.topics.analytics)).toEqual(expected);
  });
});
