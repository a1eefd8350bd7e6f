#!/usr/bin/env node
// Kafka's own command-line tools, run from the jar cache of scripts/kafka/pom.xml (no Kafka download):
//
//   npm run kafka:console -- consumer --topic racing.analytics.v1 --from-beginning --max-messages 5
//   npm run kafka:console -- topics --list
//   npm run kafka:console -- consumer-groups --list
//
// `--bootstrap-server` is added when not given: $KAFKA_BROKERS, else the broker of `npm run kafka:up`.
// Each tool is the class Kafka's bin/kafka-<tool>.sh runs in Kafka 3.9; every other argument is the
// tool's own (`npm run kafka:console -- consumer --help`).
//
// Plain Node ESM, like kafka.mjs: it must run before anything is built.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureKafkaJars, findJava, KafkaSetupError, STATE_FILE } from './kafka.mjs';

const HERE = path.dirname(fileURLToPath(import.meta.url));

/** tool name -> main class (bin/kafka-<tool>.sh of Kafka 3.9). */
export const TOOLS = {
  consumer: 'org.apache.kafka.tools.consumer.ConsoleConsumer',
  producer: 'kafka.tools.ConsoleProducer',
  topics: 'org.apache.kafka.tools.TopicCommand',
  'consumer-groups': 'org.apache.kafka.tools.consumer.group.ConsumerGroupCommand',
  'get-offsets': 'org.apache.kafka.tools.GetOffsetShell',
  configs: 'kafka.admin.ConfigCommand',
  'delete-records': 'org.apache.kafka.tools.DeleteRecordsCommand',
};

/** The broker address a tool should use when the caller gave none. */
export function defaultBrokers(env = process.env) {
  const fromEnv = env.KAFKA_BROKERS?.trim();
  if (fromEnv) return fromEnv;
  try {
    return JSON.parse(fs.readFileSync(STATE_FILE, 'utf8')).brokers ?? null;
  } catch {
    return null;
  }
}

/**
 * The java command line of a tool: `{ java, args }`. Throws KafkaSetupError for an unknown tool, a
 * missing java, or no broker address.
 * @param {string} tool
 * @param {string[]} toolArgs
 * @param {{ env?: NodeJS.ProcessEnv, log?: (m: string) => void }} [opts]
 */
export async function consoleCommand(tool, toolArgs, { env = process.env, log = () => {} } = {}) {
  const main = TOOLS[tool];
  if (!main) {
    throw new KafkaSetupError(`unknown tool '${tool ?? ''}'; one of: ${Object.keys(TOOLS).join(', ')}`);
  }
  const java = findJava();
  if (!java) throw new KafkaSetupError('Kafka tools need a Java 17+ runtime (`java` on PATH or $JAVA_HOME/bin/java)');
  const lib = await ensureKafkaJars({ log });
  const args = [...toolArgs];
  const wantsHelp = args.includes('--help') || args.includes('--version');
  if (!wantsHelp && !args.includes('--bootstrap-server')) {
    const brokers = defaultBrokers(env);
    if (!brokers) {
      throw new KafkaSetupError(
        'no broker: set KAFKA_BROKERS=host:port, pass --bootstrap-server, or run `npm run kafka:up`',
      );
    }
    args.unshift('--bootstrap-server', brokers);
  }
  return {
    java,
    args: [
      '-Xmx256m',
      '-XX:TieredStopAtLevel=1',
      '-XX:+UseSerialGC',
      '-Djava.awt.headless=true',
      // The tools log WARN and above to stderr, as Kafka's tools-log4j.properties does.
      `-Dlog4j.configuration=${new URL(`file://${path.join(HERE, 'tools-log4j.properties')}`).href}`,
      '-cp',
      `${lib}${path.sep}*`,
      main,
      ...args,
    ],
  };
}

async function main(argv) {
  const [tool, ...rest] = argv;
  if (!tool || tool === '--help' || tool === '-h') {
    process.stderr.write(
      `usage: npm run kafka:console -- <tool> [tool arguments]\n  tools: ${Object.keys(TOOLS).join(', ')}\n` +
        '  e.g.   npm run kafka:console -- consumer --topic racing.analytics.v1 --from-beginning --max-messages 5\n',
    );
    return tool ? 0 : 2;
  }
  const { java, args } = await consoleCommand(tool, rest, { log: (m) => process.stderr.write(`${m}\n`) });
  const child = spawn(java, args, { stdio: 'inherit' });
  // Ctrl-C reaches the tool itself (same process group); it exits and we exit with its code.
  return new Promise((resolve) => {
    child.on('error', (err) => {
      process.stderr.write(`[kafka] could not run ${java}: ${err.message}\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 128 + 2 : 1)));
  });
}

const invokedDirectly = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err) => {
      process.stderr.write(`[kafka] ${err instanceof KafkaSetupError ? err.message : (err?.stack ?? String(err))}\n`);
      process.exitCode = 1;
    },
  );
}
