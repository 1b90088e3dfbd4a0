/**
 * The opaque search cursor: the (timestamp, event id) of the last event of a page. Search
 * orders by exactly that pair, so the next page starts right after it and events inserted
 * meanwhile never shift or repeat a page.
 */
import { invalid } from './errors.js';

export interface Cursor {
  timestamp: number;
  eventId: string;
}

export function encodePaginationKey(cursor: Cursor): string {
  return Buffer.from(`${cursor.timestamp}|${cursor.eventId}`, 'utf8').toString('base64url');
}

export function decodePaginationKey(key: string, parameter: string): Cursor {
  const text = /^[A-Za-z0-9_-]{1,200}$/.test(key) ? Buffer.from(key, 'base64url').toString('utf8') : '';
  const match = /^(\d{1,16})\|([A-Za-z0-9._-]{1,64})$/.exec(text);
  if (!match) throw invalid(parameter);
  return { timestamp: Number(match[1]), eventId: match[2]! };
}
