/**
 * The master key that encrypts encryption-key values at rest (sealing/key-material.ts).
 *
 * Where it comes from:
 * - the `masterKey` option (TESSERA_MASTER_KEY): base64 of 32 bytes; required with PostgreSQL,
 *   where instances share the database but not a disk, so each must be given the same key;
 * - otherwise, with SQLite, the file `master.key` in the data directory, created with mode
 *   600 on the first start. Back it up with the database: without it no key can be read.
 * With PostgreSQL and no option the service still runs, without encryption keys.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const MASTER_KEY_FILE = 'master.key';
const MASTER_KEY_BYTES = 32;

/** The key bytes of a base64 master key; throws a message naming `source` when it is not 32 bytes. */
export function parseMasterKey(text: string, source: string): Uint8Array {
  const trimmed = text.trim();
  const bytes = Buffer.from(trimmed, 'base64');
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed) || bytes.length !== MASTER_KEY_BYTES) {
    throw new Error(`${source} must be the base64 of ${MASTER_KEY_BYTES} bytes (e.g. from: openssl rand -base64 32)`);
  }
  return new Uint8Array(bytes);
}

export function resolveMasterKey(opts: { masterKey?: string; dataDir: string; engine: 'sqlite' | 'postgres' }): Uint8Array | undefined {
  if (opts.masterKey !== undefined) return parseMasterKey(opts.masterKey, 'the master key (TESSERA_MASTER_KEY)');
  if (opts.engine === 'postgres') return undefined;
  return readOrCreateKeyFile(join(resolve(opts.dataDir), MASTER_KEY_FILE));
}

function readOrCreateKeyFile(file: string): Uint8Array {
  mkdirSync(resolve(file, '..'), { recursive: true, mode: 0o700 });
  // Written aside, then linked into place: the link fails when the file exists, so of several
  // processes starting at once one creates it, and no one reads a half-written file.
  const draft = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(draft, randomBytes(MASTER_KEY_BYTES).toString('base64') + '\n', { flag: 'wx', mode: 0o600 });
  try {
    linkSync(draft, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(draft);
  }
  return parseMasterKey(readFileSync(file, 'utf8'), file);
}
