/**
 * Verifying webhook signatures on the receiving side (header format: src/events/webhook-signature.ts).
 *
 * `isValidWebhookSignature` is synchronous, like the reference SDK's function of that name, so
 * code ported from it (`if (!isValidWebhookSignature(...)) reject()`) keeps working: an async
 * function there would return a Promise, which is always truthy, and would accept forgeries.
 * Web Crypto only offers async HMAC, so the sync path uses the runtime's built-in `node:crypto`
 * through `process.getBuiltinModule` (Node >= 20.16, Bun, Deno 2), without importing Node
 * modules into this entry. Runtimes without it (browsers, edge workers) use
 * `isValidWebhookSignatureAsync` (Web Crypto); the sync function throws there rather than guess.
 */
import { headerMatches, toHex } from '../events/webhook-signature.js';

export interface WebhookSignatureInput {
  /** The `FPJS-Event-Signature` header value. */
  header: string;
  /** The raw request body, exactly as received (not re-serialised JSON). */
  data: Uint8Array | string;
  /** The webhook's signing key. */
  secret: string;
}

interface SyncHmac {
  createHmac(algorithm: 'sha256', key: string): { update(data: Uint8Array | string): { digest(encoding: 'hex'): string } };
}

function builtinCrypto(): SyncHmac | undefined {
  const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  return proc?.getBuiltinModule?.('node:crypto') as SyncHmac | undefined;
}

/** Synchronous check (Node, Bun, Deno); true when any `v1=` entry of the header matches. */
export function isValidWebhookSignature({ header, data, secret }: WebhookSignatureInput): boolean {
  const crypto = builtinCrypto();
  if (!crypto) {
    throw new TypeError('isValidWebhookSignature needs node:crypto (Node >= 20.16, Bun, Deno); use isValidWebhookSignatureAsync on this runtime');
  }
  return headerMatches(header, crypto.createHmac('sha256', secret).update(data).digest('hex'));
}

/** The same check with Web Crypto: any runtime with `crypto.subtle` (browsers, edge workers, Node). */
export async function isValidWebhookSignatureAsync({ header, data, secret }: WebhookSignatureInput): Promise<boolean> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  // A copy: Web Crypto takes ArrayBuffer-backed views only (not a SharedArrayBuffer's).
  const body = typeof data === 'string' ? encoder.encode(data) : new Uint8Array(data);
  const mac = await crypto.subtle.sign('HMAC', key, body);
  return headerMatches(header, toHex(new Uint8Array(mac)));
}
