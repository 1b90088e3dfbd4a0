/** pg and ioredis are optional dependencies of tessera-id-service: a missing one is named. */
import { expect, it } from 'vitest';
import { importOptional, requireOptional } from '../../src/service/store/optional-dependency.js';

it('names the package to install when an optional dependency is missing', async () => {
  expect(() => requireOptional('tessera-no-such-package', 'DATABASE_URL')).toThrow(
    'DATABASE_URL is set but the package "tessera-no-such-package" is not installed: run `npm install tessera-no-such-package` next to tessera-id-service',
  );
  await expect(importOptional('tessera-no-such-package', 'REDIS_URL')).rejects.toThrow(/REDIS_URL is set but the package "tessera-no-such-package" is not installed/);
});

it('loads an installed one', async () => {
  expect(typeof requireOptional<{ Pool: unknown }>('pg', 'DATABASE_URL').Pool).toBe('function');
  expect(typeof (await importOptional<{ Redis: unknown }>('ioredis', 'REDIS_URL')).Redis).toBe('function');
});
