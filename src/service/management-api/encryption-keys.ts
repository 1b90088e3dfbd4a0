/**
 * Encryption keys of sealed results: list, create, get, update, rotate, delete. Answers carry
 * the key values (`previous_token`, `token`, `next_token`): a backend needs them to unseal.
 * The service keeps them encrypted under its master key (sealing/encryption-keys.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';
import { Conflict, NotFound } from '../http/errors.js';
import {
  createEncryptionKey,
  editEncryptionKey,
  listEncryptionKeys,
  MasterKeyMissingError,
  readEncryptionKey,
  removeEncryptionKey,
  rotateEncryptionKey,
  type EncryptionKey,
} from '../sealing/encryption-keys.js';
import { getDefaultEnvironment } from '../store/environments.js';
import { environmentOf, inEnvironment } from './environments.js';
import { bodyFields, NAME_LENGTH, queryFields } from './fields.js';
import { callerOf, route } from './route.js';
import { listAnswer, probe, readWindow } from './pagination.js';
import type { Permission } from './permissions.js';
import { encryptionKeyJson } from './resources.js';

type WithId = { Params: { id: string } };
const STATUSES = ['enabled', 'disabled'] as const;

/** A service without a master key (PostgreSQL without TESSERA_MASTER_KEY) cannot serve encryption keys. */
function requireSealing(ctx: ServiceContext): void {
  if (!ctx.masterKey) throw new Conflict(undefined, new MasterKeyMissingError().message);
}

function found(key: EncryptionKey | undefined, id: string): EncryptionKey {
  if (!key) throw new NotFound(undefined, `no encryption key "${id}"`);
  return key;
}

export function encryptionKeyRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  // After authorization (onRequest): only an authorized caller learns about the configuration.
  const keyRoute = (permission: Permission) => ({ ...route(permission), preHandler: () => Promise.resolve(requireSealing(ctx)) });

  app.get('/encryption-keys', keyRoute('encryption_keys:read'), async (request) => {
    const query = queryFields(request.query);
    const status = query.oneOf('status', STATUSES);
    const environment = query.string('environment');
    const window = readWindow(query);
    query.check();
    const keys = await listEncryptionKeys(ctx, callerOf(request).workspaceId, { status, environmentId: environment ?? undefined }, probe(window));
    return listAnswer(keys, window, encryptionKeyJson);
  });

  app.post('/encryption-keys', keyRoute('encryption_keys:write'), async (request, reply) => {
    const caller = callerOf(request);
    const body = bodyFields(request.body);
    const name = body.string('name', { required: true, ...NAME_LENGTH });
    const description = body.string('description', { ...NAME_LENGTH, nullable: true });
    const environment = body.string('environment');
    const status = body.oneOf('status', STATUSES);
    body.check();
    // Like public keys, an encryption key without an environment goes to the default one.
    const environmentId = environment
      ? (await environmentOf(ctx, request, environment)).id
      : (await getDefaultEnvironment(ctx.store, caller.workspaceId))?.id;
    if (!environmentId) throw new NotFound(undefined, 'the workspace has no default environment: name one');
    const key = await inEnvironment(createEncryptionKey(ctx, { workspaceId: caller.workspaceId, environmentId, name: name!, description, status }));
    return reply.code(201).send({ data: encryptionKeyJson(key) });
  });

  app.get<WithId>('/encryption-keys/:id', keyRoute('encryption_keys:read'), async (request) => ({
    data: encryptionKeyJson(found(await readEncryptionKey(ctx, callerOf(request).workspaceId, request.params.id), request.params.id)),
  }));

  app.patch<WithId>('/encryption-keys/:id', keyRoute('encryption_keys:write'), async (request) => {
    const body = bodyFields(request.body);
    const name = body.string('name', NAME_LENGTH);
    const description = body.string('description', { ...NAME_LENGTH, nullable: true });
    const status = body.oneOf('status', STATUSES);
    body.check();
    const key = await editEncryptionKey(ctx, callerOf(request).workspaceId, request.params.id, { name: name ?? undefined, description, status });
    return { data: encryptionKeyJson(found(key, request.params.id)) };
  });

  app.post<WithId>('/encryption-keys/:id/rotate', keyRoute('encryption_keys:write'), async (request) => {
    bodyFields(request.body).check();
    const key = await rotateEncryptionKey(ctx, callerOf(request).workspaceId, request.params.id);
    return { data: encryptionKeyJson(found(key, request.params.id)) };
  });

  app.delete<WithId>('/encryption-keys/:id', keyRoute('encryption_keys:write'), async (request, reply) => {
    if (!(await removeEncryptionKey(ctx, callerOf(request).workspaceId, request.params.id))) {
      throw new NotFound(undefined, `no encryption key "${request.params.id}"`);
    }
    return reply.code(200).send();
  });
}
