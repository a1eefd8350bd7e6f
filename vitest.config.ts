import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

const root = import.meta.dirname;

/**
 * The test files that need a real Kafka broker: those that read the shared broker's address
 * (`inject('kafkaBrokers')`) or start one of their own (`OwnBroker`, `startKafka`, scripts/kafka/kafka.mjs).
 * Found by reading the files, so a new Kafka suite joins the `kafka` project without a list to keep.
 */
function kafkaTestFiles(dir = join(root, 'test')): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...kafkaTestFiles(path));
    else if (entry.name.endsWith('.test.ts') && NEEDS_KAFKA.test(readFileSync(path, 'utf8'))) {
      out.push(relative(root, path));
    }
  }
  return out.sort();
}
const NEEDS_KAFKA = /inject\(\s*['"]kafkaBrokers['"]\s*\)|\bOwnBroker\b|\bstartKafka\b|kafka\.mjs/;

const kafkaFiles = kafkaTestFiles();

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 300_000,
    pool: 'forks',
    // Two projects so that a run of only the other files (`npx vitest run test/unit`) starts no broker:
    // vitest calls a project's global setup only when that project has a test file queued.
    projects: [
      {
        extends: true,
        test: {
          name: 'kafka',
          include: kafkaFiles,
          // A real Apache Kafka broker (started once, stopped at the end; see docs/kafka-local.md).
          globalSetup: ['test/integration/kafka-global-setup.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'default',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...kafkaFiles],
        },
      },
    ],
  },
});
