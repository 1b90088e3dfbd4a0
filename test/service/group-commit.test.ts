/**
 * Group commit and retention on a real SQLite file: events stored by concurrent requests share
 * a commit, each is durable (visible to another connection) when its insert resolves, and one
 * failing insert fails alone. Retention purges old events of every workspace and keeps the rest.
 */
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { purgeExpiredEvents } from '../../src/service/jobs/retention.js';
import { SQLITE_FILE_NAME } from '../../src/service/store/database.js';
import { countEvents, getEvent, insertEvent } from '../../src/service/store/events.js';
import { DAY, makeEvent, T0 } from '../server-api/fixtures.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';

describe.each(ENGINES)('group commit (%s)', (engine) => {
  let t: TestService;
  beforeEach(async () => {
    t = await startTestService({ engine });
  });
  afterEach(async () => {
    await t.close();
  });

  /** Stored events as another connection sees them: committed data only. */
  async function committedCount(): Promise<number> {
    if (engine === 'postgres') return countEvents(t.service.ctx.store, t.workspaceId);
    const other = new SQLite(join(t.service.ctx.config.dataDir, SQLITE_FILE_NAME), { readonly: true });
    try {
      return (other.prepare('select count(*) as n from events where workspace_id = ?').get(t.workspaceId) as { n: number }).n;
    } finally {
      other.close();
    }
  }

  it('each concurrent insert is committed when it resolves; a failing one fails alone', async () => {
    const db = t.service.ctx.store;
    const ids = { workspaceId: t.workspaceId, environmentId: t.environmentId };
    const stored = makeEvent(T0, 'visitor-a');
    await insertEvent(db, stored, ids);

    const events = Array.from({ length: 20 }, (_, i) => makeEvent(T0 + i, `visitor-${i}`));
    const duplicate = { ...makeEvent(T0, 'visitor-b'), event_id: stored.event_id };
    const outcomes = await Promise.allSettled([
      ...events.slice(0, 10).map((e) => insertEvent(db, e, ids)),
      insertEvent(db, duplicate, ids),
      ...events.slice(10).map((e) => insertEvent(db, e, ids)),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual([...Array(10).fill('fulfilled'), 'rejected', ...Array(10).fill('fulfilled')]);
    expect(await committedCount()).toBe(21);
    // The original event was not overwritten by the failed duplicate.
    expect((await getEvent(db, t.workspaceId, stored.event_id))?.identification?.visitor_id).toBe('visitor-a');
  });
});

describe.each(ENGINES)('retention (%s)', (engine) => {
  let t: TestService;
  beforeEach(async () => {
    t = await startTestService({ engine });
  });
  afterEach(async () => {
    await t.close();
  });

  it('purges events older than the retention period and keeps newer ones', async () => {
    const db = t.service.ctx.store;
    const ids = { workspaceId: t.workspaceId, environmentId: t.environmentId };
    await Promise.all([
      insertEvent(db, makeEvent(T0 - 91 * DAY, 'old-1'), ids),
      insertEvent(db, makeEvent(T0 - 90 * DAY - 1, 'old-2'), ids),
      insertEvent(db, makeEvent(T0 - 89 * DAY, 'kept-1'), ids),
      insertEvent(db, makeEvent(T0, 'kept-2'), ids),
    ]);
    expect(await purgeExpiredEvents(db, T0, 90)).toEqual({ events: 2, deliveries: 0 });
    expect(await countEvents(db, t.workspaceId)).toBe(2);
  });
});
