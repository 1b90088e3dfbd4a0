import { defineConfig } from 'vitest/config';

// Three projects: agent units in happy-dom, Node units and integration tests against the real
// service (SQLite, PostgreSQL, Redis on this machine), and e2e tests driving Debian's Chromium.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'agent',
          environment: 'happy-dom',
          include: ['test/agent/**/*.test.ts'],
          setupFiles: ['test/agent/helpers/quiet-browser-console.ts'],
        },
      },
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/**/*.test.ts'],
          exclude: ['test/agent/**'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          environment: 'node',
          include: ['e2e/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
