import { createHash } from 'node:crypto';
import { afterEach, describe, expect, test } from 'vitest';
import { start, withoutDefault } from '../../src/agent/index.js';
import { hashUrl } from '../../src/agent/url-hashing.js';
import { startStubEndpoint } from './helpers/stub-endpoint.js';

/** Reference SHA-256, URL-safe base64 without padding, computed by Node (not by the agent). */
const h = (s: string) => createHash('sha256').update(s).digest('base64url');

describe('hashUrl', () => {
  const url = 'https://shop.example.com/cart/items?b=2&a=1&c=x%20y#reviews';

  test('each chosen part becomes one SHA-256 of that part', async () => {
    expect(await hashUrl(url, { path: true })).toBe(`https://shop.example.com/${h('cart/items')}?b=2&a=1&c=x%20y#reviews`);
    expect(await hashUrl(url, { query: true })).toBe(`https://shop.example.com/cart/items?${h('a=1&b=2&c=x%20y')}#reviews`);
    expect(await hashUrl(url, { fragment: true })).toBe(`https://shop.example.com/cart/items?b=2&a=1&c=x%20y#${h('reviews')}`);
    expect(await hashUrl(url, { path: true, query: true, fragment: true })).toBe(
      `https://shop.example.com/${h('cart/items')}?${h('a=1&b=2&c=x%20y')}#${h('reviews')}`,
    );
    expect(await hashUrl(url, {})).toBe(url);
  });

  test('query parameter order does not change the hash', async () => {
    const all = { query: true };
    expect(await hashUrl('https://e.example/p?x=1&y=2&z=3', all)).toBe(await hashUrl('https://e.example/p?z=3&x=1&y=2', all));
    expect(await hashUrl('https://e.example/p?x=1&y=2', all)).not.toBe(await hashUrl('https://e.example/p?x=1&y=3', all));
  });

  test('empty parts are returned as they are', async () => {
    const all = { path: true, query: true, fragment: true };
    expect(await hashUrl('https://e.example/', all)).toBe('https://e.example/');
    expect(await hashUrl('https://e.example', all)).toBe('https://e.example/');
    expect(await hashUrl('https://e.example/?#', all)).toBe('https://e.example/');
    expect(await hashUrl('https://e.example:8443/?q=1', all)).toBe(`https://e.example:8443/?${h('q=1')}`);
  });

  test('non-web and unparsable URLs are left alone', async () => {
    expect(await hashUrl('about:blank', { path: true })).toBe('about:blank');
    expect(await hashUrl('', { path: true })).toBe('');
    expect(await hashUrl('not a url', { path: true })).toBe('not a url');
  });

  test('hashes are URL-safe base64 of 32 bytes', async () => {
    const out = await hashUrl('https://e.example/some/long/path/with/many/segments', { path: true });
    expect(out.slice('https://e.example/'.length)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

test('get() sends location.href and document.referrer hashed the same way', async () => {
  const stub = await startStubEndpoint();
  const referrer = 'https://search.example/results?q=tessera&page=2';
  Object.defineProperty(document, 'referrer', { value: referrer, configurable: true });
  try {
    (window as unknown as { happyDOM: { setURL(u: string): void } }).happyDOM.setURL('http://localhost:3000/account/42?tab=2&id=9#top');
    await start({ apiKey: 'k', endpoints: withoutDefault(stub.url), urlHashing: { path: true, query: true } }).get();
    expect(stub.requests[0]).toMatchObject({
      url: `http://localhost:3000/${h('account/42')}?${h('id=9&tab=2')}#top`,
      referrer: `https://search.example/${h('results')}?${h('page=2&q=tessera')}`,
    });
  } finally {
    delete (document as { referrer?: string }).referrer;
    await stub.close();
  }
});
afterEach(() => (window as unknown as { happyDOM: { setURL(u: string): void } }).happyDOM.setURL('http://localhost:3000/'));
