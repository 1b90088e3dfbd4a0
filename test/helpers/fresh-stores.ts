/** Stores on fresh databases for tests that open their own (migration and store tests). */
import { afterEach } from 'vitest';
import { openTestStore, type Engine, type TestStore } from './test-service.js';

/**
 * Call inside a describe: returns an opener (openTestStore) whose stores are closed, and their
 * databases dropped, after each test of that describe.
 */
export function freshStores(): (engine: Engine, opts?: { poolSize?: number }) => Promise<TestStore> {
  const opened: TestStore[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });
  return async (engine, opts) => {
    const store = await openTestStore(engine, opts);
    opened.push(store);
    return store;
  };
}
