/**
 * The outbox is written in the event's own transaction (store/events.ts): an event is never
 * stored without its deliveries, nor deliveries without their event, also when concurrent
 * inserts are committed together (SQLite group commit, PostgreSQL multi-row statement).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V4Event } from '../../src/events/v4-event.js';
import { ensureBootstrap, type Bootstrap } from '../../src/service/bootstrap.js';
import { countEvents, eventPayload, insertEvent, replaceEventPayload } from '../../src/service/store/events.js';
import { newEventId } from '../../src/service/store/ids.js';
import { kyselyOf, openStore, type Store } from '../../src/service/store/index.js';
import { claimDueDeliveries, recordAttempts } from '../../src/service/store/webhook-deliveries.js';
import { createWebhook } from '../../src/service/store/webhooks.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/test-service.js';

describe.each(ENGINES)('webhook outbox (%s)', (engine) => {
  let database: TestDatabase;
  let store: Store;
  let bootstrap: Bootstrap;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    store = openStore({ dataDir: database.config.dataDir ?? '', databaseUrl: database.config.databaseUrl });
    await store.migrate();
    ({ bootstrap } = await ensureBootstrap(store, { region: 'us', now: Date.now() }));
  });
  afterAll(async () => {
    await store?.destroy();
    await database?.drop();
  });

  function event(): V4Event {
    const now = Date.now();
    return { event_id: newEventId(now), timestamp: now, environment_id: bootstrap.environmentId };
  }

  it('stores events and deliveries together, or neither', async () => {
    const webhook = await createWebhook(store, { workspaceId: bootstrap.workspaceId, environmentId: null, url: 'https://example.com/hook', now: Date.now() });
    const ids = { workspaceId: bootstrap.workspaceId, environmentId: bootstrap.environmentId };
    const good = event();
    const bad = event();
    // Issued in one turn: written in one shared commit or statement first; the bad delivery (its
    // webhook does not exist) fails that write, then each is written alone.
    const [stored, refused] = await Promise.allSettled([
      insertEvent(store, good, ids, { deliveries: [{ webhookId: webhook.id, eventId: good.event_id, payload: '{}' }] }),
      insertEvent(store, bad, ids, { deliveries: [{ webhookId: 'wh_missing', eventId: bad.event_id, payload: '{}' }] }),
    ]);
    expect(stored.status).toBe('fulfilled');
    expect(refused.status).toBe('rejected');

    const deliveries = await kyselyOf(store).selectFrom('webhook_deliveries').select(['event_id', 'status']).execute();
    expect(deliveries).toEqual([{ event_id: good.event_id, status: 'pending' }]);
    expect(await countEvents(store)).toBe(1);
  });

  it("sends a v4 delivery its event's stored payload, without a copy, and keeps that body when the event is updated", async () => {
    const webhook = await createWebhook(store, { workspaceId: bootstrap.workspaceId, environmentId: null, url: 'https://example.com/hook', now: Date.now() });
    const ids = { workspaceId: bootstrap.workspaceId, environmentId: bootstrap.environmentId };
    const [updated, untouched, legacy] = [event(), event(), event()];
    const payloadOf = new Map([updated, untouched, legacy].map((e) => [e.event_id, eventPayload(e)]));
    for (const e of [updated, untouched]) await insertEvent(store, e, ids, { payload: payloadOf.get(e.event_id)!, deliveries: [{ webhookId: webhook.id, eventId: e.event_id }] });
    await insertEvent(store, legacy, ids, { payload: payloadOf.get(legacy.event_id)!, deliveries: [{ webhookId: webhook.id, eventId: legacy.event_id, payload: '{"v3":true}' }] });
    const db = kyselyOf(store);
    const deliveryIds = (await db.selectFrom('webhook_deliveries').select('id').where('event_id', 'in', [...payloadOf.keys()]).execute()).map((d) => d.id);
    // Only the delivery with a body of its own stores one.
    expect(await db.selectFrom('webhook_delivery_payloads').select('payload').where('delivery_id', 'in', deliveryIds).execute()).toEqual([{ payload: '{"v3":true}' }]);

    const replaced = await replaceEventPayload(store, {
      workspaceId: ids.workspaceId,
      eventId: updated.event_id,
      timestamp: updated.timestamp,
      environmentId: ids.environmentId,
      previousPayload: payloadOf.get(updated.event_id)!,
      event: { ...updated, linked_id: 'changed' },
    });
    expect(replaced).toBe(true);
    const claimed = await claimDueDeliveries(store, { owner: 'bodies', now: Date.now(), leaseMs: 30_000, limit: 100 });
    const bodies = Object.fromEntries(claimed.filter((c) => payloadOf.has(c.delivery.event_id)).map((c) => [c.delivery.event_id, c.delivery.payload]));
    expect(bodies).toEqual({
      // Queued before the update: the body it was queued with.
      [updated.event_id]: payloadOf.get(updated.event_id),
      [untouched.event_id]: payloadOf.get(untouched.event_id),
      [legacy.event_id]: '{"v3":true}',
    });
    await recordAttempts(store, 'bodies', claimed.map((c) => ({ deliveryId: c.delivery.id, webhookId: webhook.id, attempt: { attempted_at: Date.now(), http_status: 200, latency_ms: 1, error: null }, outcome: { status: 'delivered' as const } })));
  });

  it("finds the event of a delivery also when its id's time is not the event's", async () => {
    const webhook = await createWebhook(store, { workspaceId: bootstrap.workspaceId, environmentId: null, url: 'https://example.com/hook', now: Date.now() });
    const ids = { workspaceId: bootstrap.workspaceId, environmentId: bootstrap.environmentId };
    const now = Date.now();
    const odd: V4Event = { event_id: newEventId(now - 60_000), timestamp: now, environment_id: bootstrap.environmentId };
    await insertEvent(store, odd, ids, { deliveries: [{ webhookId: webhook.id, eventId: odd.event_id }] });
    const claimed = await claimDueDeliveries(store, { owner: 'odd', now: Date.now(), leaseMs: 30_000, limit: 100 });
    expect(claimed.find((c) => c.delivery.event_id === odd.event_id)?.delivery.payload).toBe(eventPayload(odd));
    await recordAttempts(store, 'odd', claimed.map((c) => ({ deliveryId: c.delivery.id, webhookId: webhook.id, attempt: { attempted_at: Date.now(), http_status: 200, latency_ms: 1, error: null }, outcome: { status: 'delivered' as const } })));
  });

  it('records a batch of attempts when one delivery was deleted during its send', async () => {
    const webhook = await createWebhook(store, { workspaceId: bootstrap.workspaceId, environmentId: null, url: 'https://example.com/hook', now: Date.now() });
    const ids = { workspaceId: bootstrap.workspaceId, environmentId: bootstrap.environmentId };
    const events = [event(), event(), event()];
    for (const e of events) await insertEvent(store, e, ids, { deliveries: [{ webhookId: webhook.id, eventId: e.event_id, payload: '{}' }] });
    const now = Date.now();
    const claimed = await claimDueDeliveries(store, { owner: 'me', now, leaseMs: 30_000, limit: 100 });
    const mine = claimed.filter((c) => events.some((e) => e.event_id === c.delivery.event_id)).map((c) => c.delivery.id);
    expect(mine).toHaveLength(3);
    const [deleted, taken, kept] = mine as [string, string, string];
    await kyselyOf(store).deleteFrom('webhook_deliveries').where('id', '=', deleted).execute();
    // Another worker took this one over after the lease expired.
    await kyselyOf(store).updateTable('webhook_deliveries').set({ lease_owner: 'other' }).where('id', '=', taken).execute();
    const attempt = { attempted_at: now, http_status: 200, latency_ms: 5, error: null };
    const results = await recordAttempts(store, 'me', [deleted, taken, kept].map((deliveryId) => ({ deliveryId, webhookId: webhook.id, attempt, outcome: { status: 'delivered' as const } })));
    expect(results).toEqual(['deleted', 'lease-lost', 'settled']);
    const attempts = await kyselyOf(store).selectFrom('webhook_attempts').select('delivery_id').where('delivery_id', 'in', mine).execute();
    expect(attempts.map((a) => a.delivery_id).sort()).toEqual([taken, kept].sort());
    const states = await kyselyOf(store).selectFrom('webhook_deliveries').select(['id', 'status']).where('id', 'in', [taken, kept]).execute();
    expect(Object.fromEntries(states.map((d) => [d.id, d.status]))).toEqual({ [taken]: 'pending', [kept]: 'delivered' });
  });
});
