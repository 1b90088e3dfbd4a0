/** The visitor token: only this installation's secret makes one, only for its workspace. */
import { randomBytes } from 'node:crypto';
import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createVisitorTokenCodec } from '../../src/service/identification/visitor-token.js';

const NOW = Date.UTC(2026, 5, 1);

describe('visitor token', () => {
  const secret = randomBytes(32);
  const codec = createVisitorTokenCodec(secret);

  it('round-trips visitor, workspace and issue time', async () => {
    const token = await codec.sign('AbCdEfGhIjKlMnOpQrSt', 'ws_1', NOW);
    expect(await codec.verify(token, 'ws_1', NOW + 1000)).toEqual({ visitorId: 'AbCdEfGhIjKlMnOpQrSt', workspaceId: 'ws_1', issuedAt: NOW / 1000 });
  });

  it('rejects another workspace, another secret, alg none and garbage', async () => {
    const token = await codec.sign('AbCdEfGhIjKlMnOpQrSt', 'ws_1', NOW);
    expect(await codec.verify(token, 'ws_2', NOW)).toBeNull();
    expect(await createVisitorTokenCodec(randomBytes(32)).verify(token, 'ws_1', NOW)).toBeNull();
    const unsigned = new UnsecuredJWT({ wid: 'ws_1' }).setSubject('AbCdEfGhIjKlMnOpQrSt').setIssuedAt().encode();
    expect(await codec.verify(unsigned, 'ws_1', NOW)).toBeNull();
    const hs512 = await new SignJWT({ wid: 'ws_1' }).setProtectedHeader({ alg: 'HS512' }).setSubject('x').setIssuedAt().sign(randomBytes(64));
    expect(await codec.verify(hs512, 'ws_1', NOW)).toBeNull();
    for (const junk of ['', 'x', 'a.b.c', token + 'x', 'y'.repeat(5000)]) expect(await codec.verify(junk, 'ws_1', NOW)).toBeNull();
  });

  it('refuses a short secret', () => {
    expect(() => createVisitorTokenCodec(new Uint8Array(8))).toThrow(/32 bytes/);
  });
});
