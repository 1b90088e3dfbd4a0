/** Environments: list, create, get, update, delete (not the default one, nor one still in use). */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { Conflict, NotFound } from '../http/errors.js';
import { countApiKeysOfEnvironment } from '../store/api-keys.js';
import {
  createEnvironment,
  deleteEnvironment,
  getEnvironmentInWorkspace,
  listEnvironmentsPage,
  updateEnvironment,
} from '../store/environments.js';
import { countFilteringRulesOfEnvironment } from '../store/filtering-rules.js';
import type { EnvironmentsTable } from '../store/schema.js';
import { bodyFields, NAME_LENGTH, queryFields } from './fields.js';
import { callerOf, route } from './index.js';
import { listAnswer, probe, readWindow } from './pagination.js';
import { environmentJson } from './resources.js';

type WithId = { Params: { id: string } };

/** The environment of the path in the caller's workspace; 404 for any other. */
export async function environmentOf(ctx: ServiceContext, request: FastifyRequest, id: string): Promise<EnvironmentsTable> {
  const environment = await getEnvironmentInWorkspace(ctx.store, callerOf(request).workspaceId, id);
  if (!environment) throw new NotFound(undefined, `no environment "${id}"`);
  return environment;
}

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
    const [keys, rules] = await Promise.all([
      countApiKeysOfEnvironment(ctx.store, environment.id),
      countFilteringRulesOfEnvironment(ctx.store, environment.id),
    ]);
    const blocking = [keys > 0 ? `${keys} API key${keys > 1 ? 's' : ''}` : '', rules > 0 ? `${rules} filtering rule${rules > 1 ? 's' : ''}` : ''];
    if (keys > 0 || rules > 0) {
      throw new Conflict(undefined, `the environment still has ${blocking.filter(Boolean).join(' and ')}: delete or move them first`);
    }
    await deleteEnvironment(ctx.store, environment.id);
    return reply.code(200).send();
  });
}
