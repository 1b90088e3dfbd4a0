/** Filtering rules of an environment, kept in `position` order (0, 1, 2, ... without gaps). */
import { newId } from './ids.js';
import { holdEnvironment } from './environments.js';
import { internalsOf, writeShared, type Store } from './handle.js';
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
 * listFilteringRules for ingestion, cached (read-cache.ts) and invalidated by writes of any
 * process (change-feed.ts).
 */
export async function listFilteringRulesCached(store: Store, environmentId: string): Promise<readonly FilteringRulesTable[]> {
  return internalsOf(store).state.readCaches.get('rulesOfEnvironment', environmentId, async () =>
    Object.freeze(await listFilteringRules(store, environmentId)),
  );
}

export interface FilteringRuleFilter {
  environmentId?: string;
  status?: FilteringRulesTable['status'];
  name?: string;
}

/**
 * One window of the workspace's rules in evaluation order: environment by environment (oldest
 * environment first), each in position order.
 */
export async function listFilteringRulesPage(
  store: Store,
  workspaceId: string,
  filter: FilteringRuleFilter,
  window: { offset: number; limit: number },
): Promise<FilteringRulesTable[]> {
  let q = internalsOf(store)
    .db.selectFrom('filtering_rules')
    .innerJoin('environments', 'environments.id', 'filtering_rules.environment_id')
    .selectAll('filtering_rules')
    .where('environments.workspace_id', '=', workspaceId);
  if (filter.environmentId) q = q.where('filtering_rules.environment_id', '=', filter.environmentId);
  if (filter.status) q = q.where('filtering_rules.status', '=', filter.status);
  if (filter.name !== undefined) q = q.where('filtering_rules.name', '=', filter.name);
  return q
    .orderBy('environments.created_at')
    .orderBy('environments.id')
    .orderBy('filtering_rules.position')
    .orderBy('filtering_rules.created_at')
    .orderBy('filtering_rules.id')
    .limit(window.limit)
    .offset(window.offset)
    .execute();
}

/** The rule `id` if its environment belongs to `workspaceId`. */
export async function getFilteringRuleInWorkspace(store: Store, workspaceId: string, id: string): Promise<FilteringRulesTable | undefined> {
  return internalsOf(store)
    .db.selectFrom('filtering_rules')
    .innerJoin('environments', 'environments.id', 'filtering_rules.environment_id')
    .selectAll('filtering_rules')
    .where('filtering_rules.id', '=', id)
    .where('environments.workspace_id', '=', workspaceId)
    .executeTakeFirst();
}

/**
 * Stores a rule as given (no expression validation: the Management API validates first): last
 * in its environment, at `position` when given, or where `order` puts it (`order(id)`: the
 * environment's rule ids in their new order, applied in the same transaction).
 */
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
    order?: (id: string) => readonly string[];
    now: number;
  },
): Promise<FilteringRulesTable> {
  return writeShared(store, async (trx) => {
    const { db } = internalsOf(trx);
    // The environment must still exist, and cannot be deleted before this commits.
    await holdEnvironment(trx, rule.environmentId);
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
    if (rule.order) {
      const order = rule.order(row.id);
      await setPositions(trx, new Map([[rule.environmentId, order]]));
      row.position = order.indexOf(row.id);
    }
    return row;
  });
}

export type FilteringRuleChange = Partial<
  Pick<FilteringRulesTable, 'environment_id' | 'name' | 'expression' | 'action' | 'status' | 'deny_with' | 'updated_at'>
>;

/**
 * Changes rule `id` and sets the evaluation order of the environments involved, in one
 * transaction: `orders` maps each environment to its rule ids in order (positions 0, 1, ...).
 */
export async function updateFilteringRule(
  store: Store,
  id: string,
  change: FilteringRuleChange,
  orders: ReadonlyMap<string, readonly string[]>,
): Promise<void> {
  await writeShared(store, async (trx) => {
    const { db } = internalsOf(trx);
    // Moved to another environment: it must still exist, and cannot be deleted before this commits.
    if (change.environment_id !== undefined) await holdEnvironment(trx, change.environment_id);
    if (Object.keys(change).length > 0) await db.updateTable('filtering_rules').set(change).where('id', '=', id).execute();
    await setPositions(trx, orders);
  });
}

/** Deletes the rule and closes the gap it leaves (`order`: the environment's remaining rule ids). */
export async function deleteFilteringRule(store: Store, id: string, environmentId: string, order: readonly string[]): Promise<void> {
  await writeShared(store, async (trx) => {
    await internalsOf(trx).db.deleteFrom('filtering_rules').where('id', '=', id).execute();
    await setPositions(trx, new Map([[environmentId, order]]));
  });
}

async function setPositions(store: Store, orders: ReadonlyMap<string, readonly string[]>): Promise<void> {
  const { db } = internalsOf(store);
  for (const [environmentId, ids] of orders) {
    for (const [position, ruleId] of ids.entries()) {
      await db
        .updateTable('filtering_rules')
        .set({ position })
        .where('id', '=', ruleId)
        .where('environment_id', '=', environmentId)
        .where('position', '!=', position)
        .execute();
    }
  }
}
