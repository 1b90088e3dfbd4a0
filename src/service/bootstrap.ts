/**
 * First start: create a workspace, its default environment, and a public, a secret and a
 * Management API key. Later starts (and other processes on the same database) read the same
 * records back. A unique settings row makes concurrent first starts create exactly one set.
 */
import { createApiKey, getApiKey } from './store/api-keys.js';
import type { Store } from './store/index.js';
import { claimSetting, getSetting, setSetting } from './store/settings.js';
import { createEnvironment, createWorkspace, type Region } from './store/workspaces.js';

export interface Bootstrap {
  workspaceId: string;
  environmentId: string;
  publicKey: string;
  secretKey: string;
  managementKey: string;
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
  if (existing) return { bootstrap: await resolveKeys(store, existing), created: false };

  const created = await store.transaction(async (trx) => {
    // The row claims the bootstrap: a concurrent starter blocks here, then sees the conflict.
    if (!(await claimSetting(trx, BOOTSTRAP_SETTING, PENDING))) return undefined;
    const workspace = await createWorkspace(trx, { name: 'Default workspace', region: opts.region, now: opts.now });
    const environment = await createEnvironment(trx, { workspaceId: workspace.id, name: 'Default environment', now: opts.now });
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
    return record;
  });
  if (created) return { bootstrap: await resolveKeys(store, created), created: true };

  const other = await readBootstrapRecord(store);
  if (!other) throw new Error('bootstrap record missing after a concurrent first start');
  return { bootstrap: await resolveKeys(store, other), created: false };
}

async function readBootstrapRecord(store: Store): Promise<BootstrapRecord | undefined> {
  const value = await getSetting(store, BOOTSTRAP_SETTING);
  if (value === undefined || value === PENDING) return undefined;
  return JSON.parse(value) as BootstrapRecord;
}

async function resolveKeys(store: Store, record: BootstrapRecord): Promise<Bootstrap> {
  const token = async (id: string) => {
    const key = await getApiKey(store, id);
    if (!key) throw new Error(`bootstrap API key ${id} no longer exists`);
    return key.token;
  };
  return {
    workspaceId: record.workspaceId,
    environmentId: record.environmentId,
    publicKey: await token(record.publicKeyId),
    secretKey: await token(record.secretKeyId),
    managementKey: await token(record.managementKeyId),
  };
}
