/**
 * `POST /`: the endpoint the agent talks to. Authorises the public key, applies its rate
 * limit, the region and the environment's filtering rules, identifies the visitor, stores the
 * v4 event and answers with the visitor ID, a fresh visitor token and the sealed event (when
 * the environment has an enabled encryption key). Every refusal happens
 * before anything is written.
 */
import type { FastifyInstance } from 'fastify';
import {
  MAX_REQUEST_BYTES,
  MAX_TAGS_JSON_BYTES,
  PROTOCOL_VERSION,
  type IdentifyRequest,
  type IdentifyResponse,
} from '../../protocol/index.js';
import type { ServiceContext } from '../context.js';
import { buildEvent } from '../event-building/build-event.js';
import { REPLAY_WINDOW_MS, requestHash } from '../event-building/request-hash.js';
import { computeVelocity } from '../event-building/velocity.js';
import { decide } from '../filtering/first-match.js';
import { buildRuleRequest } from '../filtering/rule-request.js';
import { COMMON_ERRORS, Forbidden, RateLimited, ValidationError } from '../http/errors.js';
import { knownError } from '../http/error-handler.js';
import { parseJsonBody } from '../http/input-guard.js';
import { sealedResultFor } from '../sealing/seal-event.js';
import { findApiKeyWithRegionCached } from '../store/api-keys.js';
import { eventPayload, insertEvent } from '../store/events.js';
import { listFilteringRulesCached } from '../store/filtering-rules.js';
import { newEventId } from '../store/ids.js';
import { readRecentActivity } from '../store/recent-activity.js';
import { normaliseIp } from './client-ip.js';
import { allowAnyOrigin, answerPreflight } from './cors.js';
import { publicKeyNotFound, publicKeyRequired, requestFiltered } from './errors.js';
import { identifyRequestSchema } from './request-schema.js';
import { identifyResponseSchema } from './response-schema.js';
import { visitorCookieHeader, visitorCookieToken } from './visitor-cookie.js';
import { deliveriesForEvent, queuedForSending } from '../webhooks/outbox.js';

export async function ingestionRoutes(app: FastifyInstance, opts: { ctx: ServiceContext }): Promise<void> {
  const { ctx } = opts;

  // The agent posts JSON as text/plain (a CORS simple request); JSON and untyped bodies are
  // read the same way. Only this plugin's routes are affected.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: MAX_REQUEST_BYTES }, (_req, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });

  app.addHook('onRequest', async (request, reply) => allowAnyOrigin(request, reply));
  app.addHook('onError', async (_request, _reply, error) => {
    ctx.metrics.refused(knownError(error)?.code ?? COMMON_ERRORS.failed.code);
  });

  const config = { errorFamily: 'agent' as const };
  app.options('/', { config }, async (request, reply) => answerPreflight(request, reply));

  app.post('/', { config, bodyLimit: MAX_REQUEST_BYTES, schema: { body: identifyRequestSchema, response: { 200: identifyResponseSchema } } }, async (request, reply) => {
    const body = request.body as IdentifyRequest;
    const now = ctx.clock();
    const ip = normaliseIp(request.ip);

    if (body.tags !== undefined && Buffer.byteLength(JSON.stringify(body.tags)) > MAX_TAGS_JSON_BYTES) {
      const message = `tags exceed ${MAX_TAGS_JSON_BYTES} bytes of JSON`;
      throw new ValidationError(`invalid request: ${message}`, [{ property: 'body.tags', message }]);
    }
    if (!body.api_key) throw publicKeyRequired();
    const key = await findApiKeyWithRegionCached(ctx.store, body.api_key);
    // A secret or management key in a page is refused like an unknown one: it must not work there.
    if (!key || key.type !== 'public' || !key.environment_id) throw publicKeyNotFound();
    if (key.status !== 'enabled') throw publicKeyNotFound('the public API key is disabled');
    const limit = await ctx.rateLimiter.consume(`ingest:${key.id}`, key.rate_limit, 1);
    if (!limit.allowed) throw new RateLimited(limit.retryAfterSeconds);
    if (key.region !== ctx.config.region) {
      throw new Forbidden(COMMON_ERRORS.wrongRegion, `wrong region: the workspace is in "${key.region}", this service serves "${ctx.config.region}"`);
    }

    const environmentId = key.environment_id;
    const rules = await listFilteringRulesCached(ctx.store, environmentId);
    if (rules.length > 0) {
      const ruleRequest = buildRuleRequest({ ip, headers: request.headers, sdkPlatform: body.sdk.platform, sdkVersion: body.sdk.version });
      const decision = decide(rules, ctx.ruleEvaluator, ruleRequest);
      if (decision.action === 'deny') {
        request.log.info({ rule: decision.rule.id }, 'identification request denied by a filtering rule');
        throw requestFiltered(decision.denyWith);
      }
    }

    const userAgentHeader = request.headers['user-agent'];
    // Nothing is written yet: the visit's writes go with its event, all or nothing.
    const hash = requestHash(body);
    // What the event's counters and replay check read: on PostgreSQL, read ahead with the
    // identification's own read (one round trip for both; the visitor part again only for a
    // visitor found by its signals).
    const ahead = { ip, linkedId: body.linked_id, requestHash: hash, replaySince: now - REPLAY_WINDOW_MS, now };
    // The body's token first (the agent's storage); the visitor cookie when the storage is gone.
    const token = body.token ?? (ctx.config.visitorCookie ? visitorCookieToken(request.headers.cookie) : undefined);
    // Browsers keep the cookie only for a request from the page's own origin, which they mark
    // (Sec-Fetch-Site); the confidence model follows whether the token could outlive script storage.
    const tokenCookie = ctx.config.visitorCookie && request.headers['sec-fetch-site'] === 'same-origin';
    const planned = await ctx.identifier.plan({
      workspaceId: key.workspace_id,
      signals: body.signals,
      token,
      ip,
      now,
      activity: ahead,
      tokenCookie,
    });
    const { outcome, write: visitorWrite } = planned;
    ctx.metrics.identified(outcome.path);

    // The fields first, the spread last: a spread followed by new properties is slow on Node 20
    // (docs/performance.md, What keeps an identification cheap).
    const recent = { workspaceId: key.workspace_id, visitorId: outcome.visitorId, ...ahead };
    const activity = await readRecentActivity(
      ctx.store,
      recent,
      planned.activity && { ...planned.activity, newVisitor: !outcome.visitorFound },
    );
    const velocity = computeVelocity(activity, recent);
    const event = buildEvent({
      eventId: newEventId(now),
      now,
      request: body,
      environmentId,
      ip,
      userAgentHeader,
      identification: outcome,
      velocity,
      replayed: activity.replayed,
    });
    const ids = { workspaceId: key.workspace_id, environmentId, requestHash: hash };
    // The event's JSON, made once: the stored payload (which the Server API returns as is, and
    // v4 webhook deliveries send) and, with an encryption key, what is sealed.
    const payload = eventPayload(event);
    // Sealed before anything is written: a sealing failure stores nothing (no event, no visitor
    // change, no delivery) and answers 500 failed.
    const sealedResult = await sealedResultFor(ctx, environmentId, payload);
    // The webhook outbox is written in the event's transaction: no event without its deliveries.
    // This process's worker sends them once it is committed, when it can (outbox.ts `DeliveryHandOff`).
    const deliveries = await deliveriesForEvent(ctx.store, event, ids);
    const handOff = deliveries.length > 0 ? ctx.webhookHandOff : undefined;
    const lease = handOff?.lease(now);
    const queued = await insertEvent(ctx.store, event, ids, { payload, deliveries, now, visitor: visitorWrite, lease });
    if (handOff && lease) handOff.send(queuedForSending(deliveries, queued, payload));

    const response: IdentifyResponse = {
      v: PROTOCOL_VERSION,
      event_id: event.event_id,
      visitor_id: outcome.visitorId,
      confidence: outcome.confidence,
      visitor_found: outcome.visitorFound,
      suspect_score: event.suspect_score,
      sealed_result: sealedResult,
      token: outcome.token,
    };
    if (ctx.config.visitorCookie) void reply.header('Set-Cookie', visitorCookieHeader(outcome.token, request.protocol === 'https'));
    return reply.type('application/json; charset=utf-8').send(response);
  });
}
