/**
 * The installation's secret for signing visitor tokens (created once, shared by all processes).
 *
 * SQLite: kept in `visitor-token.key` (mode 600) in the data directory, not in the database,
 * so that a copy of the database (a backup, a file shared for debugging) cannot forge tokens.
 * PostgreSQL: instances share the database but usually no directory, so the secret stays in
 * the settings table (docs/security.md says how to protect it).
 *
 * Databases from before kept it in the settings table on SQLite too: the first start moves it
 * to the file and removes the row, so the tokens already issued stay valid.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ensurePrivateFile, PRIVATE_FILE_MODE, type Warn } from './store/file-modes.js';
import type { Store } from './store/index.js';
import { deleteSetting, getOrCreateSetting, getSetting } from './store/settings.js';

export const TOKEN_SECRET_FILE = 'visitor-token.key';
const TOKEN_SECRET_SETTING = 'visitor_token_secret';

const newSecret = () => randomBytes(32).toString('base64url');

function decode(value: string): Uint8Array {
  return new Uint8Array(Buffer.from(value.trim(), 'base64url'));
}

export async function visitorTokenSecret(store: Store, opts: { dataDir: string; warn: Warn }): Promise<Uint8Array> {
  if (store.engine === 'postgres') return decode(await getOrCreateSetting(store, TOKEN_SECRET_SETTING, newSecret));

  const file = join(resolve(opts.dataDir), TOKEN_SECRET_FILE);
  const legacy = await getSetting(store, TOKEN_SECRET_SETTING);
  let created = false;
  try {
    // Exclusive: of two processes starting together, one writes and both read the same file.
    writeFileSync(file, legacy ?? newSecret(), { flag: 'wx', mode: PRIVATE_FILE_MODE });
    created = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  ensurePrivateFile(file, opts.warn, created);
  const secret = readFileSync(file, 'utf8');
  // Only once the file holds it: a crash before this line leaves both, and the next start ends here.
  if (legacy !== undefined) await deleteSetting(store, TOKEN_SECRET_SETTING);
  return decode(secret);
}
