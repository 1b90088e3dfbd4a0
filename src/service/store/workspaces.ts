/** Workspaces and their environments. */
import { newId } from './ids.js';
import { internalsOf, writeShared, type Store } from './handle.js';
import type { WorkspacesTable } from './schema.js';

export type Region = WorkspacesTable['region'];
export const REGIONS: readonly Region[] = ['us', 'eu', 'ap'];

export function isRegion(value: unknown): value is Region {
  return typeof value === 'string' && (REGIONS as readonly string[]).includes(value);
}

export async function createWorkspace(
  store: Store,
  opts: { name: string; region: Region; now: number },
): Promise<WorkspacesTable> {
  const row: WorkspacesTable = { id: newId('ws'), name: opts.name, region: opts.region, deletion_enabled: 0, created_at: opts.now, data_retention_days: null };
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

export interface WorkspaceSettings {
  deletionEnabled: boolean;
  /** null = the service's --retention-days. */
  retentionDays: number | null;
}

export async function updateWorkspaceSettings(store: Store, id: string, change: Partial<WorkspaceSettings>): Promise<void> {
  if (change.deletionEnabled === undefined && change.retentionDays === undefined) return; // nothing to set
  await writeShared(store, (trx) =>
    internalsOf(trx)
      .db.updateTable('workspaces')
      .set({
        ...(change.deletionEnabled !== undefined ? { deletion_enabled: change.deletionEnabled ? 1 : 0 } : {}),
        ...(change.retentionDays !== undefined ? { data_retention_days: change.retentionDays } : {}),
      })
      .where('id', '=', id)
      .execute(),
  );
}

