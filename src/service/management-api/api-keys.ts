/**
 * API keys: list, create (the answer carries the token, shown once), get, update, delete. A
 * management key can only be created by a caller holding every permission it grants.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { Forbidden, NotFound } from '../http/errors.js';
import { API_KEY_TYPES, createApiKey, deleteApiKey, getApiKeyInWorkspace, listApiKeysPage, updateApiKey } from '../store/api-keys.js';
import { getDefaultEnvironment } from '../store/environments.js';
import type { ApiKeysTable } from '../store/schema.js';
import { MANAGEMENT_ERRORS } from './errors.js';
import { environmentOf, inEnvironment } from './environments.js';
import { bodyFields, NAME_LENGTH, queryFields } from './fields.js';
import { callerOf, route } from './route.js';
import { listAnswer, probe, readWindow } from './pagination.js';
import { parsePermissions, PERMISSIONS, type Permission } from './permissions.js';
import { apiKeyJson } from './resources.js';

type WithId = { Params: { id: string } };
const STATUSES = ['enabled', 'disabled'] as const;
const RATE_LIMIT = { min: 1, max: 100_000 };

async function keyOf(ctx: ServiceContext, request: FastifyRequest, id: string): Promise<ApiKeysTable> {
  const key = await getApiKeyInWorkspace(ctx.store, callerOf(request).workspaceId, id);
  if (!key) throw new NotFound(undefined, `no API key "${id}"`);
  return key;
}

export function apiKeyRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/api-keys', route('api_keys:read'), async (request) => {
    const query = queryFields(request.query);
    const type = query.oneOf('type', API_KEY_TYPES);
    const status = query.oneOf('status', STATUSES);
    const environment = query.string('environment');
    const window = readWindow(query);
    query.check();
    const rows = await listApiKeysPage(
      ctx.store,
      callerOf(request).workspaceId,
      { type, status, environmentId: environment ?? undefined },
      probe(window),
    );
    return listAnswer(rows, window, apiKeyJson);
  });

  app.post('/api-keys', route('api_keys:write'), async (request, reply) => {
    const caller = callerOf(request);
    const body = bodyFields(request.body);
    const type = body.oneOf('type', API_KEY_TYPES, { required: true });
    const name = body.string('name', { required: true, ...NAME_LENGTH });
    const description = body.string('description', { ...NAME_LENGTH, nullable: true });
    const environment = body.string('environment', { nullable: true });
    const rateLimit = body.integer('rate_limit', RATE_LIMIT.min, RATE_LIMIT.max);
    let permissions: Permission[] | null = null;
    const rawPermissions = body.raw('permissions');
    if (rawPermissions !== undefined && rawPermissions !== null) {
      const parsed = Array.isArray(rawPermissions) ? parsePermissions(rawPermissions) : new Error('must be an array of permission names');
      if (parsed instanceof Error) body.fail('permissions', parsed.message);
      else if (type !== undefined && type !== 'management') body.fail('permissions', 'applies to management keys only');
      else permissions = parsed;
    }
    if (type === 'management' && environment) body.fail('environment', 'must be absent: a management key manages the whole workspace');
    if (type === 'public' && environment === null) body.fail('environment', 'must be an environment: public keys belong to one');
    body.check();

    if (type === 'management') {
      const missing = (permissions ?? PERMISSIONS).filter((p) => !caller.permissions.has(p));
      if (missing.length > 0) throw new Forbidden(MANAGEMENT_ERRORS.forbidden, `a key can only grant permissions its creator holds; missing: ${missing.join(', ')}`);
    }
    // The contract's defaults: public keys go to the default environment, the others to the workspace.
    let environmentId: string | null = null;
    if (environment) environmentId = (await environmentOf(ctx, request, environment)).id;
    else if (type === 'public') environmentId = (await getDefaultEnvironment(ctx.store, caller.workspaceId))?.id ?? null;

    const key = await inEnvironment(
      createApiKey(ctx.store, {
        workspaceId: caller.workspaceId,
        environmentId,
        type: type!,
        name: name!,
        description,
        ...(rateLimit !== undefined ? { rateLimit } : {}),
        permissions,
        now: ctx.clock(),
      }),
    );
    return reply.code(201).send({ data: { ...apiKeyJson(key), token: key.token } });
  });

  app.get<WithId>('/api-keys/:id', route('api_keys:read'), async (request) => ({
    data: apiKeyJson(await keyOf(ctx, request, request.params.id)),
  }));

  app.patch<WithId>('/api-keys/:id', route('api_keys:write'), async (request) => {
    const key = await keyOf(ctx, request, request.params.id);
    const body = bodyFields(request.body);
    const name = body.string('name', NAME_LENGTH);
    const description = body.string('description', { ...NAME_LENGTH, nullable: true });
    const status = body.oneOf('status', STATUSES);
    const rateLimit = body.integer('rate_limit', RATE_LIMIT.min, RATE_LIMIT.max);
    body.check();
    const updated = await updateApiKey(ctx.store, key.id, { name: name ?? undefined, description, status, rateLimit }, ctx.clock());
    if (!updated) throw new NotFound(undefined, `no API key "${key.id}"`);
    return { data: apiKeyJson(updated) };
  });

  app.delete<WithId>('/api-keys/:id', route('api_keys:write'), async (request, reply) => {
    const key = await keyOf(ctx, request, request.params.id);
    await deleteApiKey(ctx.store, key.id);
    return reply.code(200).send();
  });
}
