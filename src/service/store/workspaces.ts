/** Workspaces and their environments. */
import type { Kysely } from 'kysely';
import { newId } from './ids.js';
import { invalidateReadCaches } from './read-cache.js';
import type { Database, EnvironmentsTable, WorkspacesTable } from './schema.js';

export type Region = WorkspacesTable['region'];
export const REGIONS: readonly Region[] = ['us', 'eu', 'ap'];

export function isRegion(value: unknown): value is Region {
  return typeof value === 'string' && (REGIONS as readonly string[]).includes(value);
}

export async function createWorkspace(
  db: Kysely<Database>,
  opts: { name: string; region: Region; now: number },
): Promise<WorkspacesTable> {
  const row: WorkspacesTable = { id: newId('ws'), name: opts.name, region: opts.region, deletion_enabled: 0, created_at: opts.now };
  await db.insertInto('workspaces').values(row).execute();
  return row;
}

export async function getWorkspace(db: Kysely<Database>, id: string): Promise<WorkspacesTable | undefined> {
  return db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function setWorkspaceRegion(db: Kysely<Database>, id: string, region: Region): Promise<void> {
  await db.updateTable('workspaces').set({ region }).where('id', '=', id).execute();
  invalidateReadCaches();
}

/** Visitor deletion through the Server API is an opt-in of the workspace (the contract's Enterprise feature). */
export async function setWorkspaceDeletionEnabled(db: Kysely<Database>, id: string, enabled: boolean): Promise<void> {
  await db.updateTable('workspaces').set({ deletion_enabled: enabled ? 1 : 0 }).where('id', '=', id).execute();
}

export async function createEnvironment(
  db: Kysely<Database>,
  opts: { workspaceId: string; name: string; now: number },
): Promise<EnvironmentsTable> {
  const row: EnvironmentsTable = { id: newId('ae'), workspace_id: opts.workspaceId, name: opts.name, created_at: opts.now };
  await db.insertInto('environments').values(row).execute();
  return row;
}

export async function listEnvironments(db: Kysely<Database>, workspaceId: string): Promise<EnvironmentsTable[]> {
  return db.selectFrom('environments').selectAll().where('workspace_id', '=', workspaceId).orderBy('created_at').execute();
}
