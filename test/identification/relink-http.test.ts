/**
 * Relinking through the real service over HTTP, on both engines: a browser loses its storage,
 * gets a new ID on a carrier network, and a later visit from its home network moves the new
 * storage back to its first ID; the Server API then shows both IDs' events under that one. And
 * a young ID whose stable signals contradict the earlier one is never relinked.
 */
import { describe, expect, it } from 'vitest';
import type { Signals } from '../../src/protocol/index.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { setWorkspaceDeletionEnabled } from '../../src/service/store/workspaces.js';
import { browserVisit, servicePerTest } from '../helpers/browser-visits.js';
import { ENGINES } from '../helpers/test-service.js';
import { call } from '../server-api/fixtures.js';
import { windowsChrome } from './fixtures.js';

const HOUR = 3600 * 1000;
const DAY = 24 * HOUR;

describe.each(ENGINES)('relinking over HTTP (%s)', (engine) => {
  let now = Date.UTC(2026, 0, 5, 12);
  const service = servicePerTest(engine, () => now);

  /** A browser's visit, six hours after the previous one. */
  async function visit(signals: Signals, ip: string, token?: string) {
    now += 6 * HOUR;
    return browserVisit(service(), signals, ip, token);
  }

  const eventVisitorIds = async (visitorId: string) => {
    const res = await call(service(), 'GET', `/v4/events?visitor_id=${visitorId}&start=${now - 30 * DAY}&end=${now + DAY}&limit=100`);
    expect(res.status).toBe(200);
    return (res.body.events as { identification: { visitor_id: string } }[]).map((e) => e.identification.visitor_id);
  };

  it('moves a storage created after a storage loss back to the first ID, with a token that keeps it', async () => {
    const laptop: Signals = { ...windowsChrome(), fonts: [...windowsChrome().fonts!, 'Relink Http Font'].sort() };
    const home = '198.51.100.7';
    // Days of visits at home with the browser's first storage.
    let first = await visit(laptop, home);
    const firstId = first.visitor_id;
    for (let i = 0; i < 3; i++) first = await visit(laptop, home, first.token);
    expect(first.visitor_id).toBe(firstId);

    // The storage is cleared; the next visit comes from a carrier network: a look-alike of the
    // first ID, but not singled out, so a new ID.
    now += 2 * DAY;
    const lost = await visit(laptop, '100.64.37.20');
    expect(lost.visitor_id).not.toBe(firstId);
    expect(lost.confidence.comment).toMatch(/look-alike/);
    const youngId = lost.visitor_id;
    const young = await visit(laptop, '100.64.37.20', lost.token);
    expect(young.visitor_id).toBe(youngId);

    // Back home, with the new storage's token: relinked to the first ID.
    const back = await visit(laptop, home, young.token);
    expect(back.visitor_id).toBe(firstId);
    expect(back.visitor_found).toBe(true);
    expect(back.confidence.comment).toMatch(new RegExp(`^relinked: this storage's visitor ID ${youngId}, created while look-alike visitors existed, now matches this earlier visitor: signals match; seen on this network`));

    // The re-issued token keeps the first ID from anywhere; so does a stale copy of the young
    // ID's token (another tab), which now resolves through the link.
    const later = await visit(laptop, '100.64.99.3', back.token);
    expect(later.visitor_id).toBe(firstId);
    expect(later.confidence.comment).toBeUndefined();
    expect((await visit(laptop, '100.64.99.3', young.token)).visitor_id).toBe(firstId);

    // The young ID is retired: no row, no keys, a link to the first ID.
    const db = kyselyOf(service().service.ctx.store);
    expect(await db.selectFrom('visitors').select('visitor_id').where('visitor_id', '=', youngId).execute()).toHaveLength(0);
    expect(await db.selectFrom('visitor_keys').select('key').where('visitor_id', '=', youngId).execute()).toHaveLength(0);
    const links = await db.selectFrom('visitor_links').selectAll().where('absorbed_id', '=', youngId).execute();
    expect(links.map((l) => l.surviving_id)).toEqual([firstId]);

    // The Server API shows both IDs' events under the first one; each event keeps the ID it was answered with.
    const ids = await eventVisitorIds(firstId);
    expect(ids.filter((id) => id === youngId)).toHaveLength(2);
    expect(ids.filter((id) => id === firstId)).toHaveLength(4 + 3);
    // The young ID alone still finds its own two events.
    expect(await eventVisitorIds(youngId)).toEqual([youngId, youngId]);
    // Paging by visitor walks through the merged history.
    const page1 = await call(service(), 'GET', `/v4/events?visitor_id=${firstId}&start=${now - 30 * DAY}&end=${now + DAY}&limit=5`);
    const page2 = await call(service(), 'GET', `/v4/events?visitor_id=${firstId}&start=${now - 30 * DAY}&end=${now + DAY}&limit=5&pagination_key=${page1.body.pagination_key}`);
    const paged = [...page1.body.events, ...page2.body.events] as { event_id: string; timestamp: number }[];
    expect(paged).toHaveLength(9);
    expect(new Set(paged.map((e) => e.event_id)).size).toBe(9);
    expect(paged.map((e) => e.timestamp)).toEqual([...paged.map((e) => e.timestamp)].sort((a, b) => b - a));
    // The legacy visitor history too.
    const history = await call(service(), 'GET', `/visitors/${firstId}?limit=20`);
    expect(history.status).toBe(200);
    expect(history.body.visitorId).toBe(firstId);
    const withLinked = await call(service(), 'GET', `/visitors/${firstId}?request_id=${paged.find((e) => (e as unknown as { identification: { visitor_id: string } }).identification.visitor_id === youngId)!.event_id}`);
    expect(withLinked.body.visits).toHaveLength(1);

    // Deleting the first visitor deletes the relinked ID's recent events and the link too.
    await setWorkspaceDeletionEnabled(service().service.ctx.store, service().workspaceId, true);
    expect((await call(service(), 'DELETE', `/v4/visitors/${firstId}`)).status).toBe(200);
    now += 10_000;
    await service().service.jobs.runOnce();
    expect(await eventVisitorIds(youngId)).toEqual([]);
    expect(await eventVisitorIds(firstId)).toEqual([]);
    expect(await db.selectFrom('visitor_links').selectAll().where('absorbed_id', '=', youngId).execute()).toHaveLength(0);
    expect((await visit(laptop, '100.64.99.3', young.token)).visitor_id).not.toBe(firstId);
  });

  it('weighs a young ID again only when its evidence changed or an hour passed, and then relinks it', async () => {
    const laptop: Signals = { ...windowsChrome(), fonts: [...windowsChrome().fonts!, 'Relink Recheck Font'].sort() };
    const home = '198.51.102.7';
    const carrier = '100.64.38.20';
    let first = await visit(laptop, home);
    const firstId = first.visitor_id;
    for (let i = 0; i < 3; i++) first = await visit(laptop, home, first.token);
    now += 2 * DAY;
    const lost = await visit(laptop, carrier);
    expect(lost.visitor_id).not.toBe(firstId);
    const db = kyselyOf(service().service.ctx.store);
    const checkedAt = async () => {
      const row = await db.selectFrom('visitors').select('profile').where('visitor_id', '=', lost.visitor_id).executeTakeFirstOrThrow();
      return (JSON.parse(row.profile) as { relinkCheckedAt?: number }).relinkCheckedAt;
    };
    // Created among look-alikes: that decision weighed them.
    const created = now;
    expect(await checkedAt()).toBe(created);
    // Ten minutes later, same network, same signals: the same question, not asked again.
    now -= 6 * HOUR - 10 * 60 * 1000;
    const again = await visit(laptop, carrier, lost.token);
    expect(again.visitor_id).toBe(lost.visitor_id);
    expect(await checkedAt()).toBe(created);
    // Over an hour later: weighed again (and kept: a carrier network is no home).
    now -= 6 * HOUR - 2 * HOUR;
    const later = await visit(laptop, carrier, again.token);
    expect(later.visitor_id).toBe(lost.visitor_id);
    expect(await checkedAt()).toBe(now);
    // Minutes later from home: another network, so weighed at once (kept: the first ID, which
    // came every six hours, has not been quiet long enough yet).
    now -= 6 * HOUR - 5 * 60 * 1000;
    const home1 = await visit(laptop, home, later.token);
    expect(home1.visitor_id).toBe(lost.visitor_id);
    expect(await checkedAt()).toBe(now);
    // Hours later, from home again: weighed again, and the first ID's silence now singles it out.
    const home2 = await visit(laptop, home, home1.token);
    expect(home2.visitor_id).toBe(firstId);
  });

  it('never relinks a young ID whose stable signals contradict the earlier one', async () => {
    const desk: Signals = { ...windowsChrome(), fonts: [...windowsChrome().fonts!, 'No Relink Font'].sort() };
    const home = '198.51.101.7';
    let first = await visit(desk, home);
    const firstId = first.visitor_id;
    for (let i = 0; i < 3; i++) first = await visit(desk, home, first.token);

    now += 2 * DAY;
    const lost = await visit(desk, '100.64.38.20');
    expect(lost.visitor_id).not.toBe(firstId);
    // The new storage's browser then shows 4 CPU cores: a value the first ID never had.
    const young = await visit({ ...desk, hardware_concurrency: 4 }, '100.64.38.20', lost.token);
    expect(young.visitor_id).toBe(lost.visitor_id);
    const back = await visit(desk, home, young.token);
    expect(back.visitor_id).toBe(lost.visitor_id);
    expect(back.confidence.comment ?? '').not.toMatch(/relinked/);
    const links = await kyselyOf(service().service.ctx.store).selectFrom('visitor_links').selectAll().where('absorbed_id', '=', lost.visitor_id).execute();
    expect(links).toHaveLength(0);
  });
});
