/** Cursor pagination of the Management API lists, as an async iterator of items. */
import type { Page } from './management-api-types.js';

/**
 * Every item of a list across pages: calls `listPage` with `cursor` (undefined for the first
 * page), then with each `nextCursor` until it is null.
 *
 * `for await (const key of paginate((cursor) => client.listApiKeys({ type: 'secret', cursor })))`
 */
export async function* paginate<T>(
  listPage: (cursor: string | undefined) => Promise<Page<T>>,
  cursor?: string,
): AsyncGenerator<T> {
  let next = cursor;
  for (;;) {
    const page = await listPage(next);
    yield* page.data;
    if (page.nextCursor === null) return;
    next = page.nextCursor;
  }
}
