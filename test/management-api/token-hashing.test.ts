/**
 * Migration 006 hashes the tokens of existing keys in place: a key made with the old schema
 * (plain token) still authenticates afterwards, and no secret token is left in the database.
 */
import { Migrator } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { createService } from '../../src/service/index.js';
import { findApiKeyByToken } from '../../src/service/store/api-keys.js';
import { kyselyOf, openStore } from '../../src/service/store/index.js';
import { migrationProvider } from '../../src/service/store/migrations/index.js';
import { hashToken } from '../../src/service/store/token-hash.js';
import { ENGINES, createTestDatabase, type TestDatabase } from '../helpers/test-service.js';
import { identifyRequest, postIdentify } from '../helpers/identify-request.js';

describe.each(ENGINES)('token hashing (%s)', (engine) => {
  let database: TestDatabase | undefined;
  afterEach(async () => {
    await database?.drop();
  });

  it('migration 006 hashes old plain tokens; the old tokens still work', async () => {
    database = await createTestDatabase(engine);
    const old = openStore({ dataDir: database.config.dataDir ?? '', databaseUrl: database.config.databaseUrl });
    const db = kyselyOf(old);
    const migrated = await new Migrator({ db, provider: migrationProvider }).migrateTo('005-covering-visitor-index');
    expect(migrated.error).toBeUndefined();
    // Rows as the previous schema had them (no token_hash, no permissions): raw, untyped inserts.
    const raw = db as any;
    await raw.insertInto('workspaces').values({ id: 'ws_old', name: 'Old', region: 'us', deletion_enabled: 0, created_at: 1 }).execute();
    await raw.insertInto('environments').values({ id: 'ae_old', workspace_id: 'ws_old', name: 'Old env', created_at: 1 }).execute();
    const row = (type: string, token: string) => ({
      id: `tok_old_${type}`, workspace_id: 'ws_old', environment_id: type === 'public' ? 'ae_old' : null, type, name: `old ${type}`,
      description: null, token, status: 'enabled', rate_limit: 1000, created_at: 1, disabled_at: null,
    });
    const secret = 'S'.repeat(32);
    const pub = 'P'.repeat(20);
    await raw.insertInto('api_keys').values([row('secret', secret), row('public', pub)]).execute();
    // 006 and whatever later migrations exist (007 encryption keys, ...) run on top.
    expect(await old.migrate()).toContain('006-management-api');

    const stored = await db.selectFrom('api_keys').selectAll().orderBy('id').execute();
    expect(stored.map((k) => [k.type, k.token, k.token_hash])).toEqual([
      ['public', pub, hashToken(pub)],
      ['secret', null, hashToken(secret)],
    ]);
    expect((await findApiKeyByToken(old, secret))?.id).toBe('tok_old_secret');
    expect(await findApiKeyByToken(old, 'S'.repeat(31) + 'T')).toBeUndefined();
    const env = await db.selectFrom('environments').selectAll().executeTakeFirstOrThrow();
    expect(env).toMatchObject({ id: 'ae_old', is_default: 1, description: null, updated_at: null });
    await old.destroy();

    // Through the service: the old secret key reads the Server API, the old public key identifies.
    const service = await createService({ port: 0, host: '127.0.0.1', logLevel: 'silent', ...database.config });
    try {
      const url = await service.listen();
      expect((await fetch(`${url}/v4/events`, { headers: { Authorization: `Bearer ${secret}` } })).status).toBe(200);
      expect((await postIdentify(url, identifyRequest(pub))).status).toBe(200);
    } finally {
      await service.close();
    }
  });

  it('new secret and management tokens are stored only as their hash', async () => {
    database = await createTestDatabase(engine);
    const service = await createService({ port: 0, logLevel: 'silent', ...database.config });
    try {
      const { secretKey, managementKey } = service.bootstrap;
      const rows = await kyselyOf(service.ctx.store).selectFrom('api_keys').selectAll().execute();
      const dump = JSON.stringify(rows);
      expect(dump).not.toContain(secretKey);
      expect(dump).not.toContain(managementKey);
      expect(rows.find((r) => r.type === 'public')?.token).toBe(service.bootstrap.publicKey);
    } finally {
      await service.close();
    }
  });
});
