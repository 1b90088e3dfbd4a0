/** Workspaces and their environments. */
import { newId } from './ids.js';
import { internalsOf, type Store } from './handle.js';
import type { EnvironmentsTable, WorkspacesTable } from './schema.js';

export type Region = WorkspacesTable['region'];
export const REGIONS: readonly Region[] = ['us', 'eu', 'ap'];

export function isRegion(value: unknown): value is Region {
  return typeof value === 'string' && (REGIONS as readonly string[]).includes(value);
}

export async function createWorkspace(
  store: Store,
  opts: { name: string; region: Region; now: number },
): Promise<WorkspacesTable> {
  const row: WorkspacesTable = { id: newId('ws'), name: opts.name, region: opts.region, deletion_enabled: 0, created_at: opts.now };
  await internalsOf(store).db.insertInto('workspaces').values(row).execute();
  return row;
}

export async function getWorkspace(store: Store, id: string): Promise<WorkspacesTable | undefined> {
  return internalsOf(store).db.selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function setWorkspaceRegion(store: Store, id: string, region: Region): Promise<void> {
  const { db, state } = internalsOf(store);
  await db.updateTable('workspaces').set({ region }).where('id', '=', id).execute();
  state.readCaches.invalidate();
}

/** Visitor deletion through the Server API is an opt-in of the workspace (the contract's Enterprise feature). */
export async function setWorkspaceDeletionEnabled(store: Store, id: string, enabled: boolean): Promise<void> {
  await internalsOf(store).db.updateTable('workspaces').set({ deletion_enabled: enabled ? 1 : 0 }).where('id', '=', id).execute();
}

export async function createEnvironment(
  store: Store,
  opts: { workspaceId: string; name: string; now: number },
): Promise<EnvironmentsTable> {
  const row: EnvironmentsTable = { id: newId('ae'), workspace_id: opts.workspaceId, name: opts.name, created_at: opts.now };
  await internalsOf(store).db.insertInto('environments').values(row).execute();
  return row;
}

export async function listEnvironments(store: Store, workspaceId: string): Promise<EnvironmentsTable[]> {
  return internalsOf(store).db.selectFrom('environments').selectAll().where('workspace_id', '=', workspaceId).orderBy('created_at').execute();
}

export async function getEnvironment(store: Store, id: string): Promise<EnvironmentsTable | undefined> {
  return internalsOf(store).db.selectFrom('environments').selectAll().where('id', '=', id).executeTakeFirst();
}
