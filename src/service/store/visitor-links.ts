/**
 * Relinked visitor IDs (identification/relink.ts): which earlier ID an absorbed ID's storage
 * was moved back to. The rows are written with the relinking visit (visitors.ts,
 * `planRelinkVisit`); here are the reads: a token of an absorbed ID resolves to its surviving
 * ID (by primary key, only when the token's visitor is gone), and the Server API reads the
 * absorbed IDs of a surviving ID (by the (workspace, surviving) index) to show their events
 * under it.
 */
import { internalsOf, type Store } from './handle.js';
import { prepareQuery } from './prepared-query.js';

/**
 * Absorbed IDs read per surviving ID. Every relink of one browser is a storage loss it came
 * back from, so a real browser has a handful; the bound keeps a search's cost bounded.
 */
export const MAX_ABSORBED_IDS = 50;

const survivingQuery = prepareQuery<{ surviving_id: string }>((db, param) =>
  db
    .selectFrom('visitor_links')
    .select('surviving_id')
    .where('workspace_id', '=', param('workspaceId'))
    .where('absorbed_id', '=', param('absorbedId')),
);

/** The ID an absorbed visitor ID was relinked to, if it was. */
export async function findSurvivingVisitorId(store: Store, workspaceId: string, absorbedId: string): Promise<string | undefined> {
  const [row] = await survivingQuery(store, { workspaceId, absorbedId });
  return row?.surviving_id;
}

/** The visitor IDs relinked to `survivingId` (at most MAX_ABSORBED_IDS, the most recent first). */
export async function listAbsorbedVisitorIds(store: Store, workspaceId: string, survivingId: string): Promise<string[]> {
  const rows = await internalsOf(store)
    .db.selectFrom('visitor_links')
    .select('absorbed_id')
    .where('workspace_id', '=', workspaceId)
    .where('surviving_id', '=', survivingId)
    .orderBy('linked_at', 'desc')
    .limit(MAX_ABSORBED_IDS)
    .execute();
  return rows.map((r) => r.absorbed_id);
}

/** A visitor ID with the IDs relinked to it: every ID whose events the visitor's history shows. */
export async function visitorIdsOf(store: Store, workspaceId: string, visitorId: string): Promise<string[]> {
  return [visitorId, ...(await listAbsorbedVisitorIds(store, workspaceId, visitorId))];
}
