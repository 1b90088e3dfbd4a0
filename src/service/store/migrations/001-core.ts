/** Core tables: workspaces, environments, API keys, filtering rules, settings and events. */
import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('region', 'text', (c) => c.notNull())
    .addColumn('deletion_enabled', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('environments')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
    .addColumn('environment_id', 'text')
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('token', 'text', (c) => c.notNull().unique())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('rate_limit', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('disabled_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_keys_workspace').on('api_keys').columns(['workspace_id']).execute();

  await db.schema
    .createTable('filtering_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('environment_id', 'text', (c) => c.notNull())
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('expression', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('deny_with', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint')
    .execute();
  await db.schema
    .createIndex('filtering_rules_environment_position')
    .on('filtering_rules')
    .columns(['environment_id', 'position'])
    .execute();

  await db.schema
    .createTable('settings')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('events')
    .addColumn('event_id', 'text', (c) => c.primaryKey())
    .addColumn('workspace_id', 'text', (c) => c.notNull())
    .addColumn('environment_id', 'text', (c) => c.notNull())
    .addColumn('visitor_id', 'text', (c) => c.notNull())
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('linked_id', 'text')
    .addColumn('ip_address', 'text')
    .addColumn('url', 'text')
    .addColumn('origin', 'text')
    .addColumn('suspect', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('bot', 'text')
    .addColumn('incognito', 'integer')
    .addColumn('vpn', 'integer')
    .addColumn('tampering', 'integer')
    .addColumn('virtual_machine', 'integer')
    .addColumn('developer_tools', 'integer')
    .addColumn('privacy_settings', 'integer')
    .addColumn('suspect_score', 'integer')
    .addColumn('sdk_platform', 'text')
    .addColumn('sdk_version', 'text')
    .addColumn('request_hash', 'text')
    .addColumn('payload', 'text', (c) => c.notNull())
    .execute();
  for (const [name, columns] of [
    ['events_workspace_time', ['workspace_id', 'timestamp']],
    ['events_workspace_visitor_time', ['workspace_id', 'visitor_id', 'timestamp']],
    ['events_workspace_linked_time', ['workspace_id', 'linked_id', 'timestamp']],
    ['events_workspace_ip_time', ['workspace_id', 'ip_address', 'timestamp']],
  ] as const) {
    await db.schema.createIndex(name).on('events').columns([...columns]).execute();
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- Kysely migrations take Kysely<any>: they must not depend on the current schema type
export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['events', 'settings', 'filtering_rules', 'api_keys', 'environments', 'workspaces']) {
    await db.schema.dropTable(table).execute();
  }
}
