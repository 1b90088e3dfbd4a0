/** Server API v4 routes: search, get, update (PATCH) events; delete a visitor. */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';
import { MAX_REQUEST_BYTES } from '../../protocol/index.js';
import { callerOf } from './auth.js';
import { ApiError, ERRORS } from './errors.js';
import { parseEventUpdate, updateEvent } from './event-update.js';
import { getEventPayload } from '../store/events.js';
import { searchEvents } from './event-search.js';
import { parseEventId, parseId, type RawQuery } from './params.js';
import { parseEventSearch } from './search-filter.js';
import { scheduleVisitorDeletion } from './visitor-deletion.js';

type IdParams = { event_id?: string; visitor_id?: string };

/**
 * Stored payloads are sent as they are; a damaged one must become a 500, never a broken or
 * partial body. Parsing costs microseconds per event.
 */
function assertStoredJson(payload: string): void {
  JSON.parse(payload);
}

/** The plugin's onRequest hook has authenticated every request before these handlers run (auth.ts). */
export function registerV4Routes(app: FastifyInstance, ctx: ServiceContext): void {
  const config = { errorFamily: 'v4' as const };

  app.get('/v4/events', { config }, async (request, reply) => {
    const caller = callerOf(request);
    const search = parseEventSearch(request.query as RawQuery, ctx.clock(), 'v4', caller.environmentId);
    const page = await searchEvents(ctx.store, caller.workspaceId, search);
    page.payloads.forEach(assertStoredJson);
    // Payloads are stored as the event JSON: spliced in as they are, never re-serialised.
    let body = `{"events":[${page.payloads.join(',')}]`;
    if (page.paginationKey !== undefined) body += `,"pagination_key":${JSON.stringify(page.paginationKey)}`;
    if (page.totalHits !== undefined) body += `,"total_hits":${page.totalHits}`;
    return reply.type('application/json; charset=utf-8').send(`${body}}`);
  });

  app.get<{ Params: IdParams }>('/v4/events/:event_id', { config }, async (request, reply) => {
    const caller = callerOf(request);
    const eventId = parseEventId(request.params.event_id, 'event_id');
    const payload = await getEventPayload(ctx.store, caller.workspaceId, eventId, caller.environmentId);
    if (payload === undefined) throw new ApiError(ERRORS.eventNotFound);
    assertStoredJson(payload);
    return reply.type('application/json; charset=utf-8').send(payload);
  });

  app.patch<{ Params: IdParams }>(
    '/v4/events/:event_id',
    { config, bodyLimit: MAX_REQUEST_BYTES },
    async (request, reply) => {
      const caller = callerOf(request);
      const eventId = parseEventId(request.params.event_id, 'event_id');
      const update = parseEventUpdate(request.body, 'v4');
      const { workspaceId, environmentId } = caller;
      await updateEvent(ctx.store, { workspaceId, environmentId, eventId, update, now: ctx.clock() });
      return reply.code(200).send();
    },
  );

  app.delete<{ Params: IdParams }>('/v4/visitors/:visitor_id', { config }, async (request, reply) => {
    const { workspaceId, environmentId } = callerOf(request);
    const visitorId = parseId(request.params.visitor_id, 'visitor_id');
    await scheduleVisitorDeletion(ctx.store, { workspaceId, environmentId, visitorId, now: ctx.clock() });
    return reply.code(200).send();
  });
}
