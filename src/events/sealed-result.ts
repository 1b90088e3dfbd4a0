/**
 * Sealed results: the one seal/unseal implementation, shared by the service (which seals the
 * v4 event into the identification response) and `tessera/server` (which opens it).
 *
 * Format (compatibility.md): `9E 85 DC ED` + 12-byte nonce + AES-256-GCM ciphertext + 16-byte
 * tag, no additional data; the plaintext is the v4 event JSON compressed with raw DEFLATE.
 *
 * Web-platform APIs only (Web Crypto, CompressionStream, Blob, Response), so the same code runs
 * in Node 20+, Deno, Bun and edge runtimes.
 */

export const SEALED_HEADER = Uint8Array.of(0x9e, 0x85, 0xdc, 0xed);
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
export const SEALING_KEY_BYTES = 32;

/** Why one key could not open a sealed result. */
export type UnsealFailureReason = 'invalid_key' | 'invalid_header' | 'decryption_failed' | 'invalid_deflate' | 'invalid_json';

/** One key's failure to open a sealed result, with the step that failed. */
export class UnsealError extends Error {
  override readonly name = 'UnsealError';

  constructor(
    readonly reason: UnsealFailureReason,
    message: string,
  ) {
    super(message);
  }
}

/** Seals the v4 event JSON (as the Server API returns it) with a 32-byte key. */
export async function sealEventJson(eventJson: string, key: Uint8Array): Promise<Uint8Array> {
  const plaintext = await pipeThrough(new TextEncoder().encode(eventJson), new CompressionStream('deflate-raw'));
  const nonce = crypto.getRandomValues(new Uint8Array(NONCE_BYTES));
  const aesKey = await importAesKey(key, 'encrypt');
  const ciphertextAndTag = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv: nonce }, aesKey, plaintext));
  const sealed = new Uint8Array(SEALED_HEADER.length + NONCE_BYTES + ciphertextAndTag.length);
  sealed.set(SEALED_HEADER, 0);
  sealed.set(nonce, SEALED_HEADER.length);
  sealed.set(ciphertextAndTag, SEALED_HEADER.length + NONCE_BYTES);
  return sealed;
}

/**
 * Opens a sealed result with one key and returns the event JSON text parsed. Throws an
 * `UnsealError` naming the step that failed, so a caller trying several keys can say why
 * each one did not fit.
 */
export async function unsealEventJson(sealed: Uint8Array, key: Uint8Array): Promise<unknown> {
  if (sealed.length < SEALED_HEADER.length + NONCE_BYTES + TAG_BYTES || !SEALED_HEADER.every((b, i) => sealed[i] === b)) {
    throw new UnsealError('invalid_header', 'not a sealed result: the 9E 85 DC ED header is missing or the data is too short');
  }
  const aesKey = await importAesKey(key, 'decrypt');
  const nonce = sealed.slice(SEALED_HEADER.length, SEALED_HEADER.length + NONCE_BYTES);
  let compressed: Uint8Array;
  try {
    const body = sealed.slice(SEALED_HEADER.length + NONCE_BYTES);
    compressed = new Uint8Array(await crypto.subtle.decrypt({ name: 'AES-GCM', iv: nonce }, aesKey, body));
  } catch {
    throw new UnsealError('decryption_failed', 'decryption failed: wrong key or the data was altered (authentication tag mismatch)');
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(await pipeThrough(compressed, new DecompressionStream('deflate-raw')));
  } catch {
    throw new UnsealError('invalid_deflate', 'the decrypted data is not raw DEFLATE of UTF-8 text');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new UnsealError('invalid_json', 'the decompressed data is not JSON');
  }
}

async function importAesKey(key: Uint8Array, usage: 'encrypt' | 'decrypt'): Promise<CryptoKey> {
  if (key.length !== SEALING_KEY_BYTES) {
    throw new UnsealError('invalid_key', `the key must be ${SEALING_KEY_BYTES} bytes (got ${key.length})`);
  }
  // A copy: Web Crypto wants a view of a plain ArrayBuffer, which a caller's view may not be.
  return crypto.subtle.importKey('raw', new Uint8Array(key), 'AES-GCM', false, [usage]);
}

async function pipeThrough(bytes: Uint8Array, transform: CompressionStream | DecompressionStream): Promise<Uint8Array<ArrayBuffer>> {
  const output = new Blob([new Uint8Array(bytes)]).stream().pipeThrough(transform);
  return new Uint8Array(await new Response(output).arrayBuffer());
}
