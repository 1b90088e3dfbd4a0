/**
 * `pg` and `ioredis` are optional dependencies of tessera-id-service: loaded only when
 * DATABASE_URL / REDIS_URL is configured, with an error naming the package when it is missing.
 * In store/, the lowest layer that loads one (the store loads pg, the service entry ioredis).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

function missing(name: string, setting: string, err: unknown): Error {
  const code = (err as { code?: string } | null)?.code;
  if ((code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && String((err as Error).message).includes(`'${name}'`)) {
    return new Error(`${setting} is set but the package "${name}" is not installed: run \`npm install ${name}\` next to tessera-id-service`);
  }
  return err as Error;
}

/** Synchronous load of a CommonJS optional dependency. */
export function requireOptional<T>(name: string, setting: string): T {
  try {
    return require(name) as T;
  } catch (err) {
    throw missing(name, setting, err);
  }
}

export async function importOptional<T>(name: string, setting: string): Promise<T> {
  try {
    return (await import(name)) as T;
  } catch (err) {
    throw missing(name, setting, err);
  }
}
