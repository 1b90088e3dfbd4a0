/**
 * A prepared statement's values come from an object, or from a function of each value's name
 * (prepared-query.ts): the PostgreSQL write of a visit with its event reads its values from
 * several objects that way instead of merging them.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { prepareQuery } from '../../src/service/store/prepared-query.js';
import { ENGINES } from '../helpers/test-service.js';
import { freshStores } from '../helpers/fresh-stores.js';

const echo = prepareQuery<{ a: string; b: string; c: number }>(
  (_db, p) => sql<{ a: string; b: string; c: number }>`select cast(${p('a')} as text) as a, cast(${p('b')} as text) as b, ${sql.lit(7)} + 0 as c`,
);

describe.each(ENGINES)('prepared statements (%s)', (engine) => {
  const openFresh = freshStores();

  it('binds the same values by name from an object and from a function', async () => {
    const { store } = await openFresh(engine);
    const fromObject = await echo(store, { a: 'one', b: 'two', unused: 'x' });
    const names: string[] = [];
    const fromFunction = await echo(store, (name) => {
      names.push(name);
      return name === 'a' ? 'one' : 'two';
    });
    expect(fromObject).toEqual([{ a: 'one', b: 'two', c: 7 }]);
    expect(fromFunction).toEqual(fromObject);
    // Asked for each value the text names, once per call; constants are not asked for.
    expect(names).toEqual(['a', 'b']);
  });
});
