/** Webhooks: the HTTPS endpoints identification events are sent to. */
import { holdEnvironment } from './environments.js';
import { internalsOf, type Store } from './handle.js';
import { newId, randomString } from './ids.js';
import type { WebhooksTable } from './schema.js';
import { SENDING_COLUMNS, type ClaimedDelivery } from './webhook-deliveries.js';

export async function createWebhook(
  store: Store,
  opts: {
    workspaceId: string;
    environmentId: string | null;
    url: string;
    description?: string | null;
    status?: WebhooksTable['status'];
    legacy?: boolean;
    basicAuth?: { username: string; password: string } | null;
    /** Give the webhook a signing key (the `FPJS-Event-Signature` header); default true. */
    signed?: boolean;
    now: number;
  },
): Promise<WebhooksTable> {
  const status = opts.status ?? 'enabled';
  const row: WebhooksTable = {
    id: newId('wh'),
    workspace_id: opts.workspaceId,
    environment_id: opts.environmentId,
    url: opts.url,
    description: opts.description ?? null,
    status,
    verified: 0,
    legacy: opts.legacy ? 1 : 0,
    basic_auth_username: opts.basicAuth?.username ?? null,
    basic_auth_password: opts.basicAuth?.password ?? null,
    signing_key: opts.signed === false ? null : randomString(40),
    created_at: opts.now,
    last_enabled_at: status === 'enabled' ? opts.now : null,
    last_disabled_at: status === 'disabled' ? opts.now : null,
  };
  await store.transaction(async (trx) => {
    // The environment must still exist, and cannot be deleted before this commits.
    if (row.environment_id !== null) await holdEnvironment(trx, row.environment_id);
    await internalsOf(trx).db.insertInto('webhooks').values(row).execute();
  });
  internalsOf(store).state.readCaches.invalidate();
  return row;
}

export async function getWebhook(store: Store, workspaceId: string, id: string): Promise<WebhooksTable | undefined> {
  return internalsOf(store)
    .db.selectFrom('webhooks')
    .selectAll()
    .where('workspace_id', '=', workspaceId)
    .where('id', '=', id)
    .executeTakeFirst();
}

/** One page of a workspace's webhooks, oldest first, optionally filtered. */
export async function listWebhooksPage(
  store: Store,
  workspaceId: string,
  filter: { status?: WebhooksTable['status']; environmentId?: string },
  window: { offset: number; limit: number },
): Promise<WebhooksTable[]> {
  let q = internalsOf(store).db.selectFrom('webhooks').selectAll().where('workspace_id', '=', workspaceId);
  if (filter.status) q = q.where('status', '=', filter.status);
  if (filter.environmentId) q = q.where('environment_id', '=', filter.environmentId);
  return q.orderBy('created_at').orderBy('id').limit(window.limit).offset(window.offset).execute();
}

export interface WebhookChanges {
  url?: string;
  description?: string | null;
  status?: WebhooksTable['status'];
  basicAuth?: { username: string; password: string } | null;
  verified?: boolean;
}

/**
 * Applies the given changes; returns the updated webhook, or undefined when it does not exist.
 * A status change stamps last_enabled_at / last_disabled_at; a new URL must be verified again.
 */
export async function updateWebhook(
  store: Store,
  workspaceId: string,
  id: string,
  changes: WebhookChanges,
  now: number,
): Promise<WebhooksTable | undefined> {
  return store.transaction(async (trx) => {
    const current = await getWebhook(trx, workspaceId, id);
    if (!current) return undefined;
    const next: Partial<WebhooksTable> = {};
    if (changes.url !== undefined && changes.url !== current.url) {
      next.url = changes.url;
      next.verified = 0;
    }
    if (changes.description !== undefined) next.description = changes.description;
    if (changes.status !== undefined && changes.status !== current.status) {
      next.status = changes.status;
      if (changes.status === 'enabled') next.last_enabled_at = now;
      else next.last_disabled_at = now;
    }
    if (changes.basicAuth !== undefined) {
      next.basic_auth_username = changes.basicAuth?.username ?? null;
      next.basic_auth_password = changes.basicAuth?.password ?? null;
    }
    if (changes.verified !== undefined) next.verified = changes.verified ? 1 : 0;
    const { db, state } = internalsOf(trx);
    if (Object.keys(next).length > 0) {
      await db.updateTable('webhooks').set(next).where('id', '=', id).execute();
      state.readCaches.invalidate();
    }
    return { ...current, ...next };
  });
}

/** Deletes a webhook with its pending deliveries and attempt log; false when it does not exist. */
export async function deleteWebhook(store: Store, workspaceId: string, id: string): Promise<boolean> {
  const { db, state } = internalsOf(store);
  const result = await db.deleteFrom('webhooks').where('workspace_id', '=', workspaceId).where('id', '=', id).executeTakeFirst();
  state.readCaches.invalidate();
  return Number(result.numDeletedRows) > 0;
}

/** What the outbox needs of a webhook that receives events: its format, and what sending needs. */
export type ActiveWebhook = ClaimedDelivery['webhook'] & Pick<WebhooksTable, 'legacy'>;

/**
 * The webhooks an event of this environment goes to: the environment's own and the workspace's
 * global ones, enabled and verified. Read on every identification, so cached (read-cache.ts);
 * an environment without webhooks costs a map lookup.
 */
export async function listActiveWebhooksCached(store: Store, workspaceId: string, environmentId: string): Promise<readonly ActiveWebhook[]> {
  return internalsOf(store).state.readCaches.get('activeWebhooks', `${workspaceId}\n${environmentId}`, async () => {
    const rows = await internalsOf(store)
      .db.selectFrom('webhooks')
      .select([...SENDING_COLUMNS, 'legacy'])
      .where('workspace_id', '=', workspaceId)
      .where((eb) => eb.or([eb('environment_id', '=', environmentId), eb('environment_id', 'is', null)]))
      .where('status', '=', 'enabled')
      .where('verified', '=', 1)
      .orderBy('id')
      .execute();
    return Object.freeze(rows.map((r) => Object.freeze(r)));
  });
}

/**
 * Whether the store holds any webhook at all (enabled or not). Deliveries belong to a webhook
 * (deleted with it), so without one there is nothing to claim: the webhook worker asks this,
 * from the read cache, before its claim, instead of running the claim's write statement 5 times
 * a second in the many installations that never configure a webhook.
 */
export async function anyWebhookCached(store: Store): Promise<boolean> {
  return internalsOf(store).state.readCaches.get('anyWebhook', '', async () => {
    const row = await internalsOf(store).db.selectFrom('webhooks').select('id').limit(1).executeTakeFirst();
    return row !== undefined;
  });
}
