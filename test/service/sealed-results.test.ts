/**
 * Sealed results through the real service on both engines: identification seals the event
 * with the environment's enabled encryption key, `unsealEventsResponse` opens it to the Server
 * API's body, rotation keeps old results open with `previous_token`, and key values are stored
 * encrypted under the master key.
 */
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { UnsealAggregateError, unsealEventsResponse } from '../../src/server/index.js';
import { createService } from '../../src/service/index.js';
import { MASTER_KEY_FILE } from '../../src/service/master-key.js';
import {
  createEncryptionKey,
  editEncryptionKey,
  MasterKeyMissingError,
  rotateEncryptionKey,
  type EncryptionKey,
} from '../../src/service/sealing/encryption-keys.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { createEnvironment } from '../../src/service/store/environments.js';
import { deleteWebhook } from '../../src/service/store/webhooks.js';
import { createVerifiedWebhook } from '../webhooks/helpers.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { createTestPostgresDatabase, ENGINES, startTestService, type TestService } from '../helpers/test-service.js';

describe.each(ENGINES)('sealed results (%s)', (engine) => {
  let t: TestService;
  let key: EncryptionKey;

  beforeAll(async () => {
    // PostgreSQL needs the master key from configuration; SQLite creates master.key itself.
    const config = engine === 'postgres' ? { masterKey: randomBytes(32).toString('base64') } : {};
    t = await startTestService({ engine, config });
  });
  afterAll(async () => {
    await t?.close();
  });

  const identify = async () => {
    const res = await postIdentify(t.url, identifyRequest(t.keys.publicKey));
    expect(res.status).toBe(200);
    return res.json as { event_id: string; sealed_result: string | null };
  };
  const serverApiBody = async (eventId: string) => {
    const res = await fetch(`${t.url}/v4/events/${eventId}`, { headers: { Authorization: `Bearer ${t.keys.secretKey}` } });
    expect(res.status).toBe(200);
    return res.text();
  };

  test('no encryption key: sealed_result is null', async () => {
    expect((await identify()).sealed_result).toBeNull();
  });

  test('with an enabled key the result opens to exactly the Server API event', async () => {
    key = await createEncryptionKey(t.service.ctx, { workspaceId: t.workspaceId, environmentId: t.environmentId, name: 'main key' });
    expect(key).toMatchObject({ id: expect.stringMatching(/^ek_/), status: 'enabled', lastActivatedAt: expect.any(Number), lastRotatedAt: null });
    expect(key.tokens.previous).toBeNull();

    const result = await identify();
    expect(result.sealed_result).toMatch(/^[A-Za-z0-9+/]+=*$/);
    const event = await unsealEventsResponse(result.sealed_result!, [{ key: key.tokens.current, algorithm: 'aes-256-gcm' }]);
    const body = await serverApiBody(result.event_id);
    expect(event).toEqual(JSON.parse(body));
    expect(JSON.stringify(event)).toBe(body);
  });

  test('after a rotation new results use the former next value; old ones open with previous_token', async () => {
    const before = await identify();
    const rotated = (await rotateEncryptionKey(t.service.ctx, t.workspaceId, key.id))!;
    expect(rotated.tokens).toEqual({ previous: key.tokens.current, current: key.tokens.next, next: expect.any(String) });
    expect(rotated.lastRotatedAt).toEqual(expect.any(Number));

    const all = [rotated.tokens.previous!, rotated.tokens.current, rotated.tokens.next].map((k) => ({ key: k }));
    const old = await unsealEventsResponse(before.sealed_result!, all);
    expect(old.event_id).toBe(before.event_id);

    const after = await identify();
    const fresh = await unsealEventsResponse(after.sealed_result!, [{ key: rotated.tokens.current }]);
    expect(fresh).toEqual(JSON.parse(await serverApiBody(after.event_id)));

    // The old result does not open with the new current value alone, nor with a stranger.
    const error = await unsealEventsResponse(before.sealed_result!, [{ key: rotated.tokens.current }, { key: randomBytes(32) }]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnsealAggregateError);
    expect((error as UnsealAggregateError).errors.map((e) => [e.keyIndex, e.reason])).toEqual([
      [0, 'decryption_failed'],
      [1, 'decryption_failed'],
    ]);
    key = rotated;
  });

  test('the database row holds no key value in plain form', async () => {
    const row = await kyselyOf(t.service.ctx.store).selectFrom('encryption_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
    const raw = JSON.stringify(row);
    for (const token of [key.tokens.previous!, key.tokens.current, key.tokens.next]) {
      expect(raw).not.toContain(token);
      expect(raw).not.toContain(Buffer.from(token, 'base64').toString('hex'));
    }
  });

  test('a sealing failure stores nothing (no event, no visitor, no webhook delivery) and answers 500 failed', async () => {
    const store = t.service.ctx.store;
    const webhook = await createVerifiedWebhook(store, { workspaceId: t.workspaceId, environmentId: null, url: 'https://hooks.example.invalid/' });
    const db = kyselyOf(store);
    const counts = async () => {
      const count = async (table: 'events' | 'webhook_deliveries') =>
        Number((await db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      return { events: await count('events'), deliveries: await count('webhook_deliveries') };
    };
    // Every visitor row as it is: a new visitor or a changed one (visit count, last seen) would show.
    const visitors = async () => [
      await db.selectFrom('visitors').selectAll().orderBy('visitor_id').execute(),
      await db.selectFrom('visitor_keys').selectAll().orderBy('visitor_id').execute(),
    ];
    const masterKey = t.service.ctx.masterKey;
    try {
      const before = await counts();
      const visitorsBefore = await visitors();
      // The stored key value no longer opens: sealing fails after the event was built.
      t.service.ctx.masterKey = randomBytes(32);
      const res = await postIdentify(t.url, identifyRequest(t.keys.publicKey));
      expect(res.status).toBe(500);
      expect(res.json).toEqual({ v: 1, error: { code: 'failed', message: expect.any(String) } });
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(await counts()).toEqual(before);
      expect(await visitors()).toEqual(visitorsBefore);

      // With the right master key the same request is stored, sealed and queued for the webhook.
      t.service.ctx.masterKey = masterKey;
      const ok = await postIdentify(t.url, identifyRequest(t.keys.publicKey));
      expect(ok.status).toBe(200);
      expect((ok.json as { sealed_result: string | null }).sealed_result).not.toBeNull();
      expect(await counts()).toMatchObject({ events: before.events + 1, deliveries: before.deliveries + 1 });
    } finally {
      t.service.ctx.masterKey = masterKey;
      await deleteWebhook(store, t.workspaceId, webhook.id);
    }
  });

  test('a disabled key seals nothing; enabling it again seals at once', async () => {
    const disabled = (await editEncryptionKey(t.service.ctx, t.workspaceId, key.id, { status: 'disabled' }))!;
    expect(disabled).toMatchObject({ status: 'disabled', lastDeactivatedAt: expect.any(Number) });
    expect((await identify()).sealed_result).toBeNull();
    await editEncryptionKey(t.service.ctx, t.workspaceId, key.id, { status: 'enabled' });
    expect((await identify()).sealed_result).not.toBeNull();
  });

  test("another environment's key does not seal this environment's results", async () => {
    const other = await createEnvironment(t.service.ctx.store, { workspaceId: t.workspaceId, name: 'staging', now: Date.now() });
    await editEncryptionKey(t.service.ctx, t.workspaceId, key.id, { status: 'disabled' });
    await createEncryptionKey(t.service.ctx, { workspaceId: t.workspaceId, environmentId: other.id, name: 'staging key' });
    expect((await identify()).sealed_result).toBeNull();
  });

  if (engine === 'sqlite') {
    test('the master key file is in the data directory with mode 600', () => {
      const file = join(t.service.ctx.config.dataDir, MASTER_KEY_FILE);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    });
  }
});

describe('PostgreSQL without the right master key', () => {
  test('encryption keys cannot be created; a database with keys refuses to start without its master key', async () => {
    const db = await createTestPostgresDatabase();
    const base = { ...db.config, port: 0, logLevel: 'silent' };
    try {
      const plain = await createService(base);
      const { workspaceId, environmentId } = plain.bootstrap;
      await expect(createEncryptionKey(plain.ctx, { workspaceId, environmentId, name: 'k1' })).rejects.toThrow(MasterKeyMissingError);
      await plain.close();

      const keyed = await createService({ ...base, masterKey: randomBytes(32).toString('base64') });
      await createEncryptionKey(keyed.ctx, { workspaceId, environmentId, name: 'k1' });
      await keyed.close();

      await expect(createService(base)).rejects.toThrow(/TESSERA_MASTER_KEY/);
      await expect(createService({ ...base, masterKey: randomBytes(32).toString('base64') })).rejects.toThrow(/not the one it was stored with/);
    } finally {
      await db.drop();
    }
  });
});
