/**
 * createIdentifier against real databases (a fresh SQLite file and a fresh PostgreSQL
 * database per engine): tokens, exact and fuzzy matching, new visitors, deletion.
 */
import { randomBytes } from 'node:crypto';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIdentifier, type IdentifyInput, type Identifier } from '../../src/service/identification/identifier.js';
import { kyselyOf, openStore, type Store } from '../../src/service/store/index.js';
import { deleteVisitor } from '../../src/service/store/visitors.js';
import { createTestDatabase, ENGINES, type TestDatabase } from '../helpers/test-service.js';
import { iphone, macSafari, upgradeChrome, windowsChrome } from './fixtures.js';

const DAY = 24 * 3600 * 1000;

describe.each(ENGINES)('createIdentifier on %s', (engine) => {
  let testDb: TestDatabase;
  let store: Store;
  let identifier: Identifier;
  const secret = randomBytes(32);
  const workspaceId = `ws_${randomBytes(6).toString('hex')}`;
  let now = Date.UTC(2026, 0, 1);

  beforeAll(async () => {
    testDb = await createTestDatabase(engine);
    store = openStore({ dataDir: testDb.config.dataDir ?? '', ...(testDb.config.databaseUrl ? { databaseUrl: testDb.config.databaseUrl } : {}) });
    await store.migrate();
    identifier = createIdentifier({ store, tokenSecret: secret });
  });
  afterAll(async () => {
    await store?.destroy();
    await testDb?.drop();
  });

  const visit = (over: Partial<IdentifyInput>): IdentifyInput => {
    now += 3600 * 1000;
    return { workspaceId, signals: windowsChrome(), ip: '203.0.113.7', now, ...over };
  };

  it('creates a new visitor with a 20-character ID and a token', async () => {
    const input = visit({ signals: macSafari(), ip: '198.51.100.20' });
    const out = await identifier.identify(input);
    expect(out.visitorId).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(out.visitorFound).toBe(false);
    expect(out.firstSeenAt).toBe(input.now);
    expect(out.lastSeenAt).toBe(input.now);
    expect(out.token.split('.')).toHaveLength(3);
    expect(out.confidence.version).toBe('1.0');
  });

  it('resolves the token: same visitor, first/last seen from the stored visits', async () => {
    const first = await identifier.identify(visit({}));
    const second = await identifier.identify(visit({ token: first.token, ip: '192.0.2.99' }));
    expect(second.visitorId).toBe(first.visitorId);
    expect(second.visitorFound).toBe(true);
    expect(second.path).toBe('token');
    expect(second.firstSeenAt).toBe(first.firstSeenAt);
    expect(second.lastSeenAt).toBe(first.firstSeenAt);
    const third = await identifier.identify(visit({ token: second.token }));
    expect(third.lastSeenAt).toBe(now - 3600 * 1000);
    expect(third.confidence.score).toBeGreaterThan(0.9);
  });

  it('matches by signals without a token, and through a browser upgrade on the same network', async () => {
    const first = await identifier.identify(visit({ signals: iphone(), ip: '100.64.10.4' }));
    // A day later (a tokenless look-alike an hour after a browser used its storage is as likely
    // another device of its kind: matcher.ts storageLossBits).
    now += 24 * 3600 * 1000;
    const again = await identifier.identify(visit({ signals: iphone(), ip: '100.64.10.77' }));
    expect(again.visitorId).toBe(first.visitorId);
    expect(again.visitorFound).toBe(true);

    const chrome = windowsChrome();
    chrome.fonts = [...chrome.fonts!, 'Zeta Sans'].sort();
    const desk = await identifier.identify(visit({ signals: chrome, ip: '198.18.7.50' }));
    now += 24 * 3600 * 1000;
    const upgraded = await identifier.identify(visit({ signals: upgradeChrome(chrome), ip: '198.18.7.51' }));
    expect(upgraded.visitorId).toBe(desk.visitorId);
    expect(['fuzzy', 'cluster']).toContain(upgraded.path);
  });

  it('never resolves a forged, foreign or tampered token', async () => {
    const victim = await identifier.identify(visit({ signals: { ...macSafari(), fonts: ['Only Victim Font'] }, ip: '198.51.100.1' }));
    const attacker = { ...windowsChrome(), fonts: ['Attacker Font'] };

    const forged = await new SignJWT({ wid: workspaceId }).setProtectedHeader({ alg: 'HS256' }).setSubject(victim.visitorId).setIssuedAt().sign(randomBytes(32));
    const foreign = (await createIdentifier({ store, tokenSecret: secret }).identify(visit({ workspaceId: 'ws_other', signals: attacker }))).token;
    const [h, , sig] = victim.token.split('.');
    const tamperedPayload = Buffer.from(JSON.stringify({ wid: workspaceId, sub: victim.visitorId, iat: 1 })).toString('base64url');
    for (const token of [forged, foreign, `${h}.${tamperedPayload}.${sig}`, 'garbage', 'a.b.c']) {
      const out = await identifier.identify(visit({ token, signals: attacker, ip: '192.0.2.200' }));
      expect(out.visitorId).not.toBe(victim.visitorId);
      expect(out.path).not.toBe('token');
    }
  });

  it('forgets a deleted visitor: its token and its signals no longer resolve to it', async () => {
    const signals = { ...windowsChrome(), fonts: ['Deleted Visitor Font'] };
    const first = await identifier.identify(visit({ signals, ip: '198.18.9.10' }));
    expect(await deleteVisitor(store, workspaceId, first.visitorId)).toBe(true);
    expect(await deleteVisitor(store, workspaceId, first.visitorId)).toBe(false);
    const back = await identifier.identify(visit({ signals, token: first.token, ip: '198.18.9.10' }));
    expect(back.visitorId).not.toBe(first.visitorId);
    expect(back.visitorFound).toBe(false);
    const rows = await kyselyOf(store).selectFrom('visitor_keys').select('key').where('visitor_id', '=', first.visitorId).execute();
    expect(rows).toHaveLength(0);
  });

  it('keeps workspaces apart: the same browser in another workspace is another visitor', async () => {
    const signals = { ...macSafari(), fonts: ['Workspace Font'] };
    const a = await identifier.identify(visit({ signals }));
    const b = await identifier.identify(visit({ signals, workspaceId: `${workspaceId}_b` }));
    expect(b.visitorId).not.toBe(a.visitorId);
    expect(b.visitorFound).toBe(false);
    const aAgain = await identifier.identify(visit({ signals }));
    expect(aAgain.visitorId).toBe(a.visitorId);
  });

  it('a valid token wins over signals of another device, with a lowered confidence and a comment', async () => {
    const owner = await identifier.identify(visit({ signals: { ...windowsChrome(), fonts: ['Owner Font'] } }));
    const copied = await identifier.identify(visit({ signals: macSafari(), token: owner.token, ip: '198.51.100.77' }));
    expect(copied.visitorId).toBe(owner.visitorId);
    expect(copied.confidence.score).toBeLessThanOrEqual(0.5);
    expect(copied.confidence.comment).toMatch(/different-looking device/);
  });

  it('flags two identical browsers that ended up on one visitor as soon as both use it; each token keeps its ID', async () => {
    // Two identical phones of one household: the second one's first visit is linked to the first.
    const signals = { ...iphone(), fonts: ['Twin Font'] };
    const alice = await identifier.identify(visit({ signals, ip: '198.18.20.5' }));
    const bob = await identifier.identify(visit({ signals, ip: '198.18.20.6' }));
    expect(bob.visitorId).toBe(alice.visitorId);
    const alice2 = await identifier.identify(visit({ signals, ip: '198.18.20.5', token: alice.token }));
    // Alice goes on with her own jar: that proves a second browser holds the ID.
    const alice3 = await identifier.identify(visit({ signals, ip: '198.18.20.5', token: alice2.token }));
    expect(alice3.visitorId).toBe(alice.visitorId);
    // Bob's token is valid: it keeps its ID (never re-assigned), but the answer says the ID is shared.
    const bobAgain = await identifier.identify(visit({ signals, ip: '198.18.20.6', token: bob.token }));
    expect(bobAgain.visitorId).toBe(alice.visitorId);
    expect(bobAgain.confidence.comment).toMatch(/share its visitor ID with another browser/);
    expect(bobAgain.confidence.score).toBeLessThan(0.5);
    expect((await identifier.identify(visit({ signals, ip: '198.18.20.5', token: alice3.token }))).visitorId).toBe(alice.visitorId);
  });

  it('answers for an ID created among look-alikes more surely the more visits it lasts', async () => {
    const signals = { ...macSafari(), fonts: ['Look-alike Test Font'] };
    const original = await identifier.identify(visit({ signals, ip: '198.18.30.5' }));
    // The same signals elsewhere, without a token: a new visitor, but possibly the same browser.
    const twin = await identifier.identify(visit({ signals, ip: '198.19.77.130' }));
    expect(twin.visitorId).not.toBe(original.visitorId);
    expect(twin.confidence.comment).toMatch(/look-alike/);
    const soon = await identifier.identify(visit({ signals, ip: '198.19.77.130', token: twin.token }));
    let later = soon;
    for (let i = 0; i < 10; i++) {
      now += 3 * DAY;
      later = await identifier.identify(visit({ signals, ip: '198.19.77.130', token: later.token }));
      expect(later.visitorId).toBe(twin.visitorId);
    }
    expect(soon.visitorId).toBe(twin.visitorId);
    expect(soon.confidence.score).toBeLessThan(0.9);
    expect(soon.confidence.comment).toMatch(/created while look-alike visitors existed/);
    expect(later.confidence.score).toBeGreaterThan(soon.confidence.score);
  });

  it('stays correct over months of visits', async () => {
    const signals = { ...macSafari(), fonts: ['Long Term Font'] };
    const first = await identifier.identify(visit({ signals }));
    let token = first.token;
    for (let i = 0; i < 5; i++) {
      now += 20 * DAY;
      const out = await identifier.identify(visit({ signals, token }));
      expect(out.visitorId).toBe(first.visitorId);
      token = out.token;
    }
  });

  it('finds a browser in a private window at its home\'s new address through the household\'s other visitor, and not without it', async () => {
    const privateIphone = { ...iphone(), incognito: { likely: true, method: 'storage' } };
    const scenario = async (ws: string, laptopMovedToo: boolean) => {
      // A phone and a laptop at home (198.18.40.0/24), each with its token.
      const phone = await identifier.identify(visit({ workspaceId: ws, signals: iphone(), ip: '198.18.40.10' }));
      await identifier.identify(visit({ workspaceId: ws, signals: iphone(), ip: '198.18.40.10', token: phone.token }));
      const laptop = await identifier.identify(visit({ workspaceId: ws, signals: macSafari(), ip: '198.18.40.11' }));
      // The home's address changes (another /16): the laptop comes back from the new one with
      // its token; in the control, another household's laptop is seen there instead.
      if (laptopMovedToo) await identifier.identify(visit({ workspaceId: ws, signals: macSafari(), ip: '198.19.77.12', token: laptop.token }));
      else await identifier.identify(visit({ workspaceId: ws, signals: { ...macSafari(), fonts: ['Neighbour Font'] }, ip: '198.19.77.12' }));
      const private_ = await identifier.identify(visit({ workspaceId: ws, signals: privateIphone, ip: '198.19.77.13' }));
      return { phone, private_ };
    };
    const moved = await scenario(`${workspaceId}_moved`, true);
    expect(moved.private_.visitorId).toBe(moved.phone.visitorId);
    expect(moved.private_.confidence.comment).toContain('another network of this household');
    const control = await scenario(`${workspaceId}_control`, false);
    expect(control.private_.visitorId).not.toBe(control.phone.visitorId);
    expect(control.private_.visitorFound).toBe(false);
  });
});
