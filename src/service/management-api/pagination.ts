/**
 * Cursor pagination of the lists: `limit` 0 to 101 (default 10) and an opaque `cursor`. A
 * cursor holds the offset of its page: simple, and enough for lists an operator manages (a
 * row inserted or deleted before the page shifts it by one; nothing is skipped twice).
 */
import type { Fields } from './fields.js';

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 101;

export interface Window {
  offset: number;
  limit: number;
}

export interface ListAnswer<T> {
  data: T[];
  metadata: { pagination: { next_cursor: string | null; prev_cursor: string | null } };
}

export function encodeCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}

export function decodeCursor(cursor: string): number | undefined {
  const match = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString());
  return match ? Number(match[1]) : undefined;
}

/** Reads `limit` and `cursor` (violations go to `query`). */
export function readWindow(query: Fields): Window {
  const limit = query.integer('limit', 0, MAX_LIMIT) ?? DEFAULT_LIMIT;
  const cursor = query.raw('cursor');
  let offset = 0;
  if (cursor !== undefined) {
    const decoded = typeof cursor === 'string' ? decodeCursor(cursor) : undefined;
    if (decoded === undefined) query.fail('cursor', 'is not a cursor of this list');
    else offset = decoded;
  }
  return { offset, limit };
}

/** The store window to read: one row more than the page, to know whether another follows. */
export function probe(window: Window): Window {
  return { offset: window.offset, limit: window.limit + 1 };
}

/**
 * The answer for `rows` read with `probe(window)`. `limit` 0 answers no rows and no next
 * cursor (it checks access and filters; following a next cursor of size 0 would never end).
 */
export function listAnswer<R, T>(rows: R[], window: Window, toJson: (row: R) => T): ListAnswer<T> {
  const page = rows.slice(0, window.limit);
  const hasNext = window.limit > 0 && rows.length > window.limit;
  return {
    data: page.map(toJson),
    metadata: {
      pagination: {
        next_cursor: hasNext ? encodeCursor(window.offset + window.limit) : null,
        prev_cursor: window.offset > 0 ? encodeCursor(Math.max(0, window.offset - Math.max(window.limit, 1))) : null,
      },
    },
  };
}
