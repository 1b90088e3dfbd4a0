/**
 * The webhook signature header, shared by the service's signer and the `./server` verifier so
 * the format lives in one place: `v1=<hex HMAC-SHA256 of the raw body, keyed with the webhook's
 * signing key>`, several comma-separated entries allowed (key rotation: any may match).
 */

export const WEBHOOK_SIGNATURE_HEADER = 'FPJS-Event-Signature';
const VERSION = 'v1';

/** The header value for one HMAC, given as lowercase hex. */
export function formatWebhookSignature(hmacHex: string): string {
  return `${VERSION}=${hmacHex}`;
}

/** The `v1` HMACs a header carries (lowercased hex); entries of other versions are ignored. */
export function parseWebhookSignatures(header: string): string[] {
  const out: string[] = [];
  for (const entry of header.split(',')) {
    const [version, value] = entry.trim().split('=', 2);
    if (version === VERSION && value && /^[0-9a-fA-F]+$/.test(value)) out.push(value.toLowerCase());
  }
  return out;
}

/** Lowercase hex of bytes. */
export function toHex(bytes: Uint8Array): string {
  let hex = '';
  for (const byte of bytes) hex += byte.toString(16).padStart(2, '0');
  return hex;
}

/**
 * Equality whose time does not depend on where the strings differ, so a forger cannot learn
 * the expected HMAC byte by byte. The length is not secret (always 64 hex digits).
 */
export function constantTimeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/** True when one of the header's `v1` entries equals `expectedHex` (checked in constant time each). */
export function headerMatches(header: string, expectedHex: string): boolean {
  let match = false;
  // Every entry is compared (no early exit), so timing does not reveal which one matched.
  for (const candidate of parseWebhookSignatures(header)) match = constantTimeEqual(candidate, expectedHex) || match;
  return match;
}
