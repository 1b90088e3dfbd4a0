/**
 * Migration 014 moves each delivery's body to webhook_delivery_payloads: a queued delivery
 * keeps its exact bytes across the upgrade, is claimed with them, and its body goes with it.
 */
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { kyselyOf } from '../../src/service/store/index.js';
import { migrationProvider } from '../../src/service/store/migrations/index.js';
import { claimDueDeliveries } from '../../src/service/store/webhook-deliveries.js';
import { freshStores } from '../helpers/fresh-stores.js';
import { ENGINES } from '../helpers/test-service.js';
import { DAY, T0 } from '../server-api/fixtures.js';

describe.each(ENGINES)('migration 014-delivery-payloads (%s)', (engine) => {
  const openFresh = freshStores();

  it('keeps every queued body, byte for byte, in the new table', async () => {
    const { store } = await openFresh(engine);
    const db = kyselyOf(store);
    const migrator = new Migrator({ db, provider: migrationProvider });
    expect((await migrator.migrateTo('013-visitor-links')).error).toBeUndefined();
    await sql`INSERT INTO workspaces (id, name, region, deletion_enabled, created_at) VALUES ('ws_1', 'w', 'us', 0, ${T0})`.execute(db);
    await sql`INSERT INTO webhooks (id, workspace_id, environment_id, url, description, status, verified, legacy, basic_auth_username, basic_auth_password, signing_key, created_at, last_enabled_at, last_disabled_at)
      VALUES ('wh_1', 'ws_1', NULL, 'https://h.example/', NULL, 'enabled', 1, 0, NULL, NULL, NULL, ${T0}, ${T0}, NULL)`.execute(db);
    const bodies = { whd_a: '{"event_id":"a","note":"é ✓"}', whd_b: `{"event_id":"b","pad":"${'x'.repeat(5000)}"}` };
    for (const [id, payload] of Object.entries(bodies)) {
      await sql`INSERT INTO webhook_deliveries (id, webhook_id, event_id, payload, status, attempts, next_attempt_at, give_up_at, leased_until, lease_owner, created_at, delivered_at)
        VALUES (${id}, 'wh_1', ${id}, ${payload}, 'pending', 0, ${T0}, ${T0 + DAY}, NULL, NULL, ${T0}, NULL)`.execute(db);
    }

    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    const moved = await db.selectFrom('webhook_delivery_payloads').selectAll().orderBy('delivery_id').execute();
    expect(moved).toEqual(Object.entries(bodies).map(([delivery_id, payload]) => ({ delivery_id, payload })));
    const claimed = await claimDueDeliveries(store, { owner: 'w1', now: T0, leaseMs: 1000, limit: 10 });
    expect(Object.fromEntries(claimed.map((c) => [c.delivery.id, c.delivery.payload]))).toEqual(bodies);

    // The body goes with its delivery.
    await db.deleteFrom('webhook_deliveries').where('id', '=', 'whd_a').execute();
    expect((await db.selectFrom('webhook_delivery_payloads').select('delivery_id').execute()).map((r) => r.delivery_id)).toEqual(['whd_b']);
  });
});
