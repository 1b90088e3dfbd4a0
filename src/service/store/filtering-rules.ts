/** Filtering rules of an environment, kept in `position` order. */
import { newId } from './ids.js';
import { internalsOf, type Store } from './handle.js';
import type { FilteringRulesTable } from './schema.js';

/** The environment's rules in evaluation order (position, then creation). */
export async function listFilteringRules(store: Store, environmentId: string): Promise<FilteringRulesTable[]> {
  return internalsOf(store)
    .db.selectFrom('filtering_rules')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .orderBy('position')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/**
 * listFilteringRules for ingestion, cached briefly (read-cache.ts): a rule changed by another
 * process applies within READ_CACHE_TTL_MS, at once when changed through this store.
 */
export async function listFilteringRulesCached(store: Store, environmentId: string): Promise<readonly FilteringRulesTable[]> {
  return internalsOf(store).state.readCaches.get('rulesOfEnvironment', environmentId, async () =>
    Object.freeze(await listFilteringRules(store, environmentId)),
  );
}

/** Stores a rule as given (no expression validation: the Management API validates before calling this). */
export async function insertFilteringRule(
  store: Store,
  rule: {
    environmentId: string;
    name: string;
    expression: string;
    action: FilteringRulesTable['action'];
    status?: FilteringRulesTable['status'];
    denyWith?: string | null;
    position?: number;
    now: number;
  },
): Promise<FilteringRulesTable> {
  const { db, state } = internalsOf(store);
  let position = rule.position;
  if (position === undefined) {
    const last = await db
      .selectFrom('filtering_rules')
      .select((eb) => eb.fn.max('position').as('max'))
      .where('environment_id', '=', rule.environmentId)
      .executeTakeFirst();
    position = last?.max === null || last?.max === undefined ? 0 : Number(last.max) + 1;
  }
  const row: FilteringRulesTable = {
    id: newId('tr'),
    environment_id: rule.environmentId,
    position,
    name: rule.name,
    expression: rule.expression,
    action: rule.action,
    status: rule.status ?? 'enabled',
    deny_with: rule.denyWith ?? null,
    created_at: rule.now,
    updated_at: null,
  };
  await db.insertInto('filtering_rules').values(row).execute();
  state.readCaches.invalidate();
  return row;
}
