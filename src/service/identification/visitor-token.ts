/**
 * The visitor token: a compact HS256 JWT the service signs and the agent keeps in the
 * browser's storages. It names the visitor and the workspace; only this installation's secret
 * can produce one, so a page cannot claim someone else's visitor ID.
 */
import { jwtVerify, SignJWT } from 'jose';

export interface VisitorTokenClaims {
  visitorId: string;
  workspaceId: string;
  /** Seconds since epoch, when the token was issued. */
  issuedAt: number;
}

/** Longer than any sane token; a longer string is rejected before any crypto runs. */
const MAX_TOKEN_LENGTH = 1024;

export interface VisitorTokenCodec {
  sign(visitorId: string, workspaceId: string, nowMs: number): Promise<string>;
  /** The claims of a genuine token of this workspace, or null (forged, foreign, malformed). */
  verify(token: string, workspaceId: string, nowMs: number): Promise<VisitorTokenClaims | null>;
}

export function createVisitorTokenCodec(secret: Uint8Array): VisitorTokenCodec {
  if (secret.length < 32) throw new Error('the visitor token secret must have at least 32 bytes');
  // Import once: jose would otherwise convert the raw secret on every call.
  const keyPromise = crypto.subtle.importKey('raw', new Uint8Array(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign', 'verify']);

  return {
    async sign(visitorId, workspaceId, nowMs) {
      return new SignJWT({ wid: workspaceId })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(visitorId)
        .setIssuedAt(Math.floor(nowMs / 1000))
        .sign(await keyPromise);
    },
    async verify(token, workspaceId, nowMs) {
      if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN_LENGTH) return null;
      try {
        const { payload } = await jwtVerify(token, await keyPromise, {
          algorithms: ['HS256'],
          currentDate: new Date(nowMs),
        });
        if (payload.wid !== workspaceId || typeof payload.sub !== 'string' || typeof payload.iat !== 'number') return null;
        return { visitorId: payload.sub, workspaceId, issuedAt: payload.iat };
      } catch {
        return null;
      }
    },
  };
}
