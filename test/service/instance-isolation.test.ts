/**
 * Two services in one process, each on its own SQLite database, share nothing: keys, read
 * caches, compiled statements and group-commit writers belong to each service's store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, setApiKeyRateLimit, setApiKeyStatus } from '../../src/service/store/api-keys.js';
import { countEvents } from '../../src/service/store/events.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { READ_CACHE_TTL_MS } from '../../src/service/store/read-cache.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { startTestService, type TestService } from '../helpers/test-service.js';

describe('two services in one process', () => {
  let a: TestService;
  let b: TestService;

  beforeAll(async () => {
    a = await startTestService();
    b = await startTestService();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  const identify = (t: TestService, key: string) => postIdentify(t.url, identifyRequest(key));

  it('keep their own keys: a key created or disabled in one does not exist or change in the other', async () => {
    const key = await createApiKey(a.service.ctx.store, { workspaceId: a.workspaceId, environmentId: a.environmentId, type: 'public', name: 'only in a', now: Date.now() });
    expect((await identify(a, key.token)).status).toBe(200);
    expect((await identify(b, key.token)).status).toBe(403);

    await setApiKeyStatus(a.service.ctx.store, key.id, 'disabled', Date.now());
    await setApiKeyStatus(a.service.ctx.store, (await findOwnPublicKeyId(a))!, 'disabled', Date.now());
    try {
      expect((await identify(a, key.token)).status).toBe(403);
      expect((await identify(a, a.keys.publicKey)).status).toBe(403);
      expect((await identify(b, b.keys.publicKey)).status).toBe(200);
    } finally {
      await setApiKeyStatus(a.service.ctx.store, (await findOwnPublicKeyId(a))!, 'enabled', Date.now());
    }
  });

  it("a write through one service neither invalidates nor fills the other's read cache", async () => {
    // The key row changes behind b's back (as another process would change it); b answers from
    // its cache until its own write or the TTL. A write through a must not count as b's.
    for (let attempt = 0; ; attempt++) {
      const key = await createApiKey(b.service.ctx.store, { workspaceId: b.workspaceId, environmentId: b.environmentId, type: 'public', name: `cached ${attempt}`, now: Date.now() });
      const started = performance.now();
      expect((await identify(b, key.token)).status).toBe(200); // cached in b
      await kyselyOf(b.service.ctx.store).updateTable('api_keys').set({ status: 'disabled' }).where('id', '=', key.id).execute();
      await setApiKeyRateLimit(a.service.ctx.store, (await findOwnPublicKeyId(a))!, 1000); // a write in a
      const stillCached = (await identify(b, key.token)).status;
      // A loaded machine may outlast the TTL: then the check proves nothing, try again.
      if (performance.now() - started >= READ_CACHE_TTL_MS * 0.8 && attempt < 3) continue;
      expect(stillCached).toBe(200);

      // b's own write invalidates b's cache at once.
      await setApiKeyRateLimit(b.service.ctx.store, key.id, 1000);
      expect((await identify(b, key.token)).status).toBe(403);
      // a never read this token: a's cache holds nothing for it.
      expect((await identify(a, key.token)).status).toBe(403);
      return;
    }
  });

  it('write and commit on their own: closing one leaves the other storing events', async () => {
    const before = await countEvents(b.service.ctx.store);
    const c = await startTestService();
    await Promise.all([identify(c, c.keys.publicKey), identify(b, b.keys.publicKey), identify(c, c.keys.publicKey)]);
    await c.close();
    const results = await Promise.all([identify(b, b.keys.publicKey), identify(b, b.keys.publicKey)]);
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(await countEvents(b.service.ctx.store)).toBe(before + 3);
  });
});

async function findOwnPublicKeyId(t: TestService): Promise<string | undefined> {
  const row = await kyselyOf(t.service.ctx.store).selectFrom('api_keys').select('id').where('token', '=', t.keys.publicKey).executeTakeFirst();
  return row?.id;
}
