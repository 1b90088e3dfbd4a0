/**
 * Encryption keys as the Management API sees them: create, read, list, update, rotate and
 * delete, with the key values in plain form. Values are encrypted under the master key on the
 * way into the store and decrypted on the way out (key-material.ts); the lifecycle rules are
 * in key-lifecycle.ts.
 */
import type { ServiceContext } from '../context.js';
import {
  anyEncryptionKey,
  changeEncryptionKey,
  deleteEncryptionKey,
  getEncryptionKey,
  insertEncryptionKey,
  listEncryptionKeysPage,
} from '../store/encryption-keys.js';
import { newId } from '../store/ids.js';
import type { EncryptionKeysTable, EncryptionKeyStatus } from '../store/schema.js';
import { changeStatus, initialStatus, initialTokens, newKeyToken, rotateTokens, type KeyTokens } from './key-lifecycle.js';
import { decryptKeyMaterial, encryptKeyMaterial } from './key-material.js';

export type SealingContext = Pick<ServiceContext, 'store' | 'clock' | 'masterKey'>;

export interface EncryptionKey {
  id: string;
  workspaceId: string;
  environmentId: string;
  name: string;
  description: string | null;
  status: EncryptionKeyStatus;
  createdAt: number;
  lastActivatedAt: number | null;
  lastDeactivatedAt: number | null;
  lastRotatedAt: number | null;
  tokens: KeyTokens;
}

/** Encryption keys are stored under a master key; this service was started without one. */
export class MasterKeyMissingError extends Error {
  override readonly name = 'MasterKeyMissingError';

  constructor() {
    super('encryption keys need a master key: set TESSERA_MASTER_KEY (--master-key) to the base64 of 32 random bytes, the same on every instance');
  }
}

export function requireMasterKey(ctx: Pick<ServiceContext, 'masterKey'>): Uint8Array {
  if (!ctx.masterKey) throw new MasterKeyMissingError();
  return ctx.masterKey;
}

/**
 * At start: stored keys must be readable with this master key (none, or a different one,
 * would fail every identification of their environments), else the start fails clearly.
 */
export async function assertKeysReadable(ctx: Pick<ServiceContext, 'store' | 'masterKey'>): Promise<void> {
  const sample = await anyEncryptionKey(ctx.store);
  if (sample) decryptKeyMaterial(requireMasterKey(ctx), sample.id, sample.current_key);
}

export async function createEncryptionKey(
  ctx: SealingContext,
  input: { workspaceId: string; environmentId: string; name: string; description?: string | null; status?: EncryptionKeyStatus },
): Promise<EncryptionKey> {
  const masterKey = requireMasterKey(ctx);
  const now = ctx.clock();
  const id = newId('ek');
  const times = initialStatus(input.status ?? 'enabled', now);
  const tokens = initialTokens();
  await insertEncryptionKey(ctx.store, {
    id,
    workspace_id: input.workspaceId,
    environment_id: input.environmentId,
    name: input.name,
    description: input.description ?? null,
    status: times.status,
    created_at: now,
    last_activated_at: times.lastActivatedAt,
    last_deactivated_at: times.lastDeactivatedAt,
    last_rotated_at: null,
    ...encryptTokens(masterKey, id, tokens),
  });
  return (await readEncryptionKey(ctx, input.workspaceId, id))!;
}

export async function readEncryptionKey(ctx: SealingContext, workspaceId: string, id: string): Promise<EncryptionKey | undefined> {
  const row = await getEncryptionKey(ctx.store, workspaceId, id);
  return row && decryptRow(requireMasterKey(ctx), row);
}

/** One window of the workspace's keys, oldest first. */
export async function listEncryptionKeys(
  ctx: SealingContext,
  workspaceId: string,
  filter: { status?: EncryptionKeyStatus; environmentId?: string },
  window: { offset: number; limit: number },
): Promise<EncryptionKey[]> {
  const masterKey = requireMasterKey(ctx);
  return (await listEncryptionKeysPage(ctx.store, workspaceId, filter, window)).map((row) => decryptRow(masterKey, row));
}

/** Changes the given fields; undefined when the workspace has no such key. */
export async function editEncryptionKey(
  ctx: SealingContext,
  workspaceId: string,
  id: string,
  changes: { name?: string; description?: string | null; status?: EncryptionKeyStatus },
): Promise<EncryptionKey | undefined> {
  const masterKey = requireMasterKey(ctx);
  const now = ctx.clock();
  const row = await changeEncryptionKey(ctx.store, workspaceId, id, (current) => {
    const times = changeStatus(
      { status: current.status, lastActivatedAt: current.last_activated_at, lastDeactivatedAt: current.last_deactivated_at },
      changes.status ?? current.status,
      now,
    );
    return {
      ...(changes.name !== undefined && { name: changes.name }),
      ...(changes.description !== undefined && { description: changes.description }),
      status: times.status,
      last_activated_at: times.lastActivatedAt,
      last_deactivated_at: times.lastDeactivatedAt,
    };
  });
  return row && decryptRow(masterKey, row);
}

/** previous <- token <- next <- a fresh value; undefined when the workspace has no such key. */
export async function rotateEncryptionKey(ctx: SealingContext, workspaceId: string, id: string): Promise<EncryptionKey | undefined> {
  const masterKey = requireMasterKey(ctx);
  const now = ctx.clock();
  const row = await changeEncryptionKey(ctx.store, workspaceId, id, (current) => ({
    ...encryptTokens(masterKey, id, rotateTokens(decryptRow(masterKey, current).tokens, newKeyToken())),
    last_rotated_at: now,
  }));
  return row && decryptRow(masterKey, row);
}

/** False when the workspace has no such key. */
export async function removeEncryptionKey(ctx: SealingContext, workspaceId: string, id: string): Promise<boolean> {
  return deleteEncryptionKey(ctx.store, workspaceId, id);
}

function encryptTokens(masterKey: Uint8Array, id: string, tokens: KeyTokens): Pick<EncryptionKeysTable, 'previous_key' | 'current_key' | 'next_key'> {
  return {
    previous_key: tokens.previous === null ? null : encryptKeyMaterial(masterKey, id, tokens.previous),
    current_key: encryptKeyMaterial(masterKey, id, tokens.current),
    next_key: encryptKeyMaterial(masterKey, id, tokens.next),
  };
}

function decryptRow(masterKey: Uint8Array, row: EncryptionKeysTable): EncryptionKey {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    environmentId: row.environment_id,
    name: row.name,
    description: row.description,
    status: row.status,
    createdAt: row.created_at,
    lastActivatedAt: row.last_activated_at,
    lastDeactivatedAt: row.last_deactivated_at,
    lastRotatedAt: row.last_rotated_at,
    tokens: {
      previous: row.previous_key === null ? null : decryptKeyMaterial(masterKey, row.id, row.previous_key),
      current: decryptKeyMaterial(masterKey, row.id, row.current_key),
      next: decryptKeyMaterial(masterKey, row.id, row.next_key),
    },
  };
}
