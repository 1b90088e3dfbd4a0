/**
 * Typed client of the legacy Server API v3 (`Auth-API-Key` header), kept for code that still
 * reads the v3 shapes. New code should use `ServerApiClient`.
 */
import type { V3Event } from '../events/v3-event.js';
import { HttpTransport, type ClientOptions } from './http.js';
import type {
  LegacyEventUpdate,
  LegacySearchEventsFilter,
  LegacySearchEventsResponse,
  VisitorHistory,
  VisitsQuery,
} from './server-api-types.js';
import type { V3Visit } from '../events/v3-event.js';

const seg = encodeURIComponent;
/** The service's default number of events scanned per visitor-lookup page. */
const DEFAULT_VISITS_SCAN = 100;

export class LegacyServerApiClient {
  private readonly http: HttpTransport;

  constructor(options: ClientOptions) {
    this.http = new HttpTransport(options, { headers: { 'Auth-API-Key': options.apiKey }, dialect: 'v3', integrationInfo: true });
  }

  /** `GET /visitors/:visitor_id`: one page of scanned events, filtered. */
  getVisits(visitorId: string, query: VisitsQuery = {}): Promise<VisitorHistory> {
    return this.http.request('GET', `/visitors/${seg(visitorId)}`, { ...query });
  }

  /**
   * Every visit across pages. Pages are cut before filtering, so a page may be empty while
   * later ones are not; this follows `paginationKey` until the service omits it.
   */
  async *iterateVisits(visitorId: string, query: VisitsQuery = {}): AsyncGenerator<V3Visit> {
    let paginationKey = query.paginationKey;
    // The service sends `paginationKey` only when a pagination parameter was used: always send `limit`.
    const limit = query.limit ?? DEFAULT_VISITS_SCAN;
    for (;;) {
      const page = await this.getVisits(visitorId, { ...query, limit, paginationKey });
      yield* page.visits;
      if (page.paginationKey === undefined) return;
      paginationKey = page.paginationKey;
    }
  }

  /** `GET /events/:request_id` in the nested `products` format. */
  getEvent(requestId: string): Promise<V3Event> {
    return this.http.request('GET', `/events/${seg(requestId)}`);
  }

  /** `PUT /events/:request_id`. */
  async updateEvent(requestId: string, update: LegacyEventUpdate): Promise<void> {
    await this.http.request('PUT', `/events/${seg(requestId)}`, {}, update);
  }

  /** `GET /events/search`. */
  searchEvents(filter: LegacySearchEventsFilter = {}): Promise<LegacySearchEventsResponse> {
    const { environment, ...rest } = filter;
    return this.http.request('GET', '/events/search', {
      ...rest,
      environment: typeof environment === 'string' ? [environment] : environment,
    });
  }

  /** Every matching v3 event across pages. */
  async *iterateEvents(filter: LegacySearchEventsFilter = {}): AsyncGenerator<V3Event> {
    let paginationKey = filter.pagination_key;
    for (;;) {
      const page = await this.searchEvents({ ...filter, pagination_key: paginationKey });
      yield* page.events;
      if (page.paginationKey === undefined || page.events.length === 0) return;
      paginationKey = page.paginationKey;
    }
  }

  /** `DELETE /visitors/:visitor_id`. */
  async deleteVisitor(visitorId: string): Promise<void> {
    await this.http.request('DELETE', `/visitors/${seg(visitorId)}`);
  }
}
