/** Velocity windows and replay detection follow the injected clock, on both engines. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { V4Event } from '../../src/events/v4-event.js';
import { getEvent } from '../../src/service/store/events.js';
import { identifyRequest, postIdentify, sampleSignals } from '../helpers/identify-request.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';

const HOUR = 3_600_000;

describe.each(ENGINES)('velocity over time (%s)', (engine) => {
  let t: TestService;
  let now = Date.UTC(2026, 0, 10, 12);
  beforeAll(async () => {
    t = await startTestService({ engine, clock: () => now });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts events, IPs and linked IDs in the 5-minute, 1-hour and 24-hour windows', async () => {
    const at = async (ms: number, overrides: Parameters<typeof identifyRequest>[1], headers: Record<string, string> = {}) => {
      now = ms;
      const res = await postIdentify(t.url, identifyRequest(t.keys.publicKey, overrides), { headers });
      expect(res.status).toBe(200);
      return res.json;
    };
    const start = now;
    // trustProxy is off: every request comes from 127.0.0.1.
    const a = await at(start - 30 * HOUR, { linked_id: 'too-old' }); // outside every window
    const b = await at(start - 5 * HOUR, { token: a.token, linked_id: 'L1' });
    const c = await at(start - 30 * 60_000, { token: b.token, linked_id: 'L2' });
    const d = await at(start, { token: c.token, linked_id: 'L1' });
    expect(new Set([a.visitor_id, b.visitor_id, c.visitor_id, d.visitor_id]).size).toBe(1);

    const event = (await getEvent(t.service.ctx.store, t.workspaceId, d.event_id)) as V4Event;
    expect(event.timestamp).toBe(start);
    expect(event.velocity).toEqual({
      events: { '5_minutes': 1, '1_hour': 2, '24_hours': 3 },
      ip_events: { '5_minutes': 1, '1_hour': 2, '24_hours': 3 },
      distinct_ip: { '5_minutes': 1, '1_hour': 1, '24_hours': 1 },
      distinct_linked_id: { '5_minutes': 1, '1_hour': 2, '24_hours': 2 },
      distinct_country: { '5_minutes': 0, '1_hour': 0, '24_hours': 0 },
      distinct_ip_by_linked_id: { '5_minutes': 1, '1_hour': 1, '24_hours': 1 },
      distinct_visitor_id_by_linked_id: { '5_minutes': 1, '1_hour': 1, '24_hours': 1 },
    });
    expect(event.identification?.first_seen_at).toBe(start - 30 * HOUR);
  });

  it('sees a replayed body within 24 hours only', async () => {
    now += HOUR;
    const first = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { linked_id: 'replay' }));
    const body = identifyRequest(t.keys.publicKey, { linked_id: 'replay', token: first.json.token });
    now += 1000;
    const original = await postIdentify(t.url, body);
    now += 2 * HOUR;
    const replay = await postIdentify(t.url, body);
    now += 25 * HOUR;
    const late = await postIdentify(t.url, body);
    const replayed = async (id: string) => ((await getEvent(t.service.ctx.store, t.workspaceId, id)) as V4Event).replayed;
    expect(await replayed(original.json.event_id)).toBe(false);
    expect(await replayed(replay.json.event_id)).toBe(true);
    expect(await replayed(late.json.event_id)).toBe(false);
  });
});

describe.each(ENGINES)('velocity across visitors, IPs and linked IDs (%s)', (engine) => {
  let t: TestService;
  let now = Date.UTC(2026, 0, 10, 12);
  beforeAll(async () => {
    t = await startTestService({ engine, clock: () => now, config: { trustProxy: true } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts the other IPs, linked IDs and visitors, and leaves out what the event lacks', async () => {
    const start = now;
    const at = async (ms: number, ip: string, overrides: Parameters<typeof identifyRequest>[1]) => {
      now = ms;
      const res = await postIdentify(t.url, identifyRequest(t.keys.publicKey, overrides), { headers: { 'X-Forwarded-For': ip } });
      expect(res.status).toBe(200);
      return res.json;
    };
    const velocityOf = async (eventId: string) => ((await getEvent(t.service.ctx.store, t.workspaceId, eventId)) as V4Event).velocity;
    const other = sampleSignals({ platform: 'Linux x86_64', hardware_concurrency: 4, device_memory: 4, architecture: 127 });

    const a1 = await at(start - 2 * HOUR, '10.0.0.1', { linked_id: 'L' });
    const a2 = await at(start - 30 * 60_000, '10.0.0.2', { token: a1.token, linked_id: 'M' });
    const b = await at(start - 2 * 60_000, '10.0.0.3', { signals: other, linked_id: 'L' });
    const a3 = await at(start - 60_000, '10.0.0.1', { token: a2.token });
    const a4 = await at(start, '10.0.0.4', { token: a3.token, linked_id: 'L' });
    expect(new Set([a1.visitor_id, a2.visitor_id, a3.visitor_id, a4.visitor_id]).size).toBe(1);
    expect(b.visitor_id).not.toBe(a1.visitor_id);

    // No linked_id: its linked-ID counters are 0; the IP's own earlier event counts.
    expect(await velocityOf(a3.event_id)).toEqual({
      events: { '5_minutes': 1, '1_hour': 2, '24_hours': 3 },
      ip_events: { '5_minutes': 1, '1_hour': 1, '24_hours': 2 },
      distinct_ip: { '5_minutes': 1, '1_hour': 2, '24_hours': 2 },
      distinct_linked_id: { '5_minutes': 0, '1_hour': 0, '24_hours': 0 },
      distinct_country: { '5_minutes': 0, '1_hour': 0, '24_hours': 0 },
      distinct_ip_by_linked_id: { '5_minutes': 0, '1_hour': 0, '24_hours': 0 },
      distinct_visitor_id_by_linked_id: { '5_minutes': 0, '1_hour': 0, '24_hours': 0 },
    });
    expect(await velocityOf(a4.event_id)).toEqual({
      events: { '5_minutes': 2, '1_hour': 3, '24_hours': 4 },
      ip_events: { '5_minutes': 1, '1_hour': 1, '24_hours': 1 },
      distinct_ip: { '5_minutes': 2, '1_hour': 3, '24_hours': 3 },
      distinct_linked_id: { '5_minutes': 1, '1_hour': 2, '24_hours': 2 },
      distinct_country: { '5_minutes': 0, '1_hour': 0, '24_hours': 0 },
      distinct_ip_by_linked_id: { '5_minutes': 2, '1_hour': 2, '24_hours': 3 },
      distinct_visitor_id_by_linked_id: { '5_minutes': 2, '1_hour': 2, '24_hours': 2 },
    });
  });
});
