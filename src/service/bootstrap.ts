/**
 * First start: create a workspace, its default environment, and a public, a secret and a
 * Management API key. Later starts (and other processes on the same database) read the same
 * records back. A unique settings row makes concurrent first starts create exactly one set.
 *
 * Secret and management tokens are stored only as hashes: only the start that creates them
 * can return them. Later starts return the key ids (and the public key, which is kept plain).
 */
import { createApiKey, getApiKey } from './store/api-keys.js';
import type { Store } from './store/index.js';
import { claimSetting, getSetting, setSetting } from './store/settings.js';
import { createEnvironment } from './store/environments.js';
import { createWorkspace, type Region } from './store/workspaces.js';

export interface Bootstrap {
  workspaceId: string;
  environmentId: string;
  publicKey: string;
  publicKeyId: string;
  /** The tokens: only from the start that created them (null later: they are stored hashed). */
  secretKey: string | null;
  managementKey: string | null;
  secretKeyId: string;
  managementKeyId: string;
}

interface BootstrapRecord {
  workspaceId: string;
  environmentId: string;
  publicKeyId: string;
  secretKeyId: string;
  managementKeyId: string;
}

const BOOTSTRAP_SETTING = 'bootstrap';
const PENDING = 'pending';

export async function ensureBootstrap(
  store: Store,
  opts: { region: Region; now: number },
): Promise<{ bootstrap: Bootstrap; created: boolean }> {
  const existing = await readBootstrapRecord(store);
  if (existing) return { bootstrap: await readBack(store, existing), created: false };

  const created = await store.transaction(async (trx) => {
    // The row claims the bootstrap: a concurrent starter blocks here, then sees the conflict.
    if (!(await claimSetting(trx, BOOTSTRAP_SETTING, PENDING))) return undefined;
    const workspace = await createWorkspace(trx, { name: 'Default workspace', region: opts.region, now: opts.now });
    const environment = await createEnvironment(trx, { workspaceId: workspace.id, name: 'Default environment', isDefault: true, now: opts.now });
    const common = { workspaceId: workspace.id, now: opts.now };
    const publicKey = await createApiKey(trx, { ...common, environmentId: environment.id, type: 'public', name: 'Default public key' });
    const secretKey = await createApiKey(trx, { ...common, environmentId: null, type: 'secret', name: 'Default secret key' });
    const managementKey = await createApiKey(trx, { ...common, environmentId: null, type: 'management', name: 'Default Management API key' });
    const record: BootstrapRecord = {
      workspaceId: workspace.id,
      environmentId: environment.id,
      publicKeyId: publicKey.id,
      secretKeyId: secretKey.id,
      managementKeyId: managementKey.id,
    };
    await setSetting(trx, BOOTSTRAP_SETTING, JSON.stringify(record));
    const bootstrap: Bootstrap = {
      ...record,
      publicKey: publicKey.token,
      secretKey: secretKey.token,
      managementKey: managementKey.token,
    };
    return bootstrap;
  });
  if (created) return { bootstrap: created, created: true };

  const other = await readBootstrapRecord(store);
  if (!other) throw new Error('bootstrap record missing after a concurrent first start');
  return { bootstrap: await readBack(store, other), created: false };
}

async function readBootstrapRecord(store: Store): Promise<BootstrapRecord | undefined> {
  const value = await getSetting(store, BOOTSTRAP_SETTING);
  if (value === undefined || value === PENDING) return undefined;
  return JSON.parse(value) as BootstrapRecord;
}

async function readBack(store: Store, record: BootstrapRecord): Promise<Bootstrap> {
  const publicKey = await getApiKey(store, record.publicKeyId);
  if (!publicKey?.token) throw new Error(`bootstrap public API key ${record.publicKeyId} no longer exists`);
  return { ...record, publicKey: publicKey.token, secretKey: null, managementKey: null };
}
