/** URL-safe base64 without padding. */
export const base64Url = (bytes: Uint8Array): string =>
  btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/**
 * SHA-256 of a string, URL-safe base64. Web Crypto exists only in secure contexts; on a plain
 * http page a small 64-bit FNV-1a stands in, so raw values still never leave the page.
 */
export async function sha256(text: string): Promise<string> {
  const bytes = new TextEncoder().encode(text);
  const subtle = globalThis.crypto?.subtle;
  if (subtle) return base64Url(new Uint8Array(await subtle.digest('SHA-256', bytes)));
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return 'f' + h.toString(36);
}
