import { sha256 } from './hash.js';
import type { UrlHashing } from './types.js';

/**
 * Replaces each chosen part of an http(s) URL by the SHA-256 of that part. Query parameters are
 * sorted first so their order never changes the hash; empty parts stay as they are.
 */
export async function hashUrl(href: string, h: UrlHashing): Promise<string> {
  let u: URL;
  try {
    u = new URL(href);
  } catch {
    return href;
  }
  if (!/^https?:$/.test(u.protocol)) return href;
  const part = async (on: boolean | undefined, sep: string, value: string) =>
    value && on ? sep + (await sha256(value)) : value && sep + value;
  const path = u.pathname.slice(1);
  const query = u.search.slice(1).split('&').sort().join('&');
  return (
    u.origin +
    ((await part(h.path, '/', path)) || '/') +
    (await part(h.query, '?', h.query ? query : u.search.slice(1))) +
    (await part(h.fragment, '#', u.hash.slice(1)))
  );
}
