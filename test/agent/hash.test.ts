import { createHash } from 'node:crypto';
import { afterEach, expect, test } from 'vitest';
import { sha256 } from '../../src/agent/hash.js';

const real = Object.getOwnPropertyDescriptor(globalThis, 'crypto')!;
afterEach(() => Object.defineProperty(globalThis, 'crypto', real));

test('SHA-256 as URL-safe base64 without padding (Web Crypto)', async () => {
  for (const text of ['', 'a', 'Tessera \u00e9\u{1F600}', 'x'.repeat(10000)])
    expect(await sha256(text)).toBe(createHash('sha256').update(text).digest('base64url'));
});

test('outside a secure context (no crypto.subtle) a 64-bit FNV-1a stands in, still never the raw value', async () => {
  Object.defineProperty(globalThis, 'crypto', { value: {}, configurable: true });
  const a = await sha256('secret=1');
  expect(a).toMatch(/^f[0-9a-z]{1,13}$/);
  expect(await sha256('secret=1')).toBe(a);
  expect(await sha256('secret=2')).not.toBe(a);
  // FNV-1a 64 of the empty string is its offset basis.
  expect(await sha256('')).toBe('f' + 0xcbf29ce484222325n.toString(36));
  expect(await sha256('a')).toBe('f' + 0xaf63dc4c8601ec8cn.toString(36)); // published test vector
});
