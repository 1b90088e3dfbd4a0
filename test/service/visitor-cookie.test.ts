/**
 * `--visitor-cookie` over HTTP: the service keeps the visitor token in an HttpOnly cookie of its
 * own and reads it back when a visit brings no token, so that a browser whose script storage
 * was deleted (WebKit's seven-day limit) keeps its visitor ID; off by default. The cookie is
 * read in the route before the store is involved, so one engine covers it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ID_ORIGIN_MODEL, ID_ORIGIN_MODEL_WITH_COOKIE, idOriginProbability } from '../../src/service/identification/id-origin.js';
import { parseProfile } from '../../src/service/identification/profile.js';
import { VISITOR_COOKIE_MAX_AGE_S, VISITOR_COOKIE_NAME } from '../../src/service/ingestion/visitor-cookie.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { identifyRequest, postIdentify, sampleSignals, visitorCookieSet } from '../helpers/identify-request.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

/**
 * A device of its own for each name, from an address of its own: nothing in its signals or
 * network points to another test's visitors, so the tests do not lean on each other's.
 */
let devices = 0;
function device(macOs = false): { signals: ReturnType<typeof sampleSignals>; headers: Record<string, string> } {
  const n = ++devices;
  const own = { canvas: { winding: true, geometry: `g${n}`, text: `t${n}` }, audio: `124.0${n}`, font_preferences: `fp${n}`, fonts: ['Arial', `Font ${n}`] };
  const signals = macOs
    ? sampleSignals({
        ...own,
        user_agent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
        platform: 'MacIntel',
        vendor: 'Apple Computer, Inc.',
        vendor_flavors: ['safari'],
        languages: ['fr-FR'],
        timezone: 'America/Montreal',
        timezone_offset: 300,
        screen: { width: 1512, height: 982, color_depth: 30, pixel_ratio: 2 },
        webgl: { vendor: 'Apple Inc.', renderer: 'Apple GPU', params: `p${n}`, extensions: `e${n}` },
      })
    : sampleSignals({ ...own, webgl: { vendor: 'Google Inc. (NVIDIA)', renderer: `ANGLE (NVIDIA GeForce ${n})`, params: `p${n}`, extensions: `e${n}` } });
  return { signals, headers: { 'X-Forwarded-For': `203.0.${Math.floor(n / 250)}.${n % 250}` } };
}

/** `headers` with a Cookie header that holds the visitor cookie among others. */
const withCookie = (headers: Record<string, string>, token: string) => ({ ...headers, Cookie: `_ga=GA1.2.3; ${VISITOR_COOKIE_NAME}=${token}; theme=dark` });

describe('the visitor cookie, on', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ config: { visitorCookie: true, trustProxy: true } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('sets the token as an HttpOnly, SameSite=Lax cookie for 400 days, Secure only over HTTPS', async () => {
    const plain = await postIdentify(t.url, identifyRequest(t.keys.publicKey));
    expect(plain.status).toBe(200);
    const cookie = visitorCookieSet(plain.headers);
    expect(cookie).toMatchObject({ name: VISITOR_COOKIE_NAME, value: plain.json.token, maxAge: VISITOR_COOKIE_MAX_AGE_S, httpOnly: true, sameSite: 'lax' });
    expect(cookie?.secure).toBeFalsy();
    // No Path: the browser scopes it to the path the agent posted to.
    expect(cookie?.path).toBeUndefined();

    const https = await postIdentify(t.url, identifyRequest(t.keys.publicKey), { headers: { 'X-Forwarded-Proto': 'https' } });
    expect(visitorCookieSet(https.headers)).toMatchObject({ value: https.json.token, secure: true, httpOnly: true });
  });

  it('keeps the visitor ID of a visit whose storage is gone but whose cookie came back', async () => {
    const [pc, other] = [device(), device(true)];
    const first = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { signals: pc.signals }), { headers: pc.headers });
    // Even from another device and address: a genuine token keeps its ID.
    const back = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { signals: other.signals }), { headers: withCookie(other.headers, first.json.token) });
    expect(back.status).toBe(200);
    expect(back.json).toMatchObject({ visitor_id: first.json.visitor_id, visitor_found: true });
    expect(visitorCookieSet(back.headers)?.value).toBe(back.json.token);
  });

  it("prefers the token in the body (the agent's storage) to the cookie's", async () => {
    const [pc, other] = [device(), device(true)];
    const a = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { signals: pc.signals }), { headers: pc.headers });
    const b = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { signals: other.signals }), { headers: other.headers });
    expect(b.json.visitor_id).not.toBe(a.json.visitor_id);
    const visit = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { signals: pc.signals, token: b.json.token }), { headers: withCookie(pc.headers, a.json.token) });
    expect(visit.json.visitor_id).toBe(b.json.visitor_id);
    // The cookie now holds the token of the visitor the answer names.
    expect(visitorCookieSet(visit.headers)?.value).toBe(visit.json.token);
  });

  it('treats a forged cookie as no token: an answer, a new visitor, a cookie of its own', async () => {
    const pc = device();
    const genuine = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { signals: pc.signals }), { headers: pc.headers });
    const [header, , signature] = (genuine.json.token as string).split('.');
    const claims = Buffer.from(JSON.stringify({ wid: t.workspaceId, sub: genuine.json.visitor_id, iat: 1 })).toString('base64url');
    const forged = `${header}.${claims}.${signature}`;
    for (const token of [forged, 'not-a-token', '%E0%A4%A']) {
      const other = device(true);
      const visit = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { signals: other.signals }), { headers: withCookie(other.headers, token) });
      expect(visit.status).toBe(200);
      expect(visit.json.visitor_id).not.toBe(genuine.json.visitor_id);
      expect(visitorCookieSet(visit.headers)?.value).toBe(visit.json.token);
    }
  });

  it('sets no cookie on a refused request', async () => {
    const refused = await postIdentify(t.url, identifyRequest('pk_unknown'));
    expect(refused.status).toBe(403);
    expect(visitorCookieSet(refused.headers)).toBeUndefined();
  });
});

describe('the visitor cookie and the confidence of an ID created among look-alikes', () => {
  let now = Date.UTC(2026, 0, 12, 9);
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ config: { visitorCookie: true, trustProxy: true }, clock: () => now });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("answers a same-origin request (Sec-Fetch-Site) by the cookie's model, another by the agent's storage's", async () => {
    // Machines of one image from one office, minutes apart: the later ones get IDs created among look-alikes.
    const image = device();
    const office = { 'X-Forwarded-For': '192.0.2.10' };
    const ids: { visitor_id: string; token: string }[] = [];
    for (let m = 0; m < 6; m++) {
      now += 5 * 60_000;
      ids.push((await postIdentify(t.url, identifyRequest(t.keys.publicKey, { signals: image.signals }), { headers: office })).json);
    }
    const rows = await kyselyOf(t.service.ctx.store).selectFrom('visitors').select(['visitor_id', 'profile', 'visit_count']).execute();
    const contested = rows.map((r) => ({ ...r, profile: parseProfile(r.profile) })).find((r) => r.profile.contested && ids.some((i) => i.visitor_id === r.visitor_id));
    if (!contested) throw new Error('no ID was created among look-alikes');
    const birth = contested.profile.birth!;
    const visits = Number(contested.visit_count);
    const token = ids.filter((i) => i.visitor_id === contested.visitor_id).at(-1)!.token;

    now += 60_000;
    const same = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { signals: image.signals, token }), { headers: { ...office, 'Sec-Fetch-Site': 'same-origin' } });
    now += 60_000;
    const cross = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { signals: image.signals, token: same.json.token }), { headers: { ...office, 'Sec-Fetch-Site': 'cross-site' } });
    expect([same.json.visitor_id, cross.json.visitor_id]).toEqual([contested.visitor_id, contested.visitor_id]);
    // Both token visits are judged alike; what differs is the model of the ID's origin.
    const cookieModel = idOriginProbability(birth, visits, false, ID_ORIGIN_MODEL_WITH_COOKIE);
    const storageModel = idOriginProbability(birth, visits + 1, false, ID_ORIGIN_MODEL);
    expect(same.json.confidence.score / cookieModel).toBeCloseTo(cross.json.confidence.score / storageModel, 2);
  });
});

describe('the visitor cookie, off (the default)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ config: { trustProxy: true } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('neither sets nor reads it', async () => {
    const [pc, other] = [device(), device(true)];
    const first = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { signals: pc.signals }), { headers: pc.headers });
    expect(first.headers.getSetCookie()).toEqual([]);
    const back = await postIdentify(t.url, identifyRequest(t.keys.publicKey, { signals: other.signals }), { headers: withCookie(other.headers, first.json.token) });
    expect(back.status).toBe(200);
    expect(back.json.visitor_id).not.toBe(first.json.visitor_id);
    expect(back.json.visitor_found).toBe(false);
  });
});
