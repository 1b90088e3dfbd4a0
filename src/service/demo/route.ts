/**
 * `GET /`: the demo page, and `GET /demo/events`: the last events of one visitor of the
 * default environment (the one the demo's public key belongs to), reduced to what the page
 * shows. Anyone who knows a visitor ID of that environment can read these events; turn the
 * demo off (`--no-demo`) on an installation whose default environment serves real sites.
 */
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../context.js';
import { listRecentVisitorEvents } from '../store/events.js';
import { demoPage } from './page.js';

export const DEMO_EVENTS_LIMIT = 10;

export async function demoRoutes(app: FastifyInstance, opts: { ctx: ServiceContext }): Promise<void> {
  const { ctx } = opts;
  const html = demoPage(ctx.bootstrap.publicKey);

  app.get('/', async (_request, reply) =>
    reply.header('Cache-Control', 'no-store').type('text/html; charset=utf-8').send(html),
  );

  // Browsers ask for it on every page; a 204 keeps their consoles clean.
  app.get('/favicon.ico', async (_request, reply) => reply.code(204).header('Cache-Control', 'public, max-age=86400').send());

  app.get<{ Querystring: { visitor_id?: string } }>(
    '/demo/events',
    { schema: { querystring: { type: 'object', properties: { visitor_id: { type: 'string', minLength: 1, maxLength: 128 } }, required: ['visitor_id'] } } },
    async (request, reply) => {
      const events = await listRecentVisitorEvents(ctx.store, {
        workspaceId: ctx.bootstrap.workspaceId,
        visitorId: request.query.visitor_id!,
        limit: DEMO_EVENTS_LIMIT,
      });
      const shown = events
        .filter((e) => e.environment_id === ctx.bootstrap.environmentId)
        .map((e) => ({
          event_id: e.event_id,
          timestamp: e.timestamp,
          identification: e.identification,
          browser_details: e.browser_details,
          ip_address: e.ip_address,
          url: e.url,
          bot: e.bot,
          incognito: e.incognito,
          virtual_machine: e.virtual_machine,
          developer_tools: e.developer_tools,
          tampering: e.tampering,
          replayed: e.replayed,
          suspect_score: e.suspect_score,
        }));
      return reply.header('Cache-Control', 'no-store').send({ events: shown });
    },
  );
}
