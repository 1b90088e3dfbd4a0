/**
 * Legacy Server API v3 routes. Payloads are derived from the stored v4 events by the pure
 * mapping of `src/events/v4-to-v3.ts`.
 */
import type { FastifyInstance } from 'fastify';
import { toV3Event } from '../../events/v4-to-v3.js';
import { MAX_REQUEST_BYTES } from '../../protocol/index.js';
import type { LegacySearchEventsResponse } from '../../events/server-api.js';
import type { ServiceContext } from '../context.js';
import { callerOf } from './auth.js';
import { ApiError, ERRORS } from './errors.js';
import { getEventPayload } from '../store/events.js';
import { searchEvents } from './event-search.js';
import { parseEventUpdate, updateEvent } from './event-update.js';
import { parseEventId, parseId, parseIntParam, parseStringParam, single, type RawQuery } from './params.js';
import { parseEventSearch } from './search-filter.js';
import { parseStoredEvent } from './stored-event.js';
import { scheduleVisitorDeletion } from './visitor-deletion.js';
import { VISITS_SCAN_LIMIT, visitorHistory } from './visitor-history.js';

type IdParams = { request_id?: string; visitor_id?: string };

/** The plugin's onRequest hook has authenticated every request before these handlers run (auth.ts). */
export function registerV3Routes(app: FastifyInstance, ctx: ServiceContext): void {
  const config = { errorFamily: 'v3' as const };

  // The visitor lookup answers errors with a plain `{"error": "<text>"}`.
  app.get<{ Params: IdParams }>('/visitors/:visitor_id', { config: { errorFamily: 'v3-plain' as const } }, async (request) => {
    const caller = callerOf(request);
    const visitorId = parseId(request.params.visitor_id, 'visitor_id');
    const query = request.query as RawQuery;
    const paginationKey = single(query, 'paginationKey');
    const lookup = {
      visitorId,
      environmentId: caller.environmentId,
      limit: parseIntParam(query, 'limit', { min: 0, max: VISITS_SCAN_LIMIT.max }),
      paginationKey: paginationKey === undefined ? undefined : parseId(paginationKey, 'paginationKey'),
      before: parseIntParam(query, 'before', { min: 0, max: Number.MAX_SAFE_INTEGER }),
      requestId: parseStringParam(query, 'request_id', 64),
      linkedId: parseStringParam(query, 'linked_id', 256),
    };
    return visitorHistory(ctx.store, caller.workspaceId, lookup);
  });

  app.get('/events/search', { config }, async (request): Promise<LegacySearchEventsResponse> => {
    const caller = callerOf(request);
    const search = parseEventSearch(request.query as RawQuery, ctx.clock(), 'v3', caller.environmentId);
    const page = await searchEvents(ctx.store, caller.workspaceId, search);
    const response: LegacySearchEventsResponse = {
      events: page.payloads.map((p) => toV3Event(parseStoredEvent(p))),
    };
    if (page.paginationKey !== undefined) response.paginationKey = page.paginationKey;
    return response;
  });

  app.get<{ Params: IdParams }>('/events/:request_id', { config }, async (request) => {
    const caller = callerOf(request);
    const requestId = parseEventId(request.params.request_id, 'request_id');
    const payload = await getEventPayload(ctx.store, caller.workspaceId, requestId, caller.environmentId);
    if (payload === undefined) throw new ApiError(ERRORS.eventNotFound);
    return toV3Event(parseStoredEvent(payload));
  });

  app.put<{ Params: IdParams }>('/events/:request_id', { config, bodyLimit: MAX_REQUEST_BYTES }, async (request, reply) => {
    const { workspaceId, environmentId } = callerOf(request);
    const eventId = parseEventId(request.params.request_id, 'request_id');
    const update = parseEventUpdate(request.body, 'v3');
    await updateEvent(ctx.store, { workspaceId, environmentId, eventId, update, now: ctx.clock() });
    return reply.code(200).send();
  });

  app.delete<{ Params: IdParams }>('/visitors/:visitor_id', { config }, async (request, reply) => {
    const { workspaceId, environmentId } = callerOf(request);
    const visitorId = parseId(request.params.visitor_id, 'visitor_id');
    await scheduleVisitorDeletion(ctx.store, { workspaceId, environmentId, visitorId, now: ctx.clock() });
    return reply.code(200).send();
  });
}
