/**
 * Runs an `EventSearch` (store/event-search.ts holds the SQL) and turns the rows into a page:
 * payloads in order and the pagination key where the next page starts, when more may follow.
 */
import { findEventsForSearch, SearchTimeout } from '../store/event-search.js';
import type { Store } from '../store/index.js';
import { ApiError, ERRORS } from './errors.js';
import { encodePaginationKey } from './pagination-key.js';
import type { EventSearch } from './search-filter.js';

export interface SearchPage {
  /** Payload JSON of each event, in order. */
  payloads: string[];
  paginationKey?: string;
  totalHits?: number;
}

export async function searchEvents(store: Store, workspaceId: string, s: EventSearch): Promise<SearchPage> {
  let found;
  try {
    found = await findEventsForSearch(store, workspaceId, s);
  } catch (err) {
    if (err instanceof SearchTimeout) {
      throw new ApiError(ERRORS.badRequest, 'search too broad: narrow the time window or add a selective filter');
    }
    throw err;
  }
  const result: SearchPage = { payloads: found.rows.map((r) => r.payload) };
  if (found.next !== undefined) result.paginationKey = encodePaginationKey(found.next);
  if (found.totalHits !== undefined) result.totalHits = found.totalHits;
  return result;
}
