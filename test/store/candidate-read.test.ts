/**
 * The candidate read of a visit's keys (visitors.ts `findCandidates`) on a real database of
 * each engine: each key's visitors are counted up to its limit, only its most recent are
 * loaded, and the network's visitors are listed most recent first, up to
 * NETWORK_VISITORS_LISTED; a browser back on a new release is found among the more recent
 * devices of its hardware by its device key.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractFeatures } from '../../src/service/identification/features.js';
import { emptyProfile } from '../../src/service/identification/profile.js';
import type { Store } from '../../src/service/store/index.js';
import { CANDIDATES_PER_KEY, findCandidates, insertVisitor, KEY_COUNT_LIMIT, keysChanged, NETWORK_COUNT_LIMIT, NETWORK_VISITORS_LISTED } from '../../src/service/store/visitors.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';
import { newRelease, travel, windowsChrome } from '../identification/fixtures.js';

const NOW = Date.UTC(2026, 0, 10, 12);
const MINUTE = 60_000;

describe.each(ENGINES)('the candidate read on %s', (engine) => {
  let t: TestService;
  let store: Store;

  beforeAll(async () => {
    t = await startTestService({ engine, clock: () => NOW });
    store = t.service.ctx.store;
    await t.service.jobs.stop();
    // More visitors share s:crowd and p:net than either is counted up to; vis0 is the oldest.
    for (let i = 0; i < 70; i++) {
      await insertVisitor(store, { workspaceId: t.workspaceId, visitorId: `vis${String(i).padStart(2, '0')}`, now: NOW - (70 - i) * MINUTE, profile: emptyProfile(), keys: ['s:crowd', 'p:net', ...(i < 3 ? ['f:few'] : [])] });
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts each key up to its limit, loads its most recent visitors, lists the network most recent first', async () => {
    const read = await findCandidates(store, t.workspaceId, ['s:crowd', 'f:few', 'p:net', 's:nobody']);
    expect(read.crowding).toEqual({ s: KEY_COUNT_LIMIT, f: 3, p: NETWORK_COUNT_LIMIT });
    expect(read.visitorsPerKey).toEqual({ 's:crowd': KEY_COUNT_LIMIT, 'f:few': 3, 'p:net': NETWORK_COUNT_LIMIT });
    const recent = Array.from({ length: CANDIDATES_PER_KEY }, (_, i) => `vis${69 - i}`);
    expect(read.candidates.map((c) => c.visitorId).sort()).toEqual([...recent, 'vis00', 'vis01', 'vis02'].sort());
    expect(read.networkVisitors).toEqual(Array.from({ length: NETWORK_VISITORS_LISTED }, (_, i) => `vis${69 - i}`));
  });

  it('reads a browser back on a new release among more recent devices of its hardware, by its device key', async () => {
    // The browser visited first; then more devices of its hardware and fonts than a key loads,
    // with the same release but another timezone (a chain's laptops in another office).
    const own = windowsChrome();
    await insertVisitor(store, { workspaceId: t.workspaceId, visitorId: 'laptop', now: NOW - 200 * MINUTE, profile: emptyProfile(), keys: extractFeatures(own).blockingKeys });
    for (let i = 0; i < CANDIDATES_PER_KEY + 4; i++) {
      const keys = extractFeatures(travel(own)).blockingKeys;
      await insertVisitor(store, { workspaceId: t.workspaceId, visitorId: `chain${i}`, now: NOW - (100 - i) * MINUTE, profile: emptyProfile(), keys });
    }
    // It comes back without its token after a release: every key that holds a rendering signal changed.
    const keys = extractFeatures(newRelease(own)).blockingKeys;
    const read = await findCandidates(store, t.workspaceId, keys);
    expect(read.crowding.h).toBe(CANDIDATES_PER_KEY + 5);
    expect(read.candidates.map((c) => c.visitorId)).toContain('laptop');
    const withoutDeviceKey = await findCandidates(store, t.workspaceId, keys.filter((k) => !k.startsWith('d:')));
    expect(withoutDeviceKey.candidates.map((c) => c.visitorId)).not.toContain('laptop');
  });

  it('reads nothing for no keys, and a key nobody has counts nowhere', async () => {
    expect(await findCandidates(store, t.workspaceId, [])).toEqual({ candidates: [], crowding: {}, networkVisitors: [], visitorsPerKey: {} });
    expect(await findCandidates(store, t.workspaceId, ['s:nobody'])).toEqual({ candidates: [], crowding: {}, networkVisitors: [], visitorsPerKey: {} });
  });
});

describe('keysChanged', () => {
  it('compares key sets, not their order', () => {
    expect(keysChanged(['a', 'b'], ['b', 'a'])).toBe(false);
    expect(keysChanged(['a', 'b'], ['a'])).toBe(true);
    expect(keysChanged(['a'], ['a', 'c'])).toBe(true);
    expect(keysChanged(['a', 'b'], ['a', 'c'])).toBe(true);
  });
});
