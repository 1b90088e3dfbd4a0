import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V4Event } from '../../src/events/v4-event.js';
import { createApiKey } from '../../src/service/store/api-keys.js';
import { insertEvent } from '../../src/service/store/events.js';
import { createEnvironment } from '../../src/service/store/environments.js';
import { createWorkspace } from '../../src/service/store/workspaces.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';
import { call, DAY, liftRateLimit, makeEvent, manualClock, seed, T0 } from './fixtures.js';
import { kyselyOf } from '../../src/service/store/index.js';

describe.each(ENGINES)('v4 get and update an event (%s)', (engine) => {
  let t: TestService;
  const clock = manualClock();

  beforeAll(async () => {
    t = await startTestService({ engine, clock: clock.now });
    await liftRateLimit(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('GET returns the stored event; unknown id 404 event_not_found; bad id 400', async () => {
    const [event] = await seed(t, [makeEvent(T0 - 1000, 'visGet', { tags: { a: 1 }, linked_id: 'L1' })]);
    const res = await call(t, 'GET', `/v4/events/${event!.event_id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toEqual(event);

    const missing = await call(t, 'GET', `/v4/events/${T0}.nosuch`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: { code: 'event_not_found', message: 'event id not found' } });

    const bad = await call(t, 'GET', `/v4/events/${encodeURIComponent('x y!')}`);
    expect(bad.status).toBe(400);
    expect(bad.body.error).toEqual({ code: 'request_cannot_be_parsed', message: 'invalid event_id' });
  });

  it("another workspace's event is invisible (404) and its key cannot see ours", async () => {
    const db = t.service.ctx.store;
    const ws = await createWorkspace(db, { name: 'other', region: 'us', now: T0 });
    const env = await createEnvironment(db, { workspaceId: ws.id, name: 'prod', now: T0 });
    const key = await createApiKey(db, { workspaceId: ws.id, environmentId: null, type: 'secret', name: 'srv', now: T0 });
    const theirs = makeEvent(T0 - 500, 'visTheirs', { environment_id: env.id });
    await insertEvent(db, theirs, { workspaceId: ws.id, environmentId: env.id });
    const [ours] = await seed(t, [makeEvent(T0 - 400, 'visOurs')]);

    expect((await call(t, 'GET', `/v4/events/${theirs.event_id}`)).status).toBe(404);
    expect((await call(t, 'GET', `/v4/events/${theirs.event_id}`, { key: key.token })).body).toEqual(theirs);
    expect((await call(t, 'GET', `/v4/events/${ours!.event_id}`, { key: key.token })).status).toBe(404);
    const search = await call(t, 'GET', '/v4/events?limit=100', { key: key.token });
    expect(search.body.events).toEqual([theirs]);
  });

  it('PATCH changes only the given fields, and search follows the new values', async () => {
    const [event] = await seed(t, [makeEvent(T0 - 2000, 'visPatch', { linked_id: 'before', tags: { keep: true }, suspect: false })]);
    const id = event!.event_id;

    const r1 = await call(t, 'PATCH', `/v4/events/${id}`, { body: { linked_id: 'after' } });
    expect(r1.status).toBe(200);
    expect(r1.text).toBe('');
    expect((await call(t, 'GET', `/v4/events/${id}`)).body).toEqual({ ...event, linked_id: 'after' });

    await call(t, 'PATCH', `/v4/events/${id}`, { body: { tags: { order: 42, nested: { x: 'y' } } } });
    await call(t, 'PATCH', `/v4/events/${id}`, { body: { suspect: true } });
    const updated = (await call(t, 'GET', `/v4/events/${id}`)).body as V4Event;
    expect(updated).toEqual({ ...event, linked_id: 'after', tags: { order: 42, nested: { x: 'y' } }, suspect: true });

    const ids = async (q: string) => (await call(t, 'GET', `/v4/events?${q}`)).body.events.map((e: V4Event) => e.event_id);
    expect(await ids('linked_id=after')).toEqual([id]);
    expect(await ids('linked_id=before')).toEqual([]);
    expect(await ids('visitor_id=visPatch&suspect=true')).toEqual([id]);
    expect(await ids('visitor_id=visPatch&suspect=false')).toEqual([]);
  });

  it('PATCH of an event older than 10 days: 409 state_not_ready, nothing changes', async () => {
    const [young, old] = await seed(t, [
      makeEvent(T0 - 10 * DAY + 60_000, 'visAge'),
      makeEvent(T0 - 10 * DAY - 1, 'visAge', { linked_id: 'frozen' }),
    ]);
    const res = await call(t, 'PATCH', `/v4/events/${old!.event_id}`, { body: { linked_id: 'changed' } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: { code: 'state_not_ready', message: 'resource is not mutable yet, try again' } });
    expect((await call(t, 'GET', `/v4/events/${old!.event_id}`)).body.linked_id).toBe('frozen');

    expect((await call(t, 'PATCH', `/v4/events/${young!.event_id}`, { body: { suspect: true } })).status).toBe(200);
    clock.advance(2 * 60_000); // the young one crosses the 10-day line
    try {
      expect((await call(t, 'PATCH', `/v4/events/${young!.event_id}`, { body: { suspect: false } })).status).toBe(409);
    } finally {
      clock.set(T0);
    }
  });

  it('PATCH errors: unknown event 404, bad bodies 400 naming the field, huge body 413', async () => {
    const [event] = await seed(t, [makeEvent(T0 - 3000, 'visBad', { linked_id: 'orig' })]);
    const id = event!.event_id;
    const missing = await call(t, 'PATCH', `/v4/events/${T0}.nosuch`, { body: { suspect: true } });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('event_not_found');

    const cases: [unknown, string][] = [
      [{ linked_id: 5 }, 'linked_id'],
      [{ linked_id: 'x'.repeat(257) }, 'linked_id'],
      [{ tags: [1, 2] }, 'tags'],
      [{ tags: 'text' }, 'tags'],
      [{ tags: { big: 'x'.repeat(17 * 1024) } }, 'tags'],
      [{ suspect: 'yes' }, 'suspect'],
      [{}, 'linked_id'],
      [{ unknown_field: 1 }, 'linked_id'],
      [[1], 'body'],
    ];
    for (const [body, field] of cases) {
      const res = await call(t, 'PATCH', `/v4/events/${id}`, { body });
      expect(res.status, JSON.stringify(body).slice(0, 50)).toBe(400);
      expect(res.body.error.code).toBe('request_cannot_be_parsed');
      expect(res.body.error.message).toContain(field);
    }
    const notJson = await call(t, 'PATCH', `/v4/events/${id}`, { rawBody: '{"linked_id": ' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.error.code).toBe('request_cannot_be_parsed');

    const huge = await call(t, 'PATCH', `/v4/events/${id}`, { rawBody: JSON.stringify({ linked_id: 'x', pad: 'y'.repeat(70_000) }) });
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({ error: { code: 'payload_too_large', message: 'payload too large' } });

    // None of it touched the stored event.
    expect((await call(t, 'GET', `/v4/events/${id}`)).body).toEqual(event);
  });

  it('an internal failure is a 500 `failed`, never a partial payload', async () => {
    const [event] = await seed(t, [makeEvent(T0 - 4000, 'visBroken')]);
    // A damaged stored row: the update cannot read it.
    await kyselyOf(t.service.ctx.store).updateTable('events').set({ payload: '{"event_id": broken' }).where('event_id', '=', event!.event_id).execute();
    const res = await call(t, 'PATCH', `/v4/events/${event!.event_id}`, { body: { suspect: true } });
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: { code: 'failed', message: 'internal server error' } });
    for (const path of [`/v4/events/${event!.event_id}`, '/v4/events?visitor_id=visBroken']) {
      const v4 = await call(t, 'GET', path);
      expect(v4.status, path).toBe(500);
      expect(v4.body).toEqual({ error: { code: 'failed', message: 'internal server error' } });
    }
    const v3 = await call(t, 'GET', `/events/${event!.event_id}`);
    expect(v3.status).toBe(500);
    expect(v3.body).toEqual({ error: { code: 'Failed', message: 'internal server error' } });
    const lookup = await call(t, 'GET', '/visitors/visBroken');
    expect(lookup.status).toBe(500);
    expect(lookup.body).toEqual({ error: 'internal server error' });
  });
});
