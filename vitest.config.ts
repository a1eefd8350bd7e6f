import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A real Apache Kafka broker for test/integration (started once, stopped at the end; see docs/kafka-local.md).
    globalSetup: ['test/integration/kafka-global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 300_000,
    pool: 'forks',
  },
});
