/**
 * Runs an `EventSearch` (store/event-search.ts holds the SQL) and turns the rows into a page:
 * payloads in order and the pagination key of the last one when more follow.
 */
import { findEventsForSearch } from '../store/event-search.js';
import type { Store } from '../store/index.js';
import { encodePaginationKey } from './pagination-key.js';
import type { EventSearch } from './search-filter.js';

export interface SearchPage {
  /** Payload JSON of each event, in order. */
  payloads: string[];
  paginationKey?: string;
  totalHits?: number;
}

export async function searchEvents(store: Store, workspaceId: string, s: EventSearch): Promise<SearchPage> {
  const found = await findEventsForSearch(store, workspaceId, s);
  const result: SearchPage = { payloads: found.rows.map((r) => r.payload) };
  const last = found.rows[found.rows.length - 1];
  if (found.more && last !== undefined) {
    result.paginationKey = encodePaginationKey({ timestamp: last.timestamp, eventId: last.event_id });
  }
  if (found.totalHits !== undefined) result.totalHits = found.totalHits;
  return result;
}
