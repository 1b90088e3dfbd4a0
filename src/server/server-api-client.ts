/** Typed client of the Server API v4 (`Authorization: Bearer <secret key>`). */
import type { V4Event } from '../events/v4-event.js';
import { HttpTransport, type ClientOptions } from './http.js';
import type { EventUpdate, SearchEventsFilter, SearchEventsResponse } from './server-api-types.js';

const seg = encodeURIComponent;

export class ServerApiClient {
  private readonly http: HttpTransport;

  constructor(options: ClientOptions) {
    this.http = new HttpTransport(options, {
      headers: { Authorization: `Bearer ${options.apiKey}` },
      dialect: 'v4',
      integrationInfo: true,
    });
  }

  /** `GET /v4/events/:event_id`. */
  getEvent(eventId: string): Promise<V4Event> {
    return this.http.request('GET', `/v4/events/${seg(eventId)}`);
  }

  /** `PATCH /v4/events/:event_id`: only the given fields change. */
  async updateEvent(eventId: string, update: EventUpdate): Promise<void> {
    await this.http.request('PATCH', `/v4/events/${seg(eventId)}`, {}, update);
  }

  /** `GET /v4/events`: one page of matching events, newest first unless `reverse`. */
  searchEvents(filter: SearchEventsFilter = {}): Promise<SearchEventsResponse> {
    const { environment, ...rest } = filter;
    return this.http.request('GET', '/v4/events', {
      ...rest,
      environment: typeof environment === 'string' ? [environment] : environment,
    });
  }

  /** Every page of a search, as the pages come. */
  async *iterateEventPages(filter: SearchEventsFilter = {}): AsyncGenerator<SearchEventsResponse> {
    let paginationKey = filter.pagination_key;
    for (;;) {
      const page = await this.searchEvents({ ...filter, pagination_key: paginationKey });
      yield page;
      if (page.pagination_key === undefined || page.events.length === 0) return;
      paginationKey = page.pagination_key;
    }
  }

  /** Every matching event across pages: `for await (const event of client.iterateEvents(f))`. */
  async *iterateEvents(filter: SearchEventsFilter = {}): AsyncGenerator<V4Event> {
    for await (const page of this.iterateEventPages(filter)) yield* page.events;
  }

  /** `DELETE /v4/visitors/:visitor_id`: schedules deletion of the visitor's data. */
  async deleteVisitor(visitorId: string): Promise<void> {
    await this.http.request('DELETE', `/v4/visitors/${seg(visitorId)}`);
  }
}
