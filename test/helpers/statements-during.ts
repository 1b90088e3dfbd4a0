/**
 * The statements (text and values) that any pg client of this process sends while `work` runs,
 * captured at the driver.
 */
import { createRequire } from 'node:module';

export interface SentStatement {
  text: string;
  values: unknown[];
}

export async function statementsDuring(work: () => Promise<unknown>): Promise<SentStatement[]> {
  const pg = createRequire(import.meta.url)('pg') as { Client: { prototype: { query: (...args: unknown[]) => unknown } } };
  const original = pg.Client.prototype.query;
  const seen: SentStatement[] = [];
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const [first, second] = args as [string | { text?: string; values?: unknown[] }, unknown];
    if (typeof first === 'string') seen.push({ text: first, values: Array.isArray(second) ? second : [] });
    else seen.push({ text: first.text ?? '', values: first.values ?? [] });
    return original.apply(this, args);
  };
  try {
    await work();
    return seen;
  } finally {
    pg.Client.prototype.query = original;
  }
}
