import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { start, withoutDefault } from '../../src/agent/index.js';
import { visitorTokenStore } from '../../src/agent/visitor-token.js';
import { identified, startStubEndpoint, type StubEndpoint } from './helpers/stub-endpoint.js';

const clearCookies = () => {
  for (const c of document.cookie.split('; ')) if (c) document.cookie = `${c.split('=')[0]}=;max-age=0;path=/`;
};
const cookie = (name: string) => document.cookie.split('; ').find((c) => c.startsWith(name + '='))?.slice(name.length + 1);

let stub: StubEndpoint;
beforeEach(async () => {
  clearCookies();
  localStorage.clear();
  stub = await startStubEndpoint(identified({ token: 'tok-1' }));
});
afterEach(async () => {
  await stub.close();
  vi.restoreAllMocks();
});

/**
 * An in-memory IndexedDB, just enough for idb-keyval, whose every request answers after
 * `delay` ms (a real one is several tasks away). `data` is what it holds.
 */
function fakeIndexedDB(delay: number) {
  const data = new Map<unknown, unknown>();
  const request = (result: () => unknown) => {
    const r: { result?: unknown; onsuccess?: () => void } = {};
    setTimeout(() => {
      r.result = result();
      r.onsuccess?.();
    }, delay);
    return r;
  };
  const objectStore = () => ({
    get: (k: unknown) => request(() => data.get(k)),
    put: (v: unknown, k: unknown) => data.set(k, v),
    transaction: request(() => undefined),
  });
  const db = { transaction: () => ({ objectStore }) };
  (globalThis as { indexedDB?: unknown }).indexedDB = { open: () => request(() => db) };
  return data;
}

const get = (storageKeyPrefix?: string) => start({ apiKey: 'k', endpoints: withoutDefault(stub.url), storageKeyPrefix }).get();

describe('visitor token storage', () => {
  test('the token is written to the cookie and localStorage under the default prefix', async () => {
    await get();
    expect(cookie('_vid_t')).toBe('tok-1');
    expect(localStorage.getItem('_vid_t')).toBe('tok-1');
  });

  test('storageKeyPrefix names the keys', async () => {
    await get('acme_');
    expect(cookie('acme_t')).toBe('tok-1');
    expect(localStorage.getItem('acme_t')).toBe('tok-1');
    expect(localStorage.getItem('_vid_t')).toBeNull();
  });

  test('cookie values are encoded and read back (attributes are checked in Chromium, e2e/agent)', async () => {
    await visitorTokenStore('_vid_').write('a b;c');
    expect(cookie('_vid_t')).toBe('a%20b%3Bc');
    localStorage.clear();
    expect(await visitorTokenStore('_vid_').read()).toBe('a b;c');
  });

  test('restored from localStorage after cookies are cleared, and the cookie is repaired', async () => {
    await get();
    clearCookies();
    stub.reply = identified({ token: 'tok-2' });
    const store = visitorTokenStore('_vid_');
    expect(await store.read()).toBe('tok-1');
    expect(cookie('_vid_t')).toBe('tok-1');
    await get();
    expect(stub.requests[1]!.token).toBe('tok-1');
  });

  test('restored from the cookie after localStorage is cleared, and localStorage is repaired', async () => {
    await get();
    localStorage.clear();
    await get();
    expect(stub.requests[1]!.token).toBe('tok-1');
    expect(await visitorTokenStore('_vid_').read()).toBe('tok-1');
    expect(localStorage.getItem('_vid_t')).toBe('tok-1');
  });

  test('a throwing localStorage degrades silently to the cookie', async () => {
    vi.spyOn(Storage.prototype, 'getItem').mockImplementation(() => {
      throw new DOMException('blocked', 'SecurityError');
    });
    vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('full', 'QuotaExceededError');
    });
    await get();
    await get();
    expect(stub.requests[1]!.token).toBe('tok-1');
  });

  test('blocked cookies degrade silently to localStorage', async () => {
    const blocked = () => {
      throw new DOMException('blocked', 'SecurityError');
    };
    // An own accessor on the document shadows the real one until it is deleted.
    Object.defineProperty(document, 'cookie', { get: blocked, set: blocked, configurable: true });
    try {
      await get();
      await get();
    } finally {
      delete (document as { cookie?: string }).cookie;
    }
    expect(stub.requests[1]!.token).toBe('tok-1');
  });

  describe('with IndexedDB', () => {
    const IDB_DELAY_MS = 100; // open + get: 200 ms, within the read bound of 300 ms
    let idb: Map<unknown, unknown>;
    beforeEach(() => {
      idb = fakeIndexedDB(IDB_DELAY_MS);
    });
    afterEach(() => {
      delete (globalThis as { indexedDB?: unknown }).indexedDB;
    });

    test('a token in localStorage is read without waiting for IndexedDB, which is repaired once it answers', async () => {
      localStorage.setItem('_vid_t', 'tok-ls');
      const t0 = Date.now();
      expect(await visitorTokenStore('_vid_').read()).toBe('tok-ls');
      expect(Date.now() - t0).toBeLessThan(IDB_DELAY_MS);
      expect(cookie('_vid_t')).toBe('tok-ls');
      await vi.waitFor(() => expect(idb.get('_vid_t')).toBe('tok-ls'), { timeout: 10 * IDB_DELAY_MS });
    });

    test('a token only in IndexedDB is waited for, and restores the cookie and localStorage', async () => {
      idb.set('_vid_t', 'tok-idb');
      expect(await visitorTokenStore('_vid_').read()).toBe('tok-idb');
      expect(cookie('_vid_t')).toBe('tok-idb');
      expect(localStorage.getItem('_vid_t')).toBe('tok-idb');
    });

    test('the cookie wins over a different token in IndexedDB, which is overwritten', async () => {
      idb.set('_vid_t', 'tok-old');
      document.cookie = '_vid_t=tok-new;path=/';
      expect(await visitorTokenStore('_vid_').read()).toBe('tok-new');
      await vi.waitFor(() => expect(idb.get('_vid_t')).toBe('tok-new'), { timeout: 10 * IDB_DELAY_MS });
      expect(localStorage.getItem('_vid_t')).toBe('tok-new');
    });
  });

  test('nothing stored: no token is sent', async () => {
    await get();
    expect('token' in stub.requests[0]!).toBe(false);
  });
});
