// vitest globalSetup: makes a real Apache Kafka broker available to the integration suites.
//
// - KAFKA_BROKERS already set in the environment: that broker is used (after checking it answers).
// - else, when java (and mvn, until the jars are cached) are available: a single-node KRaft broker is
//   started with scripts/kafka/kafka.mjs on free loopback ports and stopped in teardown.
// - else: outside CI the suites get '' and skip with a message; with CI=true this throws, because CI
//   must never silently skip the Kafka tests.
//
// Suites read the address with `inject('kafkaBrokers')`; child processes see it as KAFKA_BROKERS.
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `host:port[,host:port]` of a real Kafka broker, or '' when none is available (suites should skip). */
    kafkaBrokers: string;
  }
}

interface KafkaHandle {
  brokers: string;
  controllerPort: number;
  pid: number;
  dataDir: string;
  logDir: string;
  kafkaVersion: string;
  stop(): Promise<void>;
}

/** The parts of scripts/kafka/kafka.mjs (plain JS, no .d.ts) used here. */
interface KafkaScript {
  startKafka(opts?: { dataDir?: string; logDir?: string; log?: (msg: string) => void }): Promise<KafkaHandle>;
  checkPrerequisites(): { ok: boolean; missing: string[]; cacheDir: string; jarsCached: boolean };
  probeKafka(host: string, port: number, timeoutMs?: number): Promise<unknown>;
}

// Loaded by URL so TypeScript does not need a declaration file for the .mjs script.
const kafkaScriptUrl = new URL('../../scripts/kafka/kafka.mjs', import.meta.url).href;

let broker: KafkaHandle | undefined;

function log(msg: string): void {
  process.stderr.write(`${msg}\n`);
}

async function checkExternalBroker(kafka: KafkaScript, brokers: string): Promise<void> {
  const first = brokers.split(',')[0]?.trim() ?? '';
  const idx = first.lastIndexOf(':');
  const host = first.slice(0, idx).replace(/^\[|\]$/g, '');
  const port = Number(first.slice(idx + 1));
  if (idx <= 0 || !Number.isInteger(port)) {
    throw new Error(`KAFKA_BROKERS=${brokers} is not a host:port list`);
  }
  try {
    await kafka.probeKafka(host, port, 5000);
  } catch (err) {
    throw new Error(`KAFKA_BROKERS=${brokers} is set but ${first} does not answer Kafka requests: ${String(err)}`);
  }
}

/**
 * vitest calls only the default export of a globalSetup module that has one, so the teardown is
 * returned from here rather than exported.
 */
export default async function setup({ provide }: TestProject): Promise<() => Promise<void>> {
  const kafka = (await import(kafkaScriptUrl)) as KafkaScript;

  const external = process.env.KAFKA_BROKERS?.trim();
  if (external) {
    await checkExternalBroker(kafka, external);
    log(`[kafka] using the broker from KAFKA_BROKERS=${external}`);
    provide('kafkaBrokers', external);
    return teardown;
  }

  const prereq = kafka.checkPrerequisites();
  if (!prereq.ok) {
    const msg =
      `[kafka] no local Kafka broker: missing ${prereq.missing.join(' and ')} on PATH ` +
      '(see docs/kafka-local.md, or set KAFKA_BROKERS=host:port)';
    if (process.env.CI === 'true') {
      throw new Error(`${msg}. CI must run the Kafka integration tests, so this is an error.`);
    }
    log(`${msg}; Kafka integration tests will be SKIPPED`);
    provide('kafkaBrokers', '');
    return teardown;
  }

  const started = Date.now();
  broker = await kafka.startKafka({ log });
  log(
    `[kafka] Kafka ${broker.kafkaVersion} broker ready at ${broker.brokers} in ${((Date.now() - started) / 1000).toFixed(1)}s ` +
      `(pid ${broker.pid}, logs ${broker.logDir})`,
  );
  process.env.KAFKA_BROKERS = broker.brokers;
  provide('kafkaBrokers', broker.brokers);
  return teardown;
}

async function teardown(): Promise<void> {
  if (!broker) return;
  const b = broker;
  broker = undefined;
  delete process.env.KAFKA_BROKERS;
  await b.stop();
}
