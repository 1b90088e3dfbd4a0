/**
 * Encryption keys of sealed results. The three key values (previous, current, next) are kept
 * encrypted under the service's master key (sealing/key-material.ts); no column holds a plain
 * key.
 */
import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('encryption_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('environment_id', 'text', (c) => c.notNull().references('environments.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('last_activated_at', 'bigint')
    .addColumn('last_deactivated_at', 'bigint')
    .addColumn('last_rotated_at', 'bigint')
    .addColumn('previous_key', 'text')
    .addColumn('current_key', 'text', (c) => c.notNull())
    .addColumn('next_key', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('encryption_keys_workspace_created').on('encryption_keys').columns(['workspace_id', 'created_at', 'id']).execute();
  await db.schema.createIndex('encryption_keys_environment_status').on('encryption_keys').columns(['environment_id', 'status']).execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('encryption_keys').execute();
}
