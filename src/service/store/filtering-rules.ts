/** Filtering rules of an environment, kept in `position` order. */
import type { Kysely } from 'kysely';
import { newId } from './ids.js';
import { createReadCache, invalidateReadCaches } from './read-cache.js';
import type { Database, FilteringRulesTable } from './schema.js';

/** The environment's rules in evaluation order (position, then creation). */
export async function listFilteringRules(db: Kysely<Database>, environmentId: string): Promise<FilteringRulesTable[]> {
  return db
    .selectFrom('filtering_rules')
    .selectAll()
    .where('environment_id', '=', environmentId)
    .orderBy('position')
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

const rulesOfEnvironment = createReadCache<readonly FilteringRulesTable[]>();

/**
 * listFilteringRules for ingestion, cached briefly (read-cache.ts): a rule changed by another
 * process applies within READ_CACHE_TTL_MS, at once when changed through this process.
 */
export async function listFilteringRulesCached(db: Kysely<Database>, environmentId: string): Promise<readonly FilteringRulesTable[]> {
  return rulesOfEnvironment.get(db, environmentId, async () => Object.freeze(await listFilteringRules(db, environmentId)));
}

/** Stores a rule as given (no expression validation: the Management API validates before calling this). */
export async function insertFilteringRule(
  db: Kysely<Database>,
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
  invalidateReadCaches();
  return row;
}
