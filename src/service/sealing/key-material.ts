/**
 * Encryption at rest of encryption-key values: each value is stored as AES-256-GCM under the
 * service's master key (master-key.ts), so a copy of the database alone does not open sealed
 * results. The key's id is the additional data: a value copied into another row fails to open.
 *
 * Stored form: `v1.` + base64(12-byte nonce + ciphertext + 16-byte tag).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const PREFIX = 'v1.';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export function encryptKeyMaterial(masterKey: Uint8Array, keyId: string, token: string): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', masterKey, nonce);
  cipher.setAAD(Buffer.from(keyId, 'utf8'));
  const ciphertext = Buffer.concat([cipher.update(token, 'utf8'), cipher.final()]);
  return PREFIX + Buffer.concat([nonce, ciphertext, cipher.getAuthTag()]).toString('base64');
}

export function decryptKeyMaterial(masterKey: Uint8Array, keyId: string, stored: string): string {
  if (!stored.startsWith(PREFIX)) throw new Error(`encryption key ${keyId}: unknown storage format`);
  const bytes = Buffer.from(stored.slice(PREFIX.length), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', masterKey, bytes.subarray(0, NONCE_BYTES));
  decipher.setAAD(Buffer.from(keyId, 'utf8'));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    throw new Error(`encryption key ${keyId} cannot be decrypted: the master key is not the one it was stored with`);
  }
}
