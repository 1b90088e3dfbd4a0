import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { start, withoutDefault, type CacheOptions } from '../../src/agent/index.js';
import { identified, startStubEndpoint, type StubEndpoint } from './helpers/stub-endpoint.js';

let stub: StubEndpoint;
beforeEach(async () => {
  localStorage.clear();
  sessionStorage.clear();
  stub = await startStubEndpoint();
});
afterEach(async () => {
  await stub.close();
  vi.useRealTimers();
});

const agent = (cache: CacheOptions) => start({ apiKey: 'k', endpoints: withoutDefault(stub.url), cache });

describe.each(['sessionStorage', 'localStorage', 'agent'] as const)('cache in %s', (storage) => {
  test('a hit returns the same result with cache_hit true and makes no request', async () => {
    const a = agent({ storage, duration: 60 });
    const first = await a.get({ linkedId: 'u1', tags: { p: 1 } });
    const second = await a.get({ linkedId: 'u1', tags: { p: 1 } });
    expect(first.cache_hit).toBe(false);
    expect(second).toEqual({ ...first, cache_hit: true });
    expect(stub.requests).toHaveLength(1);
  });

  test('the key includes linkedId and tags', async () => {
    const a = agent({ storage, duration: 60 });
    const ids = [
      await a.get({ linkedId: 'u1' }),
      await a.get({ linkedId: 'u2' }),
      await a.get({ linkedId: 'u1', tags: { p: 1 } }),
      await a.get({ linkedId: 'u1', tags: { p: 2 } }),
      await a.get({ linkedId: 'u1', tag: { p: 2 } }),
    ].map((r) => r.event_id);
    expect(new Set(ids).size).toBe(4);
    expect(ids[4]).toBe(ids[3]);
    expect(stub.requests).toHaveLength(4);
  });

  test('an entry expires after its duration', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const a = agent({ storage, duration: 30 });
    const first = await a.get();
    vi.setSystemTime(Date.now() + 29_000);
    expect((await a.get()).event_id).toBe(first.event_id);
    vi.setSystemTime(Date.now() + 2_000);
    const fresh = await a.get();
    expect(fresh).toMatchObject({ cache_hit: false });
    expect(fresh.event_id).not.toBe(first.event_id);
  });

  test('sealed_result survives the cache as an object', async () => {
    stub.reply = identified({ sealed_result: 'nobtWQ==' });
    const a = agent({ storage, duration: 'optimize-cost' });
    await a.get();
    expect((await a.get()).sealed_result?.base64()).toBe('nobtWQ==');
  });
});

describe.each(['sessionStorage', 'localStorage'] as const)('persistent cache in %s', (storage) => {
  test('entries live in that storage under cachePrefix and are shared by a new agent', async () => {
    const first = await agent({ storage, duration: 'aggressive', cachePrefix: 'shop' }).get();
    const keys = Object.keys(window[storage]).filter((k) => k.startsWith('shop_tsr_'));
    expect(keys).toHaveLength(1);
    const again = await agent({ storage, duration: 'aggressive', cachePrefix: 'shop' }).get();
    expect(again).toMatchObject({ event_id: first.event_id, cache_hit: true });
    const otherPrefix = await agent({ storage, duration: 'aggressive', cachePrefix: 'blog' }).get();
    expect(otherPrefix.event_id).not.toBe(first.event_id);
  });

  test('a corrupt entry is ignored and replaced', async () => {
    const a = agent({ storage, duration: 60 });
    await a.get();
    const [key] = Object.keys(window[storage]).filter((k) => k.includes('_tsr_'));
    window[storage].setItem(key!, '{not json');
    const replaced = await a.get();
    expect(replaced.cache_hit).toBe(false);
    expect(await a.get()).toMatchObject({ event_id: replaced.event_id, cache_hit: true });
    window[storage].setItem(key!, JSON.stringify({ x: Date.now() + 1e6, r: { nope: 1 } }));
    expect((await a.get()).cache_hit).toBe(false);
  });
});

test('agent storage lives in the agent only', async () => {
  const first = await agent({ storage: 'agent', duration: 60 }).get();
  const second = await agent({ storage: 'agent', duration: 60 }).get();
  expect(second.event_id).not.toBe(first.event_id);
  expect(Object.keys(localStorage).concat(Object.keys(sessionStorage)).some((k) => k.includes('_tsr_'))).toBe(false);
});

test('a blocked storage disables the cache silently: every get() still answers', async () => {
  const blocked = () => {
    throw new DOMException('denied', 'SecurityError');
  };
  const real = Object.getOwnPropertyDescriptor(window, 'sessionStorage')!;
  Object.defineProperty(window, 'sessionStorage', { get: blocked, configurable: true });
  try {
    const a = agent({ storage: 'sessionStorage', duration: 60 });
    const results = [await a.get(), await a.get()];
    expect(results.map((r) => r.cache_hit)).toEqual([false, false]);
    expect(stub.requests).toHaveLength(2);
  } finally {
    Object.defineProperty(window, 'sessionStorage', real);
  }
});
