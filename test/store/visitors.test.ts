/**
 * The visitor store's writes against real databases: which blocking keys a visit writes, when
 * their recency is refreshed and when a key the visitor stopped producing is dropped.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyProfile } from '../../src/service/identification/profile.js';
import { kyselyOf, openStore, type Store } from '../../src/service/store/index.js';
import { insertVisitor, KEY_REFRESH_MS, loadVisitor, recordVisit, STALE_KEY_MS } from '../../src/service/store/visitors.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/test-service.js';

const HOUR = 3600 * 1000;

describe.each(ENGINES)('visitor store writes on %s', (engine) => {
  let testDb: TestDatabase;
  let store: Store;
  const workspaceId = `ws_${randomBytes(6).toString('hex')}`;
  const t0 = Date.UTC(2026, 0, 1);

  beforeAll(async () => {
    testDb = await createTestDatabase(engine);
    store = openStore({ dataDir: testDb.config.dataDir ?? '', ...(testDb.config.databaseUrl ? { databaseUrl: testDb.config.databaseUrl } : {}) });
    await store.migrate();
  });
  afterAll(async () => {
    await store?.destroy();
    await testDb?.drop();
  });

  const keysOf = async (visitorId: string) => {
    const rows = await kyselyOf(store).selectFrom('visitor_keys').select(['key', 'last_seen_at']).where('visitor_id', '=', visitorId).orderBy('key').execute();
    return Object.fromEntries(rows.map((r) => [r.key, Number(r.last_seen_at)]));
  };
  const visit = async (visitorId: string, now: number, keys: string[], withToken = true) => {
    const visitor = await loadVisitor(store, workspaceId, visitorId);
    if (!visitor) throw new Error('visitor not found');
    await recordVisit(store, { workspaceId, visitor, now, profile: emptyProfile(), keys, withToken });
  };

  it('writes new keys at once, refreshes kept ones once a day, drops the ones not seen for 30 days', async () => {
    const id = `v_${randomBytes(6).toString('hex')}`;
    await insertVisitor(store, { workspaceId, visitorId: id, now: t0, profile: emptyProfile(), keys: ['x:a', 'h:b', 'r:c'] });
    expect(await keysOf(id)).toEqual({ 'h:b': t0, 'r:c': t0, 'x:a': t0 });

    // One signal changed: only its key is written; the dropped one stays (alternating values keep matching).
    await visit(id, t0 + HOUR, ['x:a', 'h:b', 'r:d']);
    expect(await keysOf(id)).toEqual({ 'h:b': t0, 'r:c': t0, 'r:d': t0 + HOUR, 'x:a': t0 });

    // The same keys again within a day: nothing to write.
    await visit(id, t0 + 2 * HOUR, ['x:a', 'h:b', 'r:d']);
    expect(await keysOf(id)).toEqual({ 'h:b': t0, 'r:c': t0, 'r:d': t0 + HOUR, 'x:a': t0 });

    // A day after the last refresh every key of the visit is refreshed.
    const nextDay = t0 + KEY_REFRESH_MS;
    await visit(id, nextDay, ['x:a', 'h:b', 'r:d']);
    expect(await keysOf(id)).toEqual({ 'h:b': nextDay, 'r:c': t0, 'r:d': nextDay, 'x:a': nextDay });

    // Keys change after 30 days: the keys not seen since then go, the visit's own stay or come.
    const later = nextDay + STALE_KEY_MS - HOUR;
    await visit(id, later, ['x:e', 'h:b', 'r:d']);
    expect(await keysOf(id)).toEqual({ 'h:b': later, 'r:d': later, 'x:a': nextDay, 'x:e': later });
    const muchLater = nextDay + STALE_KEY_MS + HOUR;
    await visit(id, muchLater, ['x:e', 'h:f', 'r:d']);
    expect(await keysOf(id)).toEqual({ 'h:b': later, 'h:f': muchLater, 'r:d': later, 'x:e': later });
  });

  it('counts the visit, keeps last_seen_at from moving back and last_token_at without a token', async () => {
    const id = `v_${randomBytes(6).toString('hex')}`;
    await insertVisitor(store, { workspaceId, visitorId: id, now: t0, profile: emptyProfile(), keys: [] });
    await visit(id, t0 + 2 * HOUR, [], true);
    await visit(id, t0 + HOUR, [], false);
    const visitor = await loadVisitor(store, workspaceId, id);
    expect(visitor).toMatchObject({ firstSeenAt: t0, lastSeenAt: t0 + 2 * HOUR, lastTokenAt: t0 + 2 * HOUR, visitCount: 3, keys: [] });
    expect(await keysOf(id)).toEqual({});
  });
});
