/**
 * Webhooks: list, create (the answer carries the signing key, shown once), get, update,
 * delete, and verification (a test delivery; events are sent only to verified webhooks).
 * Extensions beyond the contract, for operators: the attempt log and resending a delivery.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../context.js';
import { NotFound } from '../http/errors.js';
import { listAttempts, resendDelivery } from '../store/webhook-deliveries.js';
import { createWebhook, deleteWebhook, getWebhook, listWebhooksPage, updateWebhook } from '../store/webhooks.js';
import type { WebhooksTable } from '../store/schema.js';
import { verifyWebhook } from '../webhooks/verification.js';
import { senderFromConfig } from '../webhooks/worker.js';
import { environmentOf, inEnvironment } from './environments.js';
import { bodyFields, NAME_LENGTH, queryFields, type Fields } from './fields.js';
import { callerOf, route } from './route.js';
import { listAnswer, probe, readWindow } from './pagination.js';
import { environmentJson, webhookAttemptJson, webhookDeliveryJson, webhookJson } from './resources.js';

type WithId = { Params: { id: string } };
const STATUSES = ['enabled', 'disabled'] as const;
const URL_LENGTH = { min: 9, max: 2048 };

async function webhookOf(ctx: ServiceContext, request: FastifyRequest, id: string): Promise<WebhooksTable> {
  const webhook = await getWebhook(ctx.store, callerOf(request).workspaceId, id);
  if (!webhook) throw new NotFound(undefined, `no webhook "${id}"`);
  return webhook;
}

/** `url`: an absolute https:// URL (webhooks are sent over TLS only). */
function readUrl(body: Fields, required: boolean): string | undefined {
  const url = body.string('url', { required, ...URL_LENGTH });
  if (typeof url !== 'string') return undefined;
  if (!url.startsWith('https://') || !URL.canParse(url)) return body.fail('url', 'must be an https:// URL');
  return url;
}

/** `basic_auth`: `{ username, password }`, or null to remove it. */
function readBasicAuth(body: Fields): { username: string; password: string } | null | undefined {
  const value = body.raw('basic_auth');
  if (value === undefined || value === null) return value;
  const { username, password, ...rest } = value as Record<string, unknown>;
  if (typeof value !== 'object' || Array.isArray(value) || typeof username !== 'string' || typeof password !== 'string' || Object.keys(rest).length > 0) {
    return body.fail('basic_auth', 'must be { username: string, password: string } or null');
  }
  if (username.includes(':')) return body.fail('basic_auth.username', 'must not contain ":"');
  return { username, password };
}

export function webhookRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const sender = senderFromConfig(ctx.config);

  app.get('/webhooks', route('webhooks:read'), async (request) => {
    const query = queryFields(request.query);
    const status = query.oneOf('status', STATUSES);
    const environment = query.string('environment');
    const window = readWindow(query);
    query.check();
    const rows = await listWebhooksPage(ctx.store, callerOf(request).workspaceId, { status, environmentId: environment ?? undefined }, probe(window));
    return listAnswer(rows, window, webhookJson);
  });

  app.post('/webhooks', route('webhooks:write'), async (request, reply) => {
    const body = bodyFields(request.body);
    const url = readUrl(body, true);
    const description = body.string('description', { ...NAME_LENGTH, nullable: true });
    const status = body.oneOf('status', STATUSES);
    const environment = body.string('environment', { nullable: true });
    const legacy = body.boolean('legacy');
    const basicAuth = readBasicAuth(body);
    body.check();
    const environmentRow = environment ? await environmentOf(ctx, request, environment) : null;
    const webhook = await inEnvironment(
      createWebhook(ctx.store, {
        workspaceId: callerOf(request).workspaceId,
        environmentId: environmentRow?.id ?? null,
        url: url!,
        description,
        status,
        legacy,
        basicAuth,
        now: ctx.clock(),
      }),
    );
    return reply.code(201).send({
      data: { ...webhookJson(webhook), signing_key: webhook.signing_key },
      environment: environmentRow && environmentJson(environmentRow),
    });
  });

  app.get<WithId>('/webhooks/:id', route('webhooks:read'), async (request) => ({
    data: webhookJson(await webhookOf(ctx, request, request.params.id)),
  }));

  app.patch<WithId>('/webhooks/:id', route('webhooks:write'), async (request) => {
    const webhook = await webhookOf(ctx, request, request.params.id);
    const body = bodyFields(request.body);
    const url = readUrl(body, false);
    const description = body.string('description', { ...NAME_LENGTH, nullable: true });
    const status = body.oneOf('status', STATUSES);
    const basicAuth = readBasicAuth(body);
    body.check();
    const updated = await updateWebhook(ctx.store, webhook.workspace_id, webhook.id, { url, description, status, basicAuth }, ctx.clock());
    if (!updated) throw new NotFound(undefined, `no webhook "${webhook.id}"`);
    return { data: webhookJson(updated) };
  });

  app.delete<WithId>('/webhooks/:id', route('webhooks:write'), async (request, reply) => {
    const webhook = await webhookOf(ctx, request, request.params.id);
    await deleteWebhook(ctx.store, webhook.workspace_id, webhook.id);
    return reply.code(200).send();
  });

  app.post<WithId>('/webhooks/:id/verification', route('webhooks:write'), async (request) => {
    const webhook = await webhookOf(ctx, request, request.params.id);
    const { webhook: after, result } = await verifyWebhook(ctx.store, sender, webhook, ctx.clock());
    return {
      data: { ...webhookJson(after), verification: { http_status: result.httpStatus, latency_ms: result.latencyMs, error: result.error } },
    };
  });

  app.get<WithId>('/webhooks/:id/attempts', route('webhooks:read'), async (request) => {
    const webhook = await webhookOf(ctx, request, request.params.id);
    const query = queryFields(request.query);
    const window = readWindow(query);
    query.check();
    return listAnswer(await listAttempts(ctx.store, webhook.id, probe(window)), window, webhookAttemptJson);
  });

  app.post<{ Params: { id: string; delivery_id: string } }>(
    '/webhooks/:id/deliveries/:delivery_id/resend',
    route('webhooks:write'),
    async (request) => {
      const webhook = await webhookOf(ctx, request, request.params.id);
      const delivery = await resendDelivery(ctx.store, webhook.id, request.params.delivery_id, ctx.clock());
      if (!delivery) throw new NotFound(undefined, `no delivery "${request.params.delivery_id}" of webhook "${webhook.id}"`);
      return { data: webhookDeliveryJson(delivery) };
    },
  );
}
