/** Environments: list, create, get, update, delete (not the default one, nor one still in use). */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { Conflict, NotFound } from '../http/errors.js';
import {
  createEnvironment,
  deleteEnvironmentIfUnused,
  EnvironmentNotFoundError,
  getEnvironmentInWorkspace,
  listEnvironmentsPage,
  updateEnvironment,
  type EnvironmentUses,
} from '../store/environments.js';
import type { EnvironmentsTable } from '../store/schema.js';
import { bodyFields, NAME_LENGTH, queryFields } from './fields.js';
import { callerOf, route } from './route.js';
import { listAnswer, probe, readWindow } from './pagination.js';
import { environmentJson } from './resources.js';

type WithId = { Params: { id: string } };

/** The environment of the path in the caller's workspace; 404 for any other. */
export async function environmentOf(ctx: ServiceContext, request: FastifyRequest, id: string): Promise<EnvironmentsTable> {
  const environment = await getEnvironmentInWorkspace(ctx.store, callerOf(request).workspaceId, id);
  if (!environment) throw new NotFound(undefined, `no environment "${id}"`);
  return environment;
}

/**
 * A write that attaches something to an environment (key, rule, encryption key, webhook): when
 * the environment was deleted after the route looked it up, 404 as for an unknown environment.
 */
export async function inEnvironment<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if (err instanceof EnvironmentNotFoundError) throw new NotFound(undefined, err.message);
    throw err;
  }
}

const USE_NOUNS: Record<keyof EnvironmentUses, string> = {
  apiKeys: 'API key',
  filteringRules: 'filtering rule',
  encryptionKeys: 'encryption key',
  webhooks: 'webhook',
};

export function environmentRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/environments', route('environments:read'), async (request) => {
    const query = queryFields(request.query);
    const window = readWindow(query);
    query.check();
    const rows = await listEnvironmentsPage(ctx.store, callerOf(request).workspaceId, probe(window));
    return listAnswer(rows, window, environmentJson);
  });

  app.post('/environments', route('environments:write'), async (request, reply) => {
    const body = bodyFields(request.body);
    const name = body.string('name', { required: true, ...NAME_LENGTH });
    const description = body.string('description', { ...NAME_LENGTH, nullable: true });
    body.check();
    const row = await createEnvironment(ctx.store, { workspaceId: callerOf(request).workspaceId, name: name!, description, now: ctx.clock() });
    return reply.code(201).send({ data: environmentJson(row) });
  });

  app.get<WithId>('/environments/:id', route('environments:read'), async (request) => ({
    data: environmentJson(await environmentOf(ctx, request, request.params.id)),
  }));

  app.patch<WithId>('/environments/:id', route('environments:write'), async (request) => {
    const environment = await environmentOf(ctx, request, request.params.id);
    const body = bodyFields(request.body);
    const name = body.string('name', NAME_LENGTH);
    const description = body.string('description', { ...NAME_LENGTH, nullable: true });
    body.check();
    await updateEnvironment(ctx.store, environment.id, { name: name ?? undefined, description }, ctx.clock());
    return { data: environmentJson((await getEnvironmentInWorkspace(ctx.store, environment.workspace_id, environment.id))!) };
  });

  app.delete<WithId>('/environments/:id', route('environments:write'), async (request, reply) => {
    const environment = await environmentOf(ctx, request, request.params.id);
    if (environment.is_default === 1) throw new Conflict(undefined, 'the default environment cannot be deleted');
    // The check and the delete are one step (store/environments.ts): nothing is attached in between.
    const result = await deleteEnvironmentIfUnused(ctx.store, environment.workspace_id, environment.id);
    if (result.outcome === 'not_found') throw new NotFound(undefined, `no environment "${environment.id}"`);
    if (result.outcome === 'in_use') {
      const blocking = (Object.keys(USE_NOUNS) as (keyof EnvironmentUses)[]).flatMap((kind) => {
        const n = result.uses[kind];
        return n > 0 ? [`${n} ${USE_NOUNS[kind]}${n > 1 ? 's' : ''}`] : [];
      });
      throw new Conflict(undefined, `the environment still has ${blocking.join(' and ')}: delete or move them first`);
    }
    return reply.code(200).send();
  });
}
