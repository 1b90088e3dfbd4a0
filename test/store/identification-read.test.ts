/**
 * PostgreSQL reads what one identification decides on in one statement (visitors.ts
 * `loadIdentificationState`), with the new event's recent activity read ahead: it must find
 * what the separate statements find, and an identification must cost the round trips it
 * claims (counted at the pg driver).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emptyProfile } from '../../src/service/identification/profile.js';
import { insertEvent } from '../../src/service/store/events.js';
import type { Store } from '../../src/service/store/index.js';
import { readRecentActivity } from '../../src/service/store/recent-activity.js';
import { CANDIDATES_PER_KEY, findCandidates, insertVisitor, loadIdentificationState, NETWORK_COUNT_LIMIT, NETWORK_VISITORS_LISTED } from '../../src/service/store/visitors.js';
import { identifyRequest, postIdentify, sampleSignals } from '../helpers/identify-request.js';
import { statementsDuring } from '../helpers/statements-during.js';
import { startTestService, type TestService } from '../helpers/test-service.js';
import { makeEvent } from '../server-api/fixtures.js';

const NOW = Date.UTC(2026, 0, 10, 12);
const MINUTE = 60_000;

describe('the identification read on postgres', () => {
  let t: TestService;
  let store: Store;
  const sort = <T extends { visitorId: string }>(list: T[]) => [...list].sort((a, b) => a.visitorId.localeCompare(b.visitorId));

  beforeAll(async () => {
    t = await startTestService({ engine: 'postgres', clock: () => NOW });
    store = t.service.ctx.store;
    // No background pass (jobs, webhook worker) may add its statements to the counts below.
    await t.service.jobs.stop();
    await t.service.webhooks.stop();
    // 12 visitors share key s:shared (more than CANDIDATES_PER_KEY), each with a key of its own;
    // 70 share the network key (more than are counted).
    for (let i = 0; i < 12; i++) {
      await insertVisitor(store, { workspaceId: t.workspaceId, visitorId: `vis${i}`, now: NOW - (12 - i) * MINUTE, profile: emptyProfile(), keys: ['s:shared', `s:own${i}`, 'p:net'] });
    }
    for (let i = 12; i < 70; i++) {
      await insertVisitor(store, { workspaceId: t.workspaceId, visitorId: `vis${i}`, now: NOW - 100 * MINUTE, profile: emptyProfile(), keys: ['p:net'] });
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  it('finds the candidates and crowding the two separate statements find', async () => {
    for (const keys of [['s:shared', 's:own3', 'p:net'], ['s:own1', 's:own2'], ['s:none'], []]) {
      const one = await loadIdentificationState(store, { workspaceId: t.workspaceId, keys });
      const two = await findCandidates(store, t.workspaceId, keys);
      expect(sort(one.candidates)).toEqual(sort(two.candidates));
      expect(one.crowding).toEqual(two.crowding);
      // The network's visitors most recent first: vis11 ... vis0, then 4 of the 58 seen together.
      expect(one.networkVisitors).toHaveLength(two.networkVisitors.length);
      expect(one.networkVisitors.slice(0, 12)).toEqual(two.networkVisitors.slice(0, 12));
    }
    const network = await loadIdentificationState(store, { workspaceId: t.workspaceId, keys: ['s:own1', 'p:net'] });
    expect(network.networkVisitors).toHaveLength(NETWORK_VISITORS_LISTED);
    expect(network.networkVisitors.slice(0, 12)).toEqual(Array.from({ length: 12 }, (_, i) => `vis${11 - i}`));
    expect(network.crowding).toEqual({ s: 1, p: NETWORK_COUNT_LIMIT });
    const shared = await loadIdentificationState(store, { workspaceId: t.workspaceId, keys: ['s:shared'] });
    // The most recently seen of the key.
    expect(shared.candidates.map((c) => c.visitorId).sort()).toEqual(Array.from({ length: CANDIDATES_PER_KEY }, (_, i) => `vis${i + 4}`).sort());
    expect(shared.crowding).toEqual({ s: 12 });
  });

  it('reads a token visitor that may be relinked and its candidates in two statements, the candidates the separate statements find', async () => {
    // An event of the visit's network, so that its activity read ahead is not empty.
    await insertEvent(store, makeEvent(NOW - MINUTE, 'vis7', { ip_address: '192.0.2.9', linked_id: 'L9' }), { workspaceId: t.workspaceId, environmentId: t.environmentId });
    const activity = { ip: '192.0.2.9', linkedId: 'L9', replaySince: NOW - MINUTE, now: NOW };
    for (const keys of [['s:shared', 's:own3', 'p:net'], ['s:own1', 's:own2'], ['s:none'], []]) {
      const read = () =>
        loadIdentificationState(store, {
          workspaceId: t.workspaceId,
          tokenVisitorId: 'vis5',
          keys,
          activity,
          candidatesForToken: () => true,
        });
      const texts = (await statementsDuring(read)).map((s) => s.text);
      // Without keys there is nothing to read but the token's visitor.
      expect(texts, texts.join('\n---\n')).toHaveLength(keys.length > 0 ? 2 : 1);
      const loaded = await read();
      const separate = await findCandidates(store, t.workspaceId, keys);
      expect(loaded.tokenVisitor?.visitorId).toBe('vis5');
      expect(sort(loaded.candidates)).toEqual(sort(separate.candidates));
      expect(loaded.crowding).toEqual(separate.crowding);
      // Visitors seen at the same time may come in either order.
      expect([...loaded.networkVisitors].sort()).toEqual([...separate.networkVisitors].sort());
      // The network's activity read ahead is the token read's (the candidates' read scans none).
      const alone = await loadIdentificationState(store, { workspaceId: t.workspaceId, tokenVisitorId: 'vis5', keys, activity });
      expect(loaded.prefetched?.network).toEqual(alone.prefetched?.network);
      expect(loaded.prefetched?.network.find((r) => r.source === 'ip')).toMatchObject({ n_24_hours: 1 });
    }
  });

  it("reads the token visitor alone, and ahead the recent activity the separate read finds", async () => {
    const ids = { workspaceId: t.workspaceId, environmentId: t.environmentId };
    for (const [minutes, ip, linkedId] of [[2, '192.0.2.1', 'L1'], [30, '192.0.2.2', 'L2'], [300, '192.0.2.1', 'L1']] as const) {
      await insertEvent(store, makeEvent(NOW - minutes * MINUTE, 'vis5', { ip_address: ip, linked_id: linkedId }), { ...ids, requestHash: 'h1' });
    }
    await insertEvent(store, makeEvent(NOW - MINUTE, 'vis9', { ip_address: '192.0.2.1', linked_id: 'L1' }), ids);
    const ahead = { ip: '192.0.2.1', linkedId: 'L1', requestHash: 'h1', replaySince: NOW - 10 * MINUTE, now: NOW };
    const loaded = await loadIdentificationState(store, { workspaceId: t.workspaceId, tokenVisitorId: 'vis5', keys: ['s:shared'], activity: ahead });
    expect(loaded.tokenVisitor?.visitorId).toBe('vis5');
    expect(loaded.candidates).toEqual([]);
    expect(loaded.crowding).toEqual({});
    const query = { ...ahead, workspaceId: t.workspaceId, visitorId: 'vis5' };
    const separate = await readRecentActivity(store, query);
    expect(separate.replayed).toBe(true);
    expect(separate.visitorEvents).toEqual({ '5_minutes': 1, '1_hour': 2, '24_hours': 3 });
    const statements = await statementsDuring(async () => {
      expect(await readRecentActivity(store, query, { ...loaded.prefetched!, newVisitor: false })).toEqual(separate);
    });
    expect(statements).toEqual([]);
    // A visitor found by its signals: only its own part is read again.
    const other = { ...query, visitorId: 'vis9' };
    const expected = await readRecentActivity(store, other);
    const statementsForOther = await statementsDuring(async () => {
      expect(await readRecentActivity(store, other, { ...loaded.prefetched!, newVisitor: false })).toEqual(expected);
    });
    expect(statementsForOther).toHaveLength(1);
  });

  it('an identification is two statements: the read and the write (three when found by signals alone)', async () => {
    const signals = sampleSignals({ fonts: ['Round Trip Font'] });
    // The first request also reads the key and the rules into the caches.
    const first = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { signals }));
    expect(first.status).toBe(200);
    const count = async (body: object) => {
      let json: { visitor_id: string; visitor_found: boolean; token: string } | undefined;
      const statements = await statementsDuring(async () => {
        const res = await postIdentify(t.url, body);
        expect(res.status).toBe(200);
        json = res.json;
      });
      return { statements: statements.map((s) => s.text), json: json! };
    };
    const withToken = await count(identifyRequest(t.keys.publicKey, { signals, token: first.json.token }));
    expect(withToken.json.visitor_id).toBe(first.json.visitor_id);
    expect(withToken.statements, withToken.statements.join('\n---\n')).toHaveLength(2);
    const bySignals = await count(identifyRequest(t.keys.publicKey, { signals }));
    expect(bySignals.json).toMatchObject({ visitor_id: first.json.visitor_id, visitor_found: true });
    expect(bySignals.statements, bySignals.statements.join('\n---\n')).toHaveLength(3);
    const elsewhere = sampleSignals({
      user_agent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
      platform: 'MacIntel',
      timezone: 'Asia/Tokyo',
      timezone_offset: -540,
      languages: ['ja-JP'],
      screen: { width: 1512, height: 982, color_depth: 30, pixel_ratio: 2 },
      hardware_concurrency: 10,
      fonts: ['Hiragino Sans'],
      audio: '35.10893253237009',
      canvas: { winding: true, geometry: 'other-g', text: 'other-t' },
      webgl: { vendor: 'Apple Inc.', renderer: 'Apple GPU', params: 'other-p', extensions: 'other-e' },
    });
    const fresh = await count(identifyRequest(t.keys.publicKey, { signals: elsewhere }));
    expect(fresh.json.visitor_found).toBe(false);
    expect(fresh.statements, fresh.statements.join('\n---\n')).toHaveLength(2);
  });
});
