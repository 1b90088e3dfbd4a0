/**
 * Storage of visitors and their blocking keys. Every query is served by an index: the visitor
 * by primary key, candidates by (workspace_id, key, last_seen_at) with a LIMIT per key.
 */
import { type Kysely, type QueryCreator, sql } from 'kysely';
import { engineOf } from '../store/database.js';
import { commitTogether } from '../store/group-commit.js';
import { prepareQuery } from '../store/prepared-query.js';
import type { Candidate, KeyCrowding } from './matcher.js';
import { profileFrom, type VisitorProfile } from './profile.js';
import type { IdentificationTables } from './tables.js';

export type IdentificationDb = Kysely<IdentificationTables>;

/** Visitors read per blocking key: bounds the work of one identification. */
export const CANDIDATES_PER_KEY = 8;
/**
 * Visitors counted on the client's network (`p:` keys, never loaded as candidates): a home
 * network holds a household's few browsers, a carrier NAT, office or VPN exit many more.
 */
export const NETWORK_COUNT_LIMIT = 16;
/** Keys a visitor no longer produces are dropped after this long (so alternating values keep matching meanwhile). */
/** How often unchanged keys get their last_seen_at refreshed. */
export const KEY_REFRESH_MS = 24 * 3600 * 1000;
export const STALE_KEY_MS = 30 * 24 * 3600 * 1000;

export interface StoredVisitor extends Candidate {
  visitCount: number;
  /** Blocking keys written at the last visit, and when their last_seen_at was last refreshed. */
  keys: string[];
  keysRefreshedAt: number;
}

interface VisitorRow {
  visitor_id: string;
  first_seen_at: number | string;
  last_seen_at: number | string;
  visit_count: number | string;
  last_token_at: number | string | null;
  profile: string;
}

/** The profile JSON also carries the keys of the last visit, to skip key clean-up when nothing changed. */
type StoredProfile = VisitorProfile & { k?: string[]; kt?: number };

function toStoredVisitor(row: VisitorRow): StoredVisitor {
  // Parsed once: the profile and the keys of the last visit come from the same JSON.
  const raw = (() => {
    try {
      return JSON.parse(row.profile) as unknown;
    } catch {
      return null;
    }
  })() as { k?: unknown; kt?: unknown } | null;
  return {
    visitorId: row.visitor_id,
    firstSeenAt: Number(row.first_seen_at),
    lastSeenAt: Number(row.last_seen_at),
    visitCount: Number(row.visit_count),
    lastTokenAt: row.last_token_at === null ? null : Number(row.last_token_at),
    profile: profileFrom(raw),
    keys: Array.isArray(raw?.k) ? (raw.k as string[]) : [],
    keysRefreshedAt: typeof raw?.kt === 'number' ? raw.kt : 0,
  };
}

const VISITOR_COLUMNS = ['visitor_id', 'first_seen_at', 'last_seen_at', 'visit_count', 'last_token_at', 'profile'] as const;

// Every visit with a token reads its visitor: compiled once (prepared-query.ts).
const loadVisitorQuery = prepareQuery((db: IdentificationDb, param) =>
  db.selectFrom('visitors').select(VISITOR_COLUMNS).where('visitor_id', '=', param('visitorId')).where('workspace_id', '=', param('workspaceId')),
);

export async function loadVisitor(db: IdentificationDb, workspaceId: string, visitorId: string): Promise<StoredVisitor | null> {
  const [row] = await loadVisitorQuery(db, { workspaceId, visitorId });
  return row ? toStoredVisitor(row) : null;
}

/**
 * The most recently seen visitors of each blocking key (at most CANDIDATES_PER_KEY each), and
 * how many visitors each key kind returned. Two queries: keys (one UNION ALL), then profiles.
 */
export async function findCandidates(
  db: IdentificationDb,
  workspaceId: string,
  keys: readonly string[],
): Promise<{ candidates: StoredVisitor[]; crowding: KeyCrowding }> {
  if (keys.length === 0) return { candidates: [], crowding: {} };
  const parts = keys.map(
    (key, i) =>
      sql`SELECT * FROM (SELECT "key", "visitor_id" FROM "visitor_keys" WHERE "workspace_id" = ${workspaceId} AND "key" = ${key} ORDER BY "last_seen_at" DESC LIMIT ${key.startsWith('p:') ? NETWORK_COUNT_LIMIT : CANDIDATES_PER_KEY}) AS ${sql.raw(`k${i}`)}`,
  );
  const { rows } = await sql<{ key: string; visitor_id: string }>`${sql.join(parts, sql` UNION ALL `)}`.execute(db);
  const crowding: KeyCrowding = {};
  const ids = new Set<string>();
  for (const row of rows) {
    const kind = row.key.slice(0, row.key.indexOf(':'));
    crowding[kind] = (crowding[kind] ?? 0) + 1;
    if (kind !== 'p') ids.add(row.visitor_id);
  }
  if (ids.size === 0) return { candidates: [], crowding };
  const visitors = await db
    .selectFrom('visitors')
    .select(VISITOR_COLUMNS)
    .where('visitor_id', 'in', [...ids])
    .where('workspace_id', '=', workspaceId)
    .execute();
  return { candidates: visitors.map(toStoredVisitor), crowding };
}

/** One write of a visit, on whichever query creator runs it (a transaction, or a CTE). */
type Write = (qc: QueryCreator<IdentificationTables>) => { execute(): Promise<unknown> };

/**
 * The writes of one visit, all or nothing: on PostgreSQL one statement of data-modifying CTEs
 * (one round trip instead of a transaction's four or five), on SQLite one transaction shared
 * with the writes of concurrent requests (group-commit.ts); either way committed on return.
 * Writes to the same rows must not depend on each other's effects (a statement's CTEs all
 * see the same snapshot).
 */
async function writeAtomically(db: IdentificationDb, writes: Write[]): Promise<void> {
  if (engineOf(db) === 'postgres') {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    let creator: QueryCreator<any> = db;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    writes.forEach((write, i) => (creator = creator.with(`write${i}`, (qc) => write(qc) as any)));
    await creator.selectNoFrom(sql<number>`1`.as('done')).execute();
    return;
  }
  const run = async (trx: IdentificationDb) => {
    for (const write of writes) await write(trx).execute();
  };
  await (db.isTransaction ? run(db) : commitTogether(db, run));
}

export async function insertVisitor(
  db: IdentificationDb,
  v: { workspaceId: string; visitorId: string; now: number; profile: VisitorProfile; keys: string[] },
): Promise<void> {
  const stored: StoredProfile = { ...v.profile, k: v.keys, kt: v.now };
  const writes: Write[] = [
    (qc) =>
      qc.insertInto('visitors').values({
        visitor_id: v.visitorId,
        workspace_id: v.workspaceId,
        first_seen_at: v.now,
        last_seen_at: v.now,
        visit_count: 1,
        last_token_at: null,
        profile: JSON.stringify(stored),
      }),
  ];
  if (v.keys.length > 0) writes.push(upsertKeys(v.workspaceId, v.visitorId, v.keys, v.now));
  await writeAtomically(db, writes);
}

export async function recordVisit(
  db: IdentificationDb,
  v: { workspaceId: string; visitor: StoredVisitor; now: number; profile: VisitorProfile; keys: string[]; withToken: boolean },
): Promise<void> {
  const keysChanged = v.keys.length !== v.visitor.keys.length || v.keys.some((k, i) => k !== v.visitor.keys[i]);
  // Most visits repeat yesterday's keys: their recency (for candidate ordering) is refreshed
  // at most once per KEY_REFRESH_MS, so such a visit writes one row, not eight.
  const refreshKeys = keysChanged || v.now - v.visitor.keysRefreshedAt >= KEY_REFRESH_MS;
  const stored: StoredProfile = { ...v.profile, k: v.keys, kt: refreshKeys ? v.now : v.visitor.keysRefreshedAt };
  const visitorId = v.visitor.visitorId;
  const writes: Write[] = [
    (qc) =>
      qc
        .updateTable('visitors')
        .set({
          // A visit arriving out of order never moves last_seen_at back.
          last_seen_at: Math.max(v.now, v.visitor.lastSeenAt),
          visit_count: sql<number>`visit_count + 1`,
          profile: JSON.stringify(stored),
          ...(v.withToken ? { last_token_at: v.now } : {}),
        })
        .where('visitor_id', '=', visitorId)
        .where('workspace_id', '=', v.workspaceId),
  ];
  if (v.keys.length > 0 && refreshKeys) writes.push(upsertKeys(v.workspaceId, visitorId, v.keys, v.now));
  if (keysChanged) {
    // The visit's own keys were just refreshed: only the others can be stale.
    writes.push((qc) => {
      let stale = qc
        .deleteFrom('visitor_keys')
        .where('visitor_id', '=', visitorId)
        .where('workspace_id', '=', v.workspaceId)
        .where('last_seen_at', '<', v.now - STALE_KEY_MS);
      if (v.keys.length > 0) stale = stale.where('key', 'not in', v.keys);
      return stale;
    });
  }
  await writeAtomically(db, writes);
}

function upsertKeys(workspaceId: string, visitorId: string, keys: string[], now: number): Write {
  return (qc) =>
    qc
      .insertInto('visitor_keys')
      .values(keys.map((key) => ({ workspace_id: workspaceId, key, visitor_id: visitorId, last_seen_at: now })))
      .onConflict((oc) => oc.columns(['workspace_id', 'key', 'visitor_id']).doUpdateSet({ last_seen_at: now }));
}

/** Forgets a visitor: its row and its keys. True when it existed. */
export async function deleteVisitorRows(db: IdentificationDb, workspaceId: string, visitorId: string): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await trx.deleteFrom('visitor_keys').where('visitor_id', '=', visitorId).where('workspace_id', '=', workspaceId).execute();
    const result = await trx.deleteFrom('visitors').where('visitor_id', '=', visitorId).where('workspace_id', '=', workspaceId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  });
}
