/**
 * API tokens at rest. Secret, proxy and management tokens are stored only as a hash, so a
 * leaked database (or backup) does not leak working credentials; every key also has its hash
 * so that one indexed lookup finds any presented token.
 *
 * SHA-256 without salt or stretching is enough here: tokens are 32 to 40 characters drawn
 * uniformly from 62 (190+ bits), so no dictionary or brute force can invert the hash, and a
 * deterministic hash is what lets the lookup use an index. A slow password hash would only add
 * latency to every request.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

/** Hex SHA-256 of the token. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Constant-time comparison of two hex hashes (the lookup found a row; do not leak how much matched). */
export function sameTokenHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
