import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'packages/*/test/**/*.test.ts',
      'services/*/test/**/*.test.ts',
      'infra/*/test/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    // PostgreSQL and NATS for every test file (the machine's, or the run's own), and the system
    // tools the tests drive: a missing one stops the run before any test.
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Services run as processes and the machine is small: give asynchronous effects time to land.
    expect: { poll: { timeout: 10_000, interval: 50 } },
  },
});
