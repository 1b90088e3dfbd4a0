/**
 * The Management API's schema:
 * - api_keys: tokens of secret, proxy and management keys are replaced by their hash
 *   (`token_hash`, unique, for every key); `token` keeps only public tokens, which are public
 *   anyway (in CDN URLs). Management keys get `permissions` (JSON array; null = all).
 * - environments: `description`, `updated_at`, `is_default` (the workspace's oldest).
 * - workspaces: `data_retention_days` (null = the service's --retention-days).
 *
 * `token` loses NOT NULL and UNIQUE, which SQLite cannot alter in place: the table is rebuilt
 * (the same way on both engines; key tables are small). Existing tokens are hashed here, so old
 * keys keep working.
 */
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';

// The hash of store/token-hash.ts, repeated on purpose: a migration must keep doing what it
// did when it was written, whatever the store does later.
const sha256 = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

interface OldKeyRow {
  id: string;
  workspace_id: string;
  environment_id: string | null;
  type: string;
  name: string;
  description: string | null;
  token: string;
  status: string;
  rate_limit: number;
  created_at: number;
  disabled_at: number | null;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('api_keys_006')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('environment_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('token', 'text')
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('rate_limit', 'integer', (c) => c.notNull())
    .addColumn('permissions', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('disabled_at', 'bigint')
    .execute();
  const rows = (await db.selectFrom('api_keys').selectAll().execute()) as OldKeyRow[];
  for (const row of rows) {
    await db
      .insertInto('api_keys_006')
      .values({
        ...row,
        token: row.type === 'public' ? row.token : null,
        token_hash: sha256(row.token),
        permissions: null,
        rate_limit: Number(row.rate_limit),
        created_at: Number(row.created_at),
        disabled_at: row.disabled_at === null ? null : Number(row.disabled_at),
      })
      .execute();
  }
  await db.schema.dropTable('api_keys').execute();
  await db.schema.alterTable('api_keys_006').renameTo('api_keys').execute();
  await db.schema.createIndex('api_keys_workspace').on('api_keys').columns(['workspace_id', 'created_at']).execute();

  await db.schema.alterTable('environments').addColumn('description', 'text').execute();
  await db.schema.alterTable('environments').addColumn('updated_at', 'bigint').execute();
  await db.schema.alterTable('environments').addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0)).execute();
  // The first environment of each workspace is the one its first start created.
  await sql`update environments set is_default = 1 where id in (
    select e.id from environments e where not exists (
      select 1 from environments o where o.workspace_id = e.workspace_id
        and (o.created_at < e.created_at or (o.created_at = e.created_at and o.id < e.id))))`.execute(db);
  await db.schema.createIndex('environments_workspace').on('environments').columns(['workspace_id', 'created_at']).execute();

  await db.schema.alterTable('workspaces').addColumn('data_retention_days', 'integer').execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(): Promise<void> {
  // Hashed tokens cannot be restored: this migration has no way back.
  throw new Error('006-management-api cannot be reverted (tokens are hashed)');
}
