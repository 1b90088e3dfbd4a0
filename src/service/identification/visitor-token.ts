/**
 * The visitor token: a compact HS256 JWT the service signs and the agent keeps in the
 * browser's storages. It names the visitor and the workspace; only this installation's secret
 * can produce one, so a page cannot claim someone else's visitor ID.
 *
 * Signed and verified with node:crypto's synchronous HMAC rather than jose: jose goes through
 * WebCrypto, whose every call is a job on the libuv thread pool (a thread hop, twice per
 * identification). The format is the standard one, so any JWT library (jose in the tests)
 * reads and makes the same tokens.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export interface VisitorTokenClaims {
  visitorId: string;
  workspaceId: string;
  /** Seconds since epoch, when the token was issued. */
  issuedAt: number;
  /**
   * Which storage jar holds the token: minted when a visit without a valid token gets one,
   * kept on every re-issue. Two jars of one visitor in use at once are two browsers.
   */
  instance?: string;
}

/** Longer than any sane token; a longer string is rejected before any crypto runs. */
const MAX_TOKEN_LENGTH = 1024;
/** The only header this codec writes or accepts: `{"alg":"HS256"}`. */
const HEADER = Buffer.from(JSON.stringify({ alg: 'HS256' })).toString('base64url');

export interface VisitorTokenCodec {
  sign(visitorId: string, workspaceId: string, nowMs: number, instance?: string): Promise<string>;
  /** The claims of a genuine token of this workspace, or null (forged, foreign, malformed). */
  verify(token: string, workspaceId: string, nowMs: number): Promise<VisitorTokenClaims | null>;
}

export function createVisitorTokenCodec(secret: Uint8Array): VisitorTokenCodec {
  if (secret.length < 32) throw new Error('the visitor token secret must have at least 32 bytes');
  const key = Buffer.from(secret);
  const mac = (signingInput: string) => createHmac('sha256', key).update(signingInput).digest();

  return {
    async sign(visitorId, workspaceId, nowMs, instance) {
      const claims = { wid: workspaceId, sub: visitorId, iat: Math.floor(nowMs / 1000), ...(instance ? { ins: instance } : {}) };
      const signingInput = `${HEADER}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
      return `${signingInput}.${mac(signingInput).toString('base64url')}`;
    },
    async verify(token, workspaceId, nowMs) {
      if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
      const parts = token.split('.');
      if (parts.length !== 3 || parts[0] !== HEADER) return null;
      const signature = Buffer.from(parts[2]!, 'base64url');
      const expected = mac(`${parts[0]}.${parts[1]}`);
      if (signature.length !== expected.length || !timingSafeEqual(signature, expected)) return null;
      let payload: { wid?: unknown; sub?: unknown; iat?: unknown; exp?: unknown; nbf?: unknown; ins?: unknown };
      try {
        payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8')) as typeof payload;
      } catch {
        return null;
      }
      if (typeof payload !== 'object' || payload === null) return null;
      if (payload.wid !== workspaceId || typeof payload.sub !== 'string' || typeof payload.iat !== 'number') return null;
      // This codec never sets exp or nbf; honour them anyway if a token carries them.
      const nowS = Math.floor(nowMs / 1000);
      if (payload.exp !== undefined && (typeof payload.exp !== 'number' || payload.exp <= nowS)) return null;
      if (payload.nbf !== undefined && (typeof payload.nbf !== 'number' || payload.nbf > nowS)) return null;
      const instance = typeof payload.ins === 'string' && payload.ins.length <= 32 ? payload.ins : undefined;
      return { visitorId: payload.sub, workspaceId, issuedAt: payload.iat, ...(instance ? { instance } : {}) };
    },
  };
}
