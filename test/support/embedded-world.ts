/**
 * A processor's surroundings for unit tests: an embedded log over an in-memory store, the topics, the
 * codecs with an embedded registry, and the given input already published. `interceptProduce` wraps the
 * log's produce (to watch it or make it fail); `compactedTopic` reads a topic as a consumer of the
 * compacted topic sees it.
 */
import type { PublishableEvent } from '../../domain/events.js';
import { createEmbeddedLog } from '../../streams/adapters/embedded-log.js';
import { createEmbeddedRegistry } from '../../streams/adapters/embedded-registry.js';
import { type Codecs, createCodecs } from '../../streams/codecs.js';
import type { LogPort, OutRecord } from '../../streams/log-port.js';
import { publishEvents } from '../../streams/publisher.js';
import { type TopicNames, topicNames, topicSpecs } from '../../streams/topics.js';
import { memoryStore } from './memory-store.js';

export interface EmbeddedWorld {
  store: ReturnType<typeof memoryStore>;
  log: LogPort;
  topics: TopicNames;
  codecs: Codecs;
}

export async function embeddedWorld(input: Iterable<PublishableEvent>): Promise<EmbeddedWorld> {
  const store = memoryStore();
  const log = createEmbeddedLog(store.sub('log/'));
  const topics = topicNames();
  await log.ensureTopics(topicSpecs(topics));
  const codecs = await createCodecs(createEmbeddedRegistry(store.sub('registry/')), topics);
  await publishEvents(log, codecs, input);
  return { store, log, topics, codecs };
}

/** The log with every produce going through `produce` (which may call the log's own). */
export function interceptProduce(
  log: LogPort,
  produce: (topic: string, records: readonly OutRecord[], inner: LogPort['produce']) => Promise<void>,
): LogPort {
  const inner: LogPort['produce'] = (topic, records) => log.produce(topic, records);
  return intercept(log, 'produce', (topic, records) => produce(topic, records, inner));
}

/** `target` with its method `key` replaced by `method`; every other member is the target's own. */
export function intercept<T extends object, K extends keyof T>(target: T, key: K, method: T[K]): T {
  return new Proxy(target, {
    get(t, k) {
      if (k === key) return method;
      const value = Reflect.get(t, k) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(t) : value;
    },
  });
}

/** The current records of a topic (the latest value per key, base64; tombstones remove the key). */
export async function compactedTopic(log: LogPort, topic: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (let p = 0; p < (await log.partitions(topic)); p++) {
    for (const r of await log.read(topic, p, 0, 1_000_000)) {
      if (r.value) out.set(r.key, r.value.toString('base64'));
      else out.delete(r.key);
    }
  }
  return out;
}
