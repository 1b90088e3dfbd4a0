/**
 * Deleting an environment is refused while anything uses it, and the check and the delete are
 * one step: a key, rule, encryption key or webhook created at the same moment either blocks the
 * deletion (409) or fails because the environment is gone (404), never ends up in a deleted
 * environment. Over HTTP on SQLite and PostgreSQL; on PostgreSQL also with a second connection
 * holding the lock in between, to show which side waits for which.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../src/service/store/api-keys.js';
import { EnvironmentNotFoundError } from '../../src/service/store/environments.js';
import { insertFilteringRule } from '../../src/service/store/filtering-rules.js';
import { kyselyOf } from '../../src/service/store/index.js';
import { createWebhook } from '../../src/service/store/webhooks.js';
import { createEncryptionKey } from '../../src/service/sealing/encryption-keys.js';
import { ENGINES, startTestService, type TestService } from '../helpers/test-service.js';
import { liftManagementRateLimit, mgmt } from './helpers.js';

describe.each(ENGINES)('environment deletion and concurrent writes (%s)', (engine) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService({ engine, config: { masterKey: randomBytes(32).toString('base64') } });
    await liftManagementRateLimit(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  const newEnvironment = async (name = 'Staging'): Promise<string> => {
    const res = await mgmt(t, 'POST', '/environments', { body: { name } });
    expect(res.status).toBe(201);
    return res.body.data.id as string;
  };

  /** Keys, rules, encryption keys and webhooks of environments that no longer exist. */
  async function orphans(): Promise<string[]> {
    const db = kyselyOf(t.service.ctx.store);
    const environments = new Set((await db.selectFrom('environments').select('id').execute()).map((r) => r.id));
    const rows = [
      ...(await db.selectFrom('api_keys').select(['id', 'environment_id']).execute()),
      ...(await db.selectFrom('filtering_rules').select(['id', 'environment_id']).execute()),
      ...(await db.selectFrom('encryption_keys').select(['id', 'environment_id']).execute()),
      ...(await db.selectFrom('webhooks').select(['id', 'environment_id']).execute()),
    ];
    return rows.filter((r) => r.environment_id !== null && !environments.has(r.environment_id)).map((r) => r.id);
  }

  it('is refused with 409 while an API key, filtering rule, encryption key or webhook uses it, naming what blocks it', async () => {
    const env = await newEnvironment();
    const uses: [string, string, () => Promise<{ status: number; body: any }>][] = [
      ['1 API key', '/api-keys', () => mgmt(t, 'POST', '/api-keys', { body: { type: 'secret', name: 'stage key', environment: env } })],
      ['1 filtering rule', '/filtering-rules', () => mgmt(t, 'POST', '/filtering-rules', { body: { name: 'rule', environment: env, expression: 'true', action: 'allow' } })],
      ['1 encryption key', '/encryption-keys', () => mgmt(t, 'POST', '/encryption-keys', { body: { name: 'stage seal', environment: env } })],
      ['1 webhook', '/webhooks', () => mgmt(t, 'POST', '/webhooks', { body: { url: 'https://hooks.example/stage', environment: env } })],
    ];
    for (const [noun, path, create] of uses) {
      const created = await create();
      expect(created.status, path).toBe(201);
      const blocked = await mgmt(t, 'DELETE', `/environments/${env}`);
      expect(blocked.status, path).toBe(409);
      expect(blocked.body.error).toEqual({ code: 'conflict', message: `the environment still has ${noun}: delete or move them first` });
      expect((await mgmt(t, 'DELETE', `${path}/${created.body.data.id}`)).status, path).toBe(200);
    }
    expect((await mgmt(t, 'DELETE', `/environments/${env}`)).status).toBe(200);
    expect((await mgmt(t, 'DELETE', `/environments/${env}`)).status).toBe(404);
  });

  it('writes into a just-deleted environment fail with 404 "no environment", over HTTP and past the route\'s lookup', async () => {
    const env = await newEnvironment();
    const rule = await mgmt(t, 'POST', '/filtering-rules', { body: { name: 'mover', expression: 'true', action: 'allow' } });
    expect(rule.status).toBe(201);
    expect((await mgmt(t, 'DELETE', `/environments/${env}`)).status).toBe(200);

    const notFound = { code: 'not_found', message: `no environment "${env}"` };
    const attempts = [
      mgmt(t, 'POST', '/api-keys', { body: { type: 'public', name: 'late key', environment: env } }),
      mgmt(t, 'POST', '/filtering-rules', { body: { name: 'late rule', environment: env, expression: 'true', action: 'allow' } }),
      mgmt(t, 'POST', `/filtering-rules/${rule.body.data.id}`, { body: { id: rule.body.data.id, environment: env } }),
      mgmt(t, 'POST', '/encryption-keys', { body: { name: 'late seal', environment: env } }),
      mgmt(t, 'POST', '/webhooks', { body: { url: 'https://hooks.example/late', environment: env } }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual(notFound);
    }

    // The store's own check, inside the write's transaction: what a request that looked the
    // environment up just before its deletion runs into.
    const { ctx } = t.service;
    const common = { workspaceId: t.workspaceId, now: Date.now() };
    await expect(createApiKey(ctx.store, { ...common, environmentId: env, type: 'public', name: 'late key' })).rejects.toThrow(EnvironmentNotFoundError);
    await expect(insertFilteringRule(ctx.store, { environmentId: env, name: 'late', expression: 'true', action: 'allow', now: Date.now() })).rejects.toThrow(
      `no environment "${env}"`,
    );
    await expect(createWebhook(ctx.store, { ...common, environmentId: env, url: 'https://hooks.example/late' })).rejects.toThrow(EnvironmentNotFoundError);
    await expect(createEncryptionKey(ctx, { workspaceId: t.workspaceId, environmentId: env, name: 'late seal' })).rejects.toThrow(EnvironmentNotFoundError);
    expect(await orphans()).toEqual([]);
    await mgmt(t, 'DELETE', `/filtering-rules/${rule.body.data.id}`);
  });

  it('a deletion and a key creation at the same moment: one of them fails, never an orphaned key', async () => {
    for (let round = 0; round < 20; round++) {
      const env = await newEnvironment(`Race ${round}`);
      const [deletion, creation] = await Promise.all([
        mgmt(t, 'DELETE', `/environments/${env}`),
        mgmt(t, 'POST', '/api-keys', { body: { type: 'public', name: 'racing key', environment: env } }),
      ]);
      const outcome = `${deletion.status}/${creation.status}`;
      expect(['200/404', '409/201']).toContain(outcome);
      if (creation.status === 201) {
        await mgmt(t, 'DELETE', `/api-keys/${creation.body.data.id}`);
        expect((await mgmt(t, 'DELETE', `/environments/${env}`)).status).toBe(200);
      }
    }
    expect(await orphans()).toEqual([]);
  });

  if (engine === 'postgres') {
    /** A second connection to the service's database, as another process (or a slow request) would hold it. */
    async function connection(): Promise<pg.Client> {
      const client = new pg.Client({ connectionString: t.service.ctx.config.databaseUrl });
      await client.connect();
      return client;
    }
    const settled = <T>(p: Promise<T>) => Promise.race([p.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 300))]);

    it('a deletion waits for a key creation in flight (FOR SHARE) and then refuses: 409', async () => {
      const env = await newEnvironment();
      const client = await connection();
      try {
        await client.query('BEGIN');
        // What createApiKey does first: hold the environment.
        expect((await client.query('SELECT id FROM environments WHERE id = $1 FOR SHARE', [env])).rowCount).toBe(1);
        const deletion = mgmt(t, 'DELETE', `/environments/${env}`);
        expect(await settled(deletion)).toBe(false);
        await client.query(
          `INSERT INTO api_keys (id, workspace_id, environment_id, type, name, description, token, token_hash, status, rate_limit, permissions, created_at, disabled_at)
           VALUES ('tok_inflight', $1, $2, 'secret', 'in flight', NULL, NULL, 'x', 'enabled', 10, NULL, 0, NULL)`,
          [t.workspaceId, env],
        );
        await client.query('COMMIT');
        const res = await deletion;
        expect(res.status).toBe(409);
        expect(res.body.error.message).toBe('the environment still has 1 API key: delete or move them first');
      } finally {
        await client.query('ROLLBACK').catch(() => undefined);
        await client.end();
      }
      expect((await mgmt(t, 'DELETE', '/api-keys/tok_inflight')).status).toBe(200);
      expect((await mgmt(t, 'DELETE', `/environments/${env}`)).status).toBe(200);
    });

    it('a key creation waits for a deletion in flight (FOR UPDATE) and then fails: 404', async () => {
      const env = await newEnvironment();
      const client = await connection();
      try {
        await client.query('BEGIN');
        // What the deletion does first: lock the environment, check, delete.
        expect((await client.query('SELECT id FROM environments WHERE id = $1 FOR UPDATE', [env])).rowCount).toBe(1);
        const creation = mgmt(t, 'POST', '/api-keys', { body: { type: 'public', name: 'late key', environment: env } });
        expect(await settled(creation)).toBe(false);
        await client.query('DELETE FROM environments WHERE id = $1', [env]);
        await client.query('COMMIT');
        const res = await creation;
        expect(res.status).toBe(404);
        expect(res.body.error).toEqual({ code: 'not_found', message: `no environment "${env}"` });
      } finally {
        await client.query('ROLLBACK').catch(() => undefined);
        await client.end();
      }
      expect(await orphans()).toEqual([]);
    });
  }
});
