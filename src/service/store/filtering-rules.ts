/** Filtering rules of an environment, kept in `position` order. */
import type { Kysely } from 'kysely';
import { newId } from './ids.js';
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
  return row;
}
