/**
 * How long the outbox keeps deliveries, through the real service on both engines: settled
 * deliveries (delivered or failed) and their attempts go `webhookRetentionDays` after their last
 * attempt, pending ones stay; every delivery goes with its event when retention purges it (a
 * pending one is then never sent). Purges run in bounded batches. The webhook worker's timer is
 * stopped so that each test decides when deliveries are sent (`webhooks.runOnce()`).
 */
import { Migrator, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../src/service/config.js';
import { serviceConfigFrom } from '../../src/service/cli/options.js';
import { createService, type ServiceConfig } from '../../src/service/index.js';
import { eventColumns, insertEvent, purgeEventsBefore } from '../../src/service/store/events.js';
import { kyselyOf, type Store } from '../../src/service/store/index.js';
import { migrationProvider } from '../../src/service/store/migrations/index.js';
import { listDeliveries, purgeSettledDeliveries } from '../../src/service/store/webhook-deliveries.js';
import { updateWebhook } from '../../src/service/store/webhooks.js';
import { updateWorkspaceSettings } from '../../src/service/store/workspaces.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { freshStores } from '../helpers/fresh-stores.js';
import { ENGINES, type TestService } from '../helpers/test-service.js';
import { mgmt } from '../management-api/helpers.js';
import { DAY, makeEvent, manualClock, T0 } from '../server-api/fixtures.js';
import { createVerifiedWebhook, startServiceFor } from './helpers.js';
import { startReceiver, type Receiver } from './receiver.js';

const MINUTE = 60 * 1000;

async function rowCounts(store: Store): Promise<{ deliveries: number; attempts: number; events: number }> {
  const db = kyselyOf(store);
  const count = async (table: 'webhook_deliveries' | 'webhook_attempts' | 'events') =>
    Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return { deliveries: await count('webhook_deliveries'), attempts: await count('webhook_attempts'), events: await count('events') };
}

describe.each(ENGINES)('webhook delivery retention (%s)', (engine) => {
  let receiver: Receiver;
  let t: TestService | undefined;
  const clock = manualClock();

  beforeEach(async () => {
    clock.set(T0);
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
    await receiver.close();
  });

  async function start(config: Partial<ServiceConfig> = {}): Promise<TestService> {
    t = await startServiceFor(receiver, { engine, config: { clock: clock.now, ...config } });
    // Sends happen when the test says so.
    await t.service.webhooks.stop();
    return t;
  }

  async function identify(t: TestService): Promise<string> {
    const res = await postIdentify(t.url, identifyRequest(t.keys.publicKey));
    expect(res.status).toBe(200);
    return res.json.event_id as string;
  }

  it('deletes delivered and failed deliveries with their attempts 7 days after the last attempt; pending ones stay', async () => {
    const t = await start();
    const store = t.service.ctx.store;
    const ok = await createVerifiedWebhook(store, { workspaceId: t.workspaceId, environmentId: null, url: receiver.url });
    const off = await createVerifiedWebhook(store, { workspaceId: t.workspaceId, environmentId: null, url: receiver.url });
    const eventId = await identify(t);
    // Disabled after the event was queued: its delivery ends as failed without a request.
    await updateWebhook(store, t.workspaceId, off.id, { status: 'disabled' }, clock.now());
    expect(await t.service.webhooks.runOnce()).toBe(2);
    expect(receiver.requests).toHaveLength(1);
    const [delivered] = await listDeliveries(store, ok.id);
    const [failed] = await listDeliveries(store, off.id);
    expect(delivered).toMatchObject({ event_id: eventId, status: 'delivered' });
    expect(failed).toMatchObject({ event_id: eventId, status: 'failed' });

    // A later event whose delivery is still pending (nothing sends it).
    clock.set(T0 + MINUTE);
    const pendingEventId = await identify(t);
    const [pending] = await listDeliveries(store, ok.id);
    expect(pending).toMatchObject({ event_id: pendingEventId, status: 'pending' });
    expect(await rowCounts(store)).toEqual({ deliveries: 3, attempts: 2, events: 2 });

    // Just under 7 days after the attempts: everything is kept.
    clock.set(T0 + 7 * DAY - MINUTE);
    await t.service.jobs.runOnce();
    expect(await rowCounts(store)).toEqual({ deliveries: 3, attempts: 2, events: 2 });

    clock.set(T0 + 7 * DAY + MINUTE);
    await t.service.jobs.runOnce();
    expect(await rowCounts(store)).toEqual({ deliveries: 1, attempts: 0, events: 2 });
    expect((await listDeliveries(store, ok.id)).map((d) => d.id)).toEqual([pending!.id]);
    // Through the Management API: no attempts are listed, the purged delivery cannot be resent.
    const attempts = await mgmt(t, 'GET', `/webhooks/${ok.id}/attempts`);
    expect(attempts.status).toBe(200);
    expect(attempts.body.data).toEqual([]);
    const resend = await mgmt(t, 'POST', `/webhooks/${ok.id}/deliveries/${delivered!.id}/resend`);
    expect(resend.status).toBe(404);
    // The events themselves are within the data retention period.
    expect((await fetch(`${t.url}/v4/events/${eventId}`, { headers: { Authorization: `Bearer ${t.keys.secretKey}` } })).status).toBe(200);

    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toContain('tessera_retention_purged_total{table="webhook_deliveries"} 2');
    expect(metrics).toContain('tessera_retention_purged_total{table="events"} 0');
  });

  it('a resent delivery counts from its new attempt', async () => {
    const t = await start({ webhookRetentionDays: 2 });
    const store = t.service.ctx.store;
    const webhook = await createVerifiedWebhook(store, { workspaceId: t.workspaceId, environmentId: null, url: receiver.url });
    await identify(t);
    await t.service.webhooks.runOnce();
    const [delivery] = await listDeliveries(store, webhook.id);
    expect(delivery!.status).toBe('delivered');

    clock.set(T0 + DAY + MINUTE);
    expect((await mgmt(t, 'POST', `/webhooks/${webhook.id}/deliveries/${delivery!.id}/resend`)).status).toBe(200);
    await t.service.webhooks.runOnce();
    expect(receiver.requests).toHaveLength(2);

    // Two days after the first attempt, one after the resend: kept.
    clock.set(T0 + 2 * DAY + MINUTE);
    await t.service.jobs.runOnce();
    expect(await rowCounts(store)).toMatchObject({ deliveries: 1, attempts: 2 });
    clock.set(T0 + 3 * DAY + 2 * MINUTE);
    await t.service.jobs.runOnce();
    expect(await rowCounts(store)).toMatchObject({ deliveries: 0, attempts: 0 });
  });

  it('retention deletes the deliveries of the events it purges, pending ones too: they are never sent', async () => {
    const t = await start({ retentionDays: 30 });
    const store = t.service.ctx.store;
    const webhook = await createVerifiedWebhook(store, { workspaceId: t.workspaceId, environmentId: null, url: receiver.url });
    // An event 31 days old, sent once (delivered), and one whose delivery is still pending.
    clock.set(T0 - 31 * DAY);
    const delivered = await identify(t);
    await t.service.webhooks.runOnce();
    const expired = await identify(t);
    clock.set(T0 - DAY);
    const recent = await identify(t);
    expect(receiver.requests).toHaveLength(1);
    expect(await rowCounts(store)).toEqual({ deliveries: 3, attempts: 1, events: 3 });

    clock.set(T0);
    await t.service.jobs.runOnce();
    expect(await rowCounts(store)).toEqual({ deliveries: 1, attempts: 0, events: 1 });
    expect((await listDeliveries(store, webhook.id)).map((d) => d.event_id)).toEqual([recent]);

    // Only the recent event is sent now.
    await t.service.webhooks.runOnce();
    expect(receiver.requests.map((r) => JSON.parse(r.body).event_id)).toEqual([delivered, recent]);
    expect(receiver.requests.some((r) => r.body.includes(expired))).toBe(false);
    const metrics = await (await fetch(`${t.url}/metrics`)).text();
    expect(metrics).toContain('tessera_retention_purged_total{table="events"} 2');
    expect(metrics).toContain('tessera_retention_purged_total{table="webhook_deliveries"} 2');
  });

  it("a workspace's shorter retention takes its deliveries with its events", async () => {
    const t = await start({ webhookRetentionDays: 30 });
    const store = t.service.ctx.store;
    await updateWorkspaceSettings(store, t.workspaceId, { retentionDays: 1 });
    await createVerifiedWebhook(store, { workspaceId: t.workspaceId, environmentId: null, url: receiver.url });
    await identify(t);
    await t.service.webhooks.runOnce();
    clock.set(T0 + DAY + MINUTE);
    await t.service.jobs.runOnce();
    expect(await rowCounts(store)).toEqual({ deliveries: 0, attempts: 0, events: 0 });
  });

  it('purges in batches: many rows, small batches, all gone', async () => {
    const t = await start();
    const store = t.service.ctx.store;
    const webhook = await createVerifiedWebhook(store, { workspaceId: t.workspaceId, environmentId: null, url: receiver.url });
    const ids = { workspaceId: t.workspaceId, environmentId: t.environmentId };
    for (let i = 0; i < 12; i++) {
      const event = makeEvent(T0 - 100 * DAY + i, `visBatch${i}`, { environment_id: t.environmentId });
      await insertEvent(store, event, ids, { deliveries: [{ webhookId: webhook.id, eventId: event.event_id, payload: JSON.stringify(event) }], now: event.timestamp });
    }
    for (let i = 0; i < 7; i++) {
      const event = makeEvent(T0 - DAY + i, `visSettled${i}`, { environment_id: t.environmentId });
      await insertEvent(store, event, ids, { deliveries: [{ webhookId: webhook.id, eventId: event.event_id, payload: JSON.stringify(event) }], now: event.timestamp });
    }
    await kyselyOf(store).updateTable('webhook_deliveries').set({ status: 'delivered' }).where('next_attempt_at', '>', T0 - 2 * DAY).execute();

    expect(await purgeEventsBefore(store, T0 - 90 * DAY, 5)).toEqual({ events: 12, deliveries: 12 });
    expect(await purgeSettledDeliveries(store, T0, 3)).toBe(7);
    expect(await rowCounts(store)).toEqual({ deliveries: 0, attempts: 0, events: 7 });
  });
});

describe('--webhook-retention-days', () => {
  it('defaults to 7, is read from the flag or TESSERA_WEBHOOK_RETENTION_DAYS, and must be positive', async () => {
    expect(resolveConfig().webhookRetentionDays).toBe(7);
    expect(serviceConfigFrom({ 'webhook-retention-days': '3' }, {})).toEqual({ webhookRetentionDays: 3 });
    expect(serviceConfigFrom({}, { TESSERA_WEBHOOK_RETENTION_DAYS: '14' })).toEqual({ webhookRetentionDays: 14 });
    expect(() => resolveConfig({ webhookRetentionDays: 0 })).toThrow('webhook retention days must be positive (got 0)');
    await expect(createService({ webhookRetentionDays: -1, logLevel: 'silent' })).rejects.toThrow('webhook retention days must be positive');
  });
});

describe.each(ENGINES)('migration 010-delivery-event-index (%s)', (engine) => {
  const openFresh = freshStores();

  it('deletes the deliveries (and attempts) whose event no longer exists', async () => {
    const { store } = await openFresh(engine);
    const db = kyselyOf(store);
    const migrator = new Migrator({ db, provider: migrationProvider });
    expect((await migrator.migrateTo('009-search-columns')).error).toBeUndefined();
    await db.insertInto('workspaces').values({ id: 'ws_1', name: 'w', region: 'us', deletion_enabled: 0, created_at: T0 }).execute();
    await sql`INSERT INTO environments (id, workspace_id, name, is_default, created_at) VALUES ('ae_1', 'ws_1', 'e', 1, ${T0})`.execute(db);
    const kept = makeEvent(T0, 'vis');
    await db.insertInto('events').values(eventColumns(kept, { workspaceId: 'ws_1', environmentId: 'ae_1' })).execute();
    await db
      .insertInto('webhooks')
      .values({ id: 'wh_1', workspace_id: 'ws_1', environment_id: null, url: 'https://h.example/', description: null, status: 'enabled', verified: 1, legacy: 0, basic_auth_username: null, basic_auth_password: null, signing_key: null, created_at: T0, last_enabled_at: T0, last_disabled_at: null })
      .execute();
    const delivery = (id: string, eventId: string) => ({
      id, webhook_id: 'wh_1', event_id: eventId, payload: '{}', status: 'pending' as const, attempts: 1, next_attempt_at: T0, give_up_at: T0 + DAY,
      leased_until: null, lease_owner: null, created_at: T0, delivered_at: null,
    });
    await db.insertInto('webhook_deliveries').values([delivery('whd_kept', kept.event_id), delivery('whd_orphan', 'gone.event')]).execute();
    await db.insertInto('webhook_attempts').values({ id: 'wha_1', delivery_id: 'whd_orphan', webhook_id: 'wh_1', attempted_at: T0, http_status: 500, latency_ms: 3, error: null }).execute();

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    expect((await db.selectFrom('webhook_deliveries').select('id').execute()).map((r) => r.id)).toEqual(['whd_kept']);
    expect(await db.selectFrom('webhook_attempts').select('id').execute()).toEqual([]);
  });
});
