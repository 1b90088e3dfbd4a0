/**
 * The encryption-key operations of the Management API over HTTP, on both engines, through the
 * `./server` client: create, list (filters, pagination), get, update, rotate, delete, and the
 * values they give opening the sealed results of identification.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ManagementApiClient, unsealEventsResponse, type EncryptionKey, type ManagementApiError } from '../../src/server/index.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';
import { liftManagementRateLimit } from './helpers.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

const failure = (promise: Promise<unknown>) => promise.then(() => undefined, (e: unknown) => e as ManagementApiError);

describe.each(ENGINES)('Management API: encryption keys (%s)', (engine) => {
  let t: TestService;
  let client: ManagementApiClient;
  let key: EncryptionKey;

  beforeAll(async () => {
    const config = engine === 'postgres' ? { masterKey: randomBytes(32).toString('base64') } : {};
    t = await startTestService({ engine, config });
    await liftManagementRateLimit(t);
    client = new ManagementApiClient({ apiKey: t.keys.managementKey, baseUrl: t.url });
  });
  afterAll(async () => {
    await t?.close();
  });

  const identify = async () => (await postIdentify(t.url, identifyRequest(t.keys.publicKey))).json as { event_id: string; sealed_result: string | null };

  test('create: an enabled key in the default environment, with its three values', async () => {
    key = await client.createEncryptionKey({ name: 'Backend unsealing', description: 'for the checkout service' });
    expect(key).toEqual({
      id: expect.stringMatching(/^ek_/),
      name: 'Backend unsealing',
      description: 'for the checkout service',
      status: 'enabled',
      environment: t.environmentId,
      created_at: expect.stringMatching(ISO),
      last_activated_at: key.created_at,
      last_deactivated_at: null,
      last_rotated_at: null,
      previous_token: null,
      token: expect.any(String),
      next_token: expect.any(String),
    });
    expect(Buffer.from(key.token, 'base64')).toHaveLength(32);
    expect(await client.getEncryptionKey(key.id)).toEqual(key);
  });

  test('identification results open with the token the API gave', async () => {
    const result = await identify();
    const event = await unsealEventsResponse(result.sealed_result!, [{ key: key.token }]);
    expect(event.event_id).toBe(result.event_id);
  });

  test('rotate: previous <- token <- next <- new; old results open with previous_token', async () => {
    const before = await identify();
    const rotated = await client.rotateEncryptionKey(key.id);
    expect(rotated).toMatchObject({ previous_token: key.token, token: key.next_token, last_rotated_at: expect.stringMatching(ISO) });
    expect(rotated.next_token).not.toBe(key.next_token);
    const all = [rotated.previous_token!, rotated.token, rotated.next_token].map((k) => ({ key: k }));
    expect((await unsealEventsResponse(before.sealed_result!, all)).event_id).toBe(before.event_id);
    const after = await identify();
    expect((await unsealEventsResponse(after.sealed_result!, [{ key: rotated.token }])).event_id).toBe(after.event_id);
    key = rotated;
  });

  test('update: name, description and status with their timestamps; disabled keys seal nothing', async () => {
    const disabled = await client.updateEncryptionKey(key.id, { status: 'disabled', name: 'Renamed key', description: null });
    expect(disabled).toMatchObject({ status: 'disabled', name: 'Renamed key', description: null, last_deactivated_at: expect.stringMatching(ISO) });
    expect((await identify()).sealed_result).toBeNull();
    const enabled = await client.updateEncryptionKey(key.id, { status: 'enabled' });
    expect(enabled.last_deactivated_at).toBe(disabled.last_deactivated_at);
    expect(enabled.token).toBe(key.token);
    expect((await identify()).sealed_result).not.toBeNull();
  });

  test('list: filters by status and environment, pages with cursors', async () => {
    const environment = await client.createEnvironment({ name: 'Staging' });
    const staging = await client.createEncryptionKey({ name: 'Staging key', environment: environment.id, status: 'disabled' });
    const third = await client.createEncryptionKey({ name: 'Third key' });

    const all = await client.listEncryptionKeys();
    expect(all.data.map((k) => k.id)).toEqual([key.id, staging.id, third.id]);
    expect(all).toMatchObject({ nextCursor: null, prevCursor: null });
    expect((await client.listEncryptionKeys({ status: 'disabled' })).data.map((k) => k.id)).toEqual([staging.id]);
    expect((await client.listEncryptionKeys({ environment: environment.id })).data.map((k) => k.id)).toEqual([staging.id]);

    const first = await client.listEncryptionKeys({ limit: 2 });
    expect(first.data).toHaveLength(2);
    const second = await client.listEncryptionKeys({ limit: 2, cursor: first.nextCursor! });
    expect(second.data.map((k) => k.id)).toEqual([third.id]);
    expect(second.nextCursor).toBeNull();
    const ids: string[] = [];
    for await (const k of client.iterateEncryptionKeys({ limit: 1 })) ids.push(k.id);
    expect(ids).toEqual([key.id, staging.id, third.id]);

    // An environment with encryption keys cannot be deleted.
    expect(await failure(client.deleteEnvironment(environment.id))).toMatchObject({ status: 409, message: expect.stringContaining('encryption key') });
  });

  test('bad input is refused with violations; unknown keys are 404', async () => {
    const bad = await failure(client.createEncryptionKey({ name: 'x', status: 'on' as 'enabled' }));
    expect(bad).toMatchObject({ status: 422, code: 'validation_failed' });
    expect(bad!.violations.map((v) => v.property).sort()).toEqual(['name', 'status']);
    expect(await failure(client.listEncryptionKeys({ limit: 102 }))).toMatchObject({ status: 400 });
    expect(await failure(client.createEncryptionKey({ name: 'Nowhere', environment: 'ae_nosuch' }))).toMatchObject({ status: 404 });
    expect(await failure(client.getEncryptionKey('ek_nosuch'))).toMatchObject({ status: 404, code: 'not_found' });
    expect(await failure(client.rotateEncryptionKey('ek_nosuch'))).toMatchObject({ status: 404 });
  });

  test('the API version header and a management key are required', async () => {
    const noVersion = await fetch(`${t.url}/encryption-keys`, { headers: { Authorization: `Bearer ${t.keys.managementKey}` } });
    expect(noVersion.status).toBe(400);
    const secret = new ManagementApiClient({ apiKey: t.keys.secretKey, baseUrl: t.url });
    expect(await failure(secret.listEncryptionKeys())).toMatchObject({ status: 401 });
  });

  test('delete: the key is gone and no longer seals', async () => {
    for (const k of (await client.listEncryptionKeys()).data) await client.deleteEncryptionKey(k.id);
    expect(await failure(client.getEncryptionKey(key.id))).toMatchObject({ status: 404 });
    expect(await failure(client.deleteEncryptionKey(key.id))).toMatchObject({ status: 404 });
    expect((await identify()).sealed_result).toBeNull();
  });
});

describe('Management API without a master key (PostgreSQL without TESSERA_MASTER_KEY)', () => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ engine: 'postgres' });
  });
  afterAll(async () => {
    await t?.close();
  });

  test('encryption-key operations answer 409 naming the missing setting', async () => {
    const client = new ManagementApiClient({ apiKey: t.keys.managementKey, baseUrl: t.url });
    const error = await failure(client.createEncryptionKey({ name: 'Needs master key' }));
    expect(error).toMatchObject({ status: 409, message: expect.stringContaining('TESSERA_MASTER_KEY') });
  });
});
