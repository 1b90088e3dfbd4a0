/**
 * Visitors and their blocking keys (identification). Every query is served by an index: the
 * visitor by primary key, candidates by (workspace_id, key, last_seen_at) with a LIMIT per key.
 * Rows come back with their profile JSON parsed but not interpreted: identification owns what
 * a profile means.
 */
import { type Compilable, type QueryCreator, sql } from 'kysely';
import type { Engine } from './database.js';
import { commitTogether } from './group-commit.js';
import { internalsOf, type Store } from './handle.js';
import { createParsedJsonCache } from './parsed-json-cache.js';
import { prepareQuery, type Variant } from './prepared-query.js';
import { activityRowsSql, activityVariant, recentActivityValues, type ActivityRow, type PrefetchedActivity, type RecentActivityQuery } from './recent-activity.js';
import type { Database } from './schema.js';
import { findSurvivingVisitorId } from './visitor-links.js';

/** Visitors read per blocking key: bounds the work of one identification. */
export const CANDIDATES_PER_KEY = 8;
/**
 * Visitors counted on the client's network (`p:` keys, never loaded as candidates): a home
 * network holds a household's few browsers, a carrier NAT, office or VPN exit many more.
 */
export const NETWORK_COUNT_LIMIT = 64;
/**
 * Visitors of the client's network listed by ID (`networkVisitors`, the most recent first):
 * identification reads a network's other visitors only when few use it (a home, fewer than
 * MATCH.sharedNetworkVisitors, which a test keeps below this), so every one of them is listed.
 */
export const NETWORK_VISITORS_LISTED = 16;
/**
 * Visitors counted per blocking key (the crowding: how many visitors share the key, the
 * anonymity set of the fingerprint); only the CANDIDATES_PER_KEY most recent are loaded.
 */
export const KEY_COUNT_LIMIT = 64;
/** How often the keys a visitor keeps producing get their last_seen_at refreshed. */
export const KEY_REFRESH_MS = 24 * 3600 * 1000;
/** Keys a visitor no longer produces are dropped after this long (so alternating values keep matching meanwhile). */
export const STALE_KEY_MS = 30 * 24 * 3600 * 1000;

/** A stored visitor. */
export interface VisitorRecord {
  visitorId: string;
  firstSeenAt: number;
  lastSeenAt: number;
  visitCount: number;
  /** Last visit that brought this visitor's own valid token; null if none did since creation. */
  lastTokenAt: number | null;
  /** The profile JSON, parsed (null when unparseable); identification/profile.ts reads it. */
  profile: unknown;
  /** Blocking keys written at the last visit, and when their last_seen_at was last refreshed. */
  keys: readonly string[];
  keysRefreshedAt: number;
}

/** How many visitors each kind of blocking key returned (the part of a key before its `:`). */
type KeyCrowding = Record<string, number>;

/**
 * What the read of a visit's keys returns: the candidates, the crowding of each key kind, and
 * the visitors seen on the visit's network (its `p:` key, counted in `crowding.p`; the
 * NETWORK_VISITORS_LISTED most recent).
 */
export interface CandidateRead {
  candidates: VisitorRecord[];
  crowding: KeyCrowding;
  networkVisitors: string[];
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
type StoredProfile = object & { k?: string[]; kt?: number };

/**
 * `profile` as stored, with the visit's keys and when they were last refreshed. Object.assign
 * rather than `{ ...profile, k, kt }`: on Node 20 a spread followed by properties the spread
 * object lacks took about 2 µs a call, Object.assign about 0.3 µs.
 */
function storedProfile(profile: object, keys: string[], refreshedAt: number): StoredProfile {
  return Object.assign({}, profile, { k: keys, kt: refreshedAt });
}

/**
 * Profiles parsed recently, by visitor (parsed-json-cache.ts): about 2 KB of JSON each, the
 * same popular candidates read by visit after visit. 1,000 profiles hold about 7.5 MB. It was
 * 4,000 (about 30 MB): V8 lets a busy heap grow to several times its live size between
 * compactions, so that cost each worker of `tessera start` about 60 MiB at its peak under load
 * (250-270 MiB against 190-200 MiB with 1,000, 1M events; and no fewer identifications per
 * second: docs/performance.md, Memory).
 */
const parseProfile = createParsedJsonCache(1000);

/**
 * `row` as a record. `changing`: the visitor a token names, whose visit is about to rewrite its
 * profile: its parse is not kept (parsed-json-cache.ts).
 */
function toRecord(row: VisitorRow, changing = false): VisitorRecord {
  // Parsed once: the profile and the keys of the last visit come from the same JSON.
  const raw = parseProfile(row.visitor_id, row.profile, !changing) as { k?: unknown; kt?: unknown } | null;
  return {
    visitorId: row.visitor_id,
    firstSeenAt: Number(row.first_seen_at),
    lastSeenAt: Number(row.last_seen_at),
    visitCount: Number(row.visit_count),
    lastTokenAt: row.last_token_at === null ? null : Number(row.last_token_at),
    profile: raw,
    keys: Array.isArray(raw?.k) ? (raw.k as readonly string[]) : [],
    keysRefreshedAt: typeof raw?.kt === 'number' ? raw.kt : 0,
  };
}

const VISITOR_COLUMNS = ['visitor_id', 'first_seen_at', 'last_seen_at', 'visit_count', 'last_token_at', 'profile'] as const;

// Every visit with a token reads its visitor: compiled once (prepared-query.ts).
const loadVisitorQuery = prepareQuery<VisitorRow>((db, param) =>
  db.selectFrom('visitors').select(VISITOR_COLUMNS).where('visitor_id', '=', param('visitorId')).where('workspace_id', '=', param('workspaceId')),
);

/** The visitor a token names, whose visit is about to rewrite its profile (toRecord's `changing`). */
export async function loadVisitor(store: Store, workspaceId: string, visitorId: string): Promise<VisitorRecord | null> {
  const [row] = await loadVisitorQuery(store, { workspaceId, visitorId });
  return row ? toRecord(row, true) : null;
}

/**
 * The read of findCandidates, compiled once per shape (prepared-query.ts): its variant key has
 * one letter per key, `p` for a network's `p:` key and `k` for any other (they differ only in
 * their limits), and the keys are the values `k0`, `k1`, .... A visit has a handful of shapes
 * (its blocking keys, then its two network keys; a household read, network keys only).
 */
const candidatesQuery = prepareQuery<{ key: string; visitor_id: string | null; n: number | null }>((_db, p, shape) => {
  const parts = [...shape].map((kind, i) => {
    const network = kind === 'p';
    const matching = sql`FROM "visitor_keys" WHERE "workspace_id" = ${p('workspaceId')} AND "key" = ${p(`k${i}`)}`;
    // Literal limits: with bound ones SQLite ran this statement about 2.5 times slower (150-217
    // against 61 µs for a visit's seven keys on the accuracy simulation's database).
    return sql`SELECT * FROM (SELECT "key", "visitor_id", CAST(NULL AS bigint) AS "n" ${matching} ORDER BY "last_seen_at" DESC LIMIT ${sql.lit(network ? NETWORK_VISITORS_LISTED : CANDIDATES_PER_KEY)}) AS ${sql.raw(`v${i}`)}
      UNION ALL SELECT ${p(`k${i}`)}, NULL, count(*) FROM (SELECT 1 ${matching} LIMIT ${sql.lit(network ? NETWORK_COUNT_LIMIT : KEY_COUNT_LIMIT)}) AS ${sql.raw(`c${i}`)}`;
  });
  return sql`${sql.join(parts, sql` UNION ALL `)}`;
});

/**
 * The most recently seen visitors of each blocking key (at most CANDIDATES_PER_KEY each), and
 * how many visitors each key kind has (up to KEY_COUNT_LIMIT per key, NETWORK_COUNT_LIMIT for
 * the network's `p:` key). Two queries: keys (one UNION ALL), then profiles. Each key's count
 * comes back as one row: only the visitors that are used are turned into rows.
 */
export async function findCandidates(
  store: Store,
  workspaceId: string,
  keys: readonly string[],
): Promise<CandidateRead & { visitorsPerKey: Record<string, number> }> {
  if (keys.length === 0) return { candidates: [], crowding: {}, networkVisitors: [], visitorsPerKey: {} };
  const values: Record<string, string> = { workspaceId };
  keys.forEach((key, i) => (values[`k${i}`] = key));
  const shape = keys.map((key) => (key.startsWith('p:') ? 'p' : 'k')).join('');
  const rows = await candidatesQuery(store, values, { key: shape, named: true });
  const crowding: KeyCrowding = {};
  const visitorsPerKey: Record<string, number> = {};
  const networkVisitors: string[] = [];
  const ids = new Set<string>();
  for (const row of rows) {
    const kind = row.key.slice(0, row.key.indexOf(':'));
    if (row.visitor_id === null) {
      // A key nobody else has counts nowhere, as when its visitors were rows.
      const n = Number(row.n);
      if (n === 0) continue;
      crowding[kind] = (crowding[kind] ?? 0) + n;
      visitorsPerKey[row.key] = n;
    } else if (kind === 'p') networkVisitors.push(row.visitor_id);
    else ids.add(row.visitor_id);
  }
  return { candidates: await loadVisitors(store, workspaceId, [...ids]), crowding, networkVisitors, visitorsPerKey };
}

// Any number of visitors in one text: their IDs come as one JSON array (keyList), read as
// each engine reads JSON.
const loadVisitorsOn = (engine: Engine) =>
  prepareQuery<VisitorRow>((db, p) =>
    db
      .selectFrom('visitors')
      .select(VISITOR_COLUMNS)
      .where('workspace_id', '=', p('workspaceId'))
      .where(sql<boolean>`visitor_id in (${keyList(engine, p, 'visitorIds')})`),
  );
const loadVisitorsQuery = { sqlite: loadVisitorsOn('sqlite'), postgres: loadVisitorsOn('postgres') };

/** These visitors (those that exist), in one statement; none read for an empty list. */
export async function loadVisitors(store: Store, workspaceId: string, visitorIds: readonly string[]): Promise<VisitorRecord[]> {
  if (visitorIds.length === 0) return [];
  const rows = await loadVisitorsQuery[store.engine](store, { workspaceId, visitorIds: JSON.stringify(visitorIds) });
  return rows.map((row) => toRecord(row));
}

/**
 * The statements of a visit are prepared (prepared-query.ts): their SQL text is the same
 * whatever the number of keys, which come as one JSON array parameter (`keyList`).
 */
type Param = <T>(name: string) => T;

type Write = (qc: QueryCreator<Database>, p: Param, engine: Engine) => Compilable;

/** The strings of JSON array parameter `name`, as rows of one column `value`. */
function keyList(engine: Engine, p: Param, name: string) {
  return engine === 'postgres'
    ? sql`select value from json_array_elements_text(cast(${p(name)} as json)) as value`
    : sql`select value from json_each(${p(name)})`;
}

const insertVisitorRow = (qc: QueryCreator<Database>, p: Param) =>
  qc.insertInto('visitors').values({
    visitor_id: p('visitorId'),
    workspace_id: p('workspaceId'),
    first_seen_at: p('now'),
    last_seen_at: p('now'),
    visit_count: 1,
    last_token_at: null,
    profile: p('profile'),
  });

const updateVisitorRow = (qc: QueryCreator<Database>, p: Param) =>
  qc
    .updateTable('visitors')
    .set({
      last_seen_at: p('lastSeenAt'),
      visit_count: sql<number>`visit_count + 1`,
      profile: p('profile'),
      // NULL (a visit without its own token) keeps the last one.
      last_token_at: sql<number | null>`coalesce(${p('tokenAt')}, last_token_at)`,
    })
    .where('visitor_id', '=', p<string>('visitorId'))
    .where('workspace_id', '=', p<string>('workspaceId'));

/** Writes the keys of `freshKeys` with last_seen_at = now (an empty array writes none). */
const upsertKeys = (qc: QueryCreator<Database>, p: Param, engine: Engine) =>
  qc
    .insertInto('visitor_keys')
    .columns(['workspace_id', 'key', 'visitor_id', 'last_seen_at'])
    // The casts type the parameters for PostgreSQL; `where true` keeps SQLite's parser from
    // reading ON CONFLICT as a join constraint.
    .expression(
      sql`select cast(${p('workspaceId')} as text), value, cast(${p('visitorId')} as text), cast(${p('now')} as bigint)
        from (${keyList(engine, p, 'freshKeys')}) as fresh where true`,
    )
    .onConflict((oc) => oc.columns(['workspace_id', 'key', 'visitor_id']).doUpdateSet({ last_seen_at: (eb) => eb.ref('excluded.last_seen_at') }));

/** Deletes the visitor's keys not among `keys` and not seen since `staleBefore`, when `dropStale` is 1. */
const deleteStaleKeys = (qc: QueryCreator<Database>, p: Param, engine: Engine) =>
  qc
    .deleteFrom('visitor_keys')
    .where('visitor_id', '=', p<string>('visitorId'))
    .where('workspace_id', '=', p<string>('workspaceId'))
    .where('last_seen_at', '<', p<number>('staleBefore'))
    .where(sql<boolean>`key not in (${keyList(engine, p, 'keys')})`)
    .where(sql<boolean>`${p('dropStale')} = 1`);

// A relink (identification/relink.ts): the absorbed visitor's row and keys go, the link is
// recorded (a concurrent visit of the same storage may have recorded it already), and links to
// the absorbed ID move to the surviving one, so every link is one level deep.
const deleteAbsorbedKeys = (qc: QueryCreator<Database>, p: Param) =>
  qc.deleteFrom('visitor_keys').where('visitor_id', '=', p<string>('absorbedId')).where('workspace_id', '=', p<string>('workspaceId'));
const deleteAbsorbedVisitor = (qc: QueryCreator<Database>, p: Param) =>
  qc.deleteFrom('visitors').where('visitor_id', '=', p<string>('absorbedId')).where('workspace_id', '=', p<string>('workspaceId'));
const insertLink = (qc: QueryCreator<Database>, p: Param) =>
  qc
    .insertInto('visitor_links')
    .values({ workspace_id: p('workspaceId'), absorbed_id: p('absorbedId'), surviving_id: p('visitorId'), linked_at: p('now') })
    .onConflict((oc) => oc.columns(['workspace_id', 'absorbed_id']).doNothing());
const repointLinks = (qc: QueryCreator<Database>, p: Param) =>
  qc
    .updateTable('visitor_links')
    .set({ surviving_id: p<string>('visitorId') })
    .where('workspace_id', '=', p<string>('workspaceId'))
    .where('surviving_id', '=', p<string>('absorbedId'));
const RELINK_WRITES: Write[] = [deleteAbsorbedKeys, deleteAbsorbedVisitor, insertLink, repointLinks];

// SQLite: each statement on its own, in the shared transaction of group-commit.ts.
const onSqlite = (write: Write) => prepareQuery((db, p) => write(db, p, 'sqlite'));
const insertVisitorQuery = onSqlite(insertVisitorRow);
const updateVisitorQuery = onSqlite(updateVisitorRow);
const upsertKeysQuery = onSqlite(upsertKeys);
const deleteStaleKeysQuery = onSqlite(deleteStaleKeys);
const relinkQueries = RELINK_WRITES.map(onSqlite);

/**
 * PostgreSQL: all writes of a visit in one statement of data-modifying CTEs, one round trip
 * instead of a transaction's four or five. The CTEs all see the same snapshot, so the writes
 * must touch disjoint rows and not depend on each other's effects.
 */
const onPostgres = (writes: Write[]) =>
  prepareQuery((db, p) => {
    // Kysely adds each CTE to the creator's schema type, which a loop cannot name, and its types do
    // not accept a Write (a Compilable) as a CTE body; no CTE is read back (the statement selects 1).
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the schema type grows per CTE (above)
    let creator: QueryCreator<any> = db;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- untyped CTE chain (above)
    writes.forEach((write, i) => (creator = creator.with(`write${i}`, (qc) => write(qc, p, 'postgres') as any)));
    return creator.selectNoFrom(sql<number>`1`.as('done'));
  });

/**
 * SQLite: runs `work` in one transaction shared with the writes of concurrent requests
 * (group-commit.ts), or in the caller's transaction; committed on return.
 */
async function writeOnSqlite(store: Store, work: (trx: Store) => Promise<unknown>): Promise<void> {
  await (internalsOf(store).db.isTransaction ? work(store) : commitTogether(store, work));
}

/**
 * The writes of one identification, planned but not run: the visitor's row and blocking keys.
 * `writeVisitor` runs them alone; `insertEvent` (events.ts) runs them with the visit's event,
 * so that a visit's writes and its event commit or roll back together.
 */
export interface VisitorWrite {
  kind: 'insert' | 'visit' | 'relink';
  /** The named values of the statements. */
  values: Record<string, unknown>;
  /** SQLite: the statements, in the caller's transaction. */
  onSqlite(trx: Store): Promise<void>;
}

/** The statements of each kind of visitor write, as CTEs of one PostgreSQL statement (events.ts adds the event's). */
export const POSTGRES_VISITOR_WRITES: Record<VisitorWrite['kind'], Write[]> = {
  insert: [insertVisitorRow, upsertKeys],
  visit: [updateVisitorRow, upsertKeys, deleteStaleKeys],
  relink: [updateVisitorRow, upsertKeys, deleteStaleKeys, ...RELINK_WRITES],
};
export { onPostgres as preparePostgresWrites, type Write as VisitorStatement };

const visitorWritesOnPostgres = {
  insert: onPostgres(POSTGRES_VISITOR_WRITES.insert),
  visit: onPostgres(POSTGRES_VISITOR_WRITES.visit),
  relink: onPostgres(POSTGRES_VISITOR_WRITES.relink),
};

/** Runs a planned visitor write on its own. */
export async function writeVisitor(store: Store, write: VisitorWrite): Promise<void> {
  if (store.engine === 'postgres') {
    await visitorWritesOnPostgres[write.kind](store, write.values);
    return;
  }
  await writeOnSqlite(store, (trx) => write.onSqlite(trx));
}

/** Plans the creation of a visitor with its `profile` (any JSON object) and blocking `keys`. */
export function planInsertVisitor(v: { workspaceId: string; visitorId: string; now: number; profile: object; keys: string[] }): VisitorWrite {
  const stored = storedProfile(v.profile, v.keys, v.now);
  const values = { workspaceId: v.workspaceId, visitorId: v.visitorId, now: v.now, profile: JSON.stringify(stored), freshKeys: JSON.stringify(v.keys) };
  return {
    kind: 'insert',
    values,
    async onSqlite(trx) {
      await insertVisitorQuery(trx, values);
      if (v.keys.length > 0) await upsertKeysQuery(trx, values);
    },
  };
}

/** Creates a visitor with its `profile` (any JSON object) and blocking `keys`. */
export async function insertVisitor(
  store: Store,
  v: { workspaceId: string; visitorId: string; now: number; profile: object; keys: string[] },
): Promise<void> {
  await writeVisitor(store, planInsertVisitor(v));
}

/** A visit's lookup keys are not the set the visitor's last visit wrote (`VisitorRecord.keys`). */
export function keysChanged(previous: readonly string[], keys: readonly string[]): boolean {
  const written = new Set(previous);
  return keys.length !== written.size || keys.some((k) => !written.has(k));
}

/** Plans the record of a visit of a stored visitor: its new `profile`, its blocking `keys`, whether it came with its own token. */
export function planRecordVisit(v: {
  workspaceId: string;
  visitor: VisitorRecord;
  now: number;
  profile: object;
  keys: string[];
  withToken: boolean;
}): VisitorWrite {
  const previous = new Set(v.visitor.keys);
  const changed = keysChanged(v.visitor.keys, v.keys);
  // Keys are written at visits, none long before the visitor's first one (concurrent requests
  // differ by milliseconds): a visitor younger than STALE_KEY_MS, less a day of margin, has no
  // stale key to look for.
  const dropStale = changed && v.visitor.firstSeenAt <= v.now - STALE_KEY_MS + KEY_REFRESH_MS;
  // Keys the last visit did not have are written now. The others' recency (for candidate
  // ordering) is refreshed at most once per KEY_REFRESH_MS, so most visits write one row, and
  // a visit that changed one signal writes that signal's keys, not all eight.
  const refreshAll = v.now - v.visitor.keysRefreshedAt >= KEY_REFRESH_MS;
  const freshKeys = refreshAll ? v.keys : v.keys.filter((k) => !previous.has(k));
  const stored = storedProfile(v.profile, v.keys, refreshAll ? v.now : v.visitor.keysRefreshedAt);
  const values = {
    workspaceId: v.workspaceId,
    visitorId: v.visitor.visitorId,
    now: v.now,
    // A visit arriving out of order never moves last_seen_at back.
    lastSeenAt: Math.max(v.now, v.visitor.lastSeenAt),
    tokenAt: v.withToken ? v.now : null,
    profile: JSON.stringify(stored),
    freshKeys: JSON.stringify(freshKeys),
    // Only when the keys changed can one be stale: the visit's own keys are excluded.
    keys: JSON.stringify(v.keys),
    staleBefore: v.now - STALE_KEY_MS,
    dropStale: dropStale ? 1 : 0,
  };
  return {
    kind: 'visit',
    values,
    async onSqlite(trx) {
      await updateVisitorQuery(trx, values);
      if (freshKeys.length > 0) await upsertKeysQuery(trx, values);
      if (dropStale) await deleteStaleKeysQuery(trx, values);
    },
  };
}

/**
 * Plans a relink (identification/relink.ts): the visit is recorded on the earlier `visitor`
 * (as a visit with its token: the storage holds its token from now on), the `absorbedId`
 * visitor's row and keys are removed and the link absorbed -> surviving is recorded. The
 * absorbed ID's events stay as they were answered; the Server API shows them under the
 * surviving ID (visitor-links.ts).
 */
export function planRelinkVisit(v: { workspaceId: string; visitor: VisitorRecord; absorbedId: string; now: number; profile: object; keys: string[] }): VisitorWrite {
  const visit = planRecordVisit({ ...v, withToken: true });
  const values = { ...visit.values, absorbedId: v.absorbedId };
  return {
    kind: 'relink',
    values,
    async onSqlite(trx) {
      await visit.onSqlite(trx);
      for (const query of relinkQueries) await query(trx, values);
    },
  };
}

/** Records a visit of a stored visitor: its new `profile`, its blocking `keys`, whether it came with its own token. */
export async function recordVisit(
  store: Store,
  v: { workspaceId: string; visitor: VisitorRecord; now: number; profile: object; keys: string[]; withToken: boolean },
): Promise<void> {
  await writeVisitor(store, planRecordVisit(v));
}

/**
 * Forgets a visitor: its row, its keys and its relink records (as the surviving ID or as an
 * absorbed one: a token of an ID relinked to it no longer resolves either). True when it existed.
 */
export async function deleteVisitor(store: Store, workspaceId: string, visitorId: string): Promise<boolean> {
  return store.transaction(async (trx) => {
    const { db } = internalsOf(trx);
    await db.deleteFrom('visitor_keys').where('visitor_id', '=', visitorId).where('workspace_id', '=', workspaceId).execute();
    await db
      .deleteFrom('visitor_links')
      .where('workspace_id', '=', workspaceId)
      .where((eb) => eb.or([eb('absorbed_id', '=', visitorId), eb('surviving_id', '=', visitorId)]))
      .execute();
    const result = await db.deleteFrom('visitors').where('visitor_id', '=', visitorId).where('workspace_id', '=', workspaceId).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  });
}

/**
 * True when the workspace still knows this visitor's identity or has events of it. The identity
 * first: one row by key, where the events have no time bound (on PostgreSQL a statement
 * without one plans every partition of `events`).
 */
export async function visitorExists(store: Store, workspaceId: string, visitorId: string): Promise<boolean> {
  const { db } = internalsOf(store);
  const identity = await db
    .selectFrom('visitors')
    .select('visitor_id')
    .where('workspace_id', '=', workspaceId)
    .where('visitor_id', '=', visitorId)
    .executeTakeFirst();
  if (identity !== undefined) return true;
  const event = await db
    .selectFrom('events')
    .select('event_id')
    .where('workspace_id', '=', workspaceId)
    .where('visitor_id', '=', visitorId)
    .limit(1)
    .executeTakeFirst();
  return event !== undefined;
}

/** What the identification's read may also read on PostgreSQL: the recent activity of the new event (recent-activity.ts). */
export type ActivityAhead = Omit<RecentActivityQuery, 'workspaceId' | 'visitorId'>;

interface TokenReadRow {
  token_visitor: VisitorRow | null;
  network: ActivityRow[];
  token_activity: ActivityRow[];
}

interface KeysReadRow {
  crowding: KeyCrowding | null;
  candidates: VisitorRow[];
  network_visitors: string[];
  network: ActivityRow[];
}

/**
 * PostgreSQL: the read of an identification is one statement (one round trip), each part a
 * JSON column, with the recent-activity rows of the new event read ahead (its network's, and
 * with a token, the token visitor's own: the visitor the visit links to whenever it exists).
 * Two statements, one per kind of visit, rather than one for both: PostgreSQL plans every
 * part of a statement even when it does not run it, and planning the partitioned scans is most
 * of the cost of these reads.
 *
 * With a token: the token's visitor.
 */
const tokenReadOnPostgres = prepareQuery<TokenReadRow>((db, p, key) => {
  const tokenVisitor = db
    .selectFrom('visitors')
    .select(VISITOR_COLUMNS)
    .where('visitor_id', '=', p('tokenVisitorId'))
    .where('workspace_id', '=', p('workspaceId'));
  return sql<TokenReadRow>`select
    (select row_to_json(v) from (${tokenVisitor}) as v) as token_visitor,
    (select coalesce(json_agg(r), '[]') from (${activityRowsSql(p, 'network', key)}) as r) as network,
    (select coalesce(json_agg(r), '[]') from (${activityRowsSql(p, 'visitor', key)}) as r) as token_activity`;
});

/**
 * Without a token (or when its visitor is gone): the visitors of the visit's blocking keys, the
 * CANDIDATES_PER_KEY most recently seen of each key (NETWORK_VISITORS_LISTED of a network's
 * `p:` key), and the crowding of each key kind, each key's visitors counted up to
 * KEY_COUNT_LIMIT (NETWORK_COUNT_LIMIT) apart, as findCandidates reads them on SQLite: only the
 * visitors used are read as rows, the counts come from the index alone where the visibility map
 * allows. Reading every counted visitor's key row and ranking them in SQL instead (until
 * 2026-12-02: about 350 rows sorted for a visit's 8 keys on the benchmark's seeded database)
 * took 1.6 ms of PostgreSQL's execution against 1.2 ms (docs/scaling-postgresql.md). The keys
 * come as one JSON array, so the text is the same for every visit and compiles once.
 */
const keysReadOnPostgres = prepareQuery<KeysReadRow>((_db, p, key) => {
  const columns = sql.join(VISITOR_COLUMNS.map((c) => sql.ref(c)));
  const network = (column: string) => sql`${sql.ref(column)} like 'p:%'`;
  return sql<KeysReadRow>`with visit_keys as materialized (
      select key from json_array_elements_text(cast(${p('keys')} as json)) as k(key)),
    newest as materialized (
      select k.key, vk.visitor_id, vk.last_seen_at from visit_keys as k
      cross join lateral (
        select visitor_id, last_seen_at from visitor_keys
        where workspace_id = ${p('workspaceId')} and key = k.key
        order by last_seen_at desc
        limit case when ${network('k.key')} then ${sql.lit(NETWORK_VISITORS_LISTED)} else ${sql.lit(CANDIDATES_PER_KEY)} end
      ) as vk)
    select
      (select json_object_agg(kind, n) from (
        select split_part(k.key, ':', 1) as kind, sum(c.n) as n from visit_keys as k
        cross join lateral (
          select count(*) as n from (
            select 1 from visitor_keys where workspace_id = ${p('workspaceId')} and key = k.key
            limit case when ${network('k.key')} then ${sql.lit(NETWORK_COUNT_LIMIT)} else ${sql.lit(KEY_COUNT_LIMIT)} end) as counted
        ) as c
        where c.n > 0 group by 1) as c) as crowding,
      (select coalesce(json_agg(v), '[]') from (
        select ${columns} from visitors
        where workspace_id = ${p('workspaceId')} and visitor_id in (select visitor_id from newest where not ${network('key')})) as v) as candidates,
      (select coalesce(json_agg(visitor_id), '[]') from (
        select visitor_id from newest where ${network('key')} order by last_seen_at desc limit ${sql.lit(NETWORK_VISITORS_LISTED)}) as n) as network_visitors,
      (select coalesce(json_agg(r), '[]') from (${activityRowsSql(p, 'network', key)}) as r) as network`;
});

/**
 * The visitor a token names: the visitor itself, or, when its ID was relinked (its row is
 * gone), the visitor it was relinked to. Null when neither exists (a deleted visitor).
 */
async function loadTokenVisitor(store: Store, workspaceId: string, visitorId: string): Promise<VisitorRecord | null> {
  const visitor = await loadVisitor(store, workspaceId, visitorId);
  if (visitor) return visitor;
  const surviving = await findSurvivingVisitorId(store, workspaceId, visitorId);
  return surviving === undefined ? null : loadVisitor(store, workspaceId, surviving);
}

/** keysReadOnPostgres's one row. */
async function readKeysOnPostgres(store: Store, values: object, variant: Variant): Promise<KeysReadRow> {
  const [row] = await keysReadOnPostgres(store, values, variant);
  if (!row) throw new Error('the identification read returned no row');
  return row;
}

/** The candidates part of keysReadOnPostgres's row. */
function candidateRead(row: KeysReadRow): CandidateRead {
  return { candidates: row.candidates.map((candidate) => toRecord(candidate)), crowding: row.crowding ?? {}, networkVisitors: row.network_visitors };
}

/** A token visit that needs no candidates. */
const NO_CANDIDATES: CandidateRead = { candidates: [], crowding: {}, networkVisitors: [] };

/**
 * Everything one identification decides on, in one step: the visitor named by a verified
 * token when it still exists, or the visitor it was relinked to (a token visit needs nothing
 * else, unless `candidatesForToken` says its visitor may be relinked: then the candidates too),
 * otherwise the candidates of the visit's blocking keys and how crowded each key kind is.
 *
 * With `activity` (ingestion), PostgreSQL also reads ahead the recent activity of the new
 * event (`prefetched`, for readRecentActivity), all in one statement (more when a token names
 * a visitor that no longer exists or may be relinked); SQLite reads as before (its statements
 * cost no round trip) and returns no `prefetched`.
 */
export async function loadIdentificationState(
  store: Store,
  q: {
    workspaceId: string;
    tokenVisitorId?: string;
    keys: readonly string[];
    activity?: ActivityAhead;
    candidatesForToken?: (visitor: VisitorRecord) => boolean;
  },
): Promise<CandidateRead & { tokenVisitor: VisitorRecord | null; prefetched?: PrefetchedActivity }> {
  if (store.engine === 'postgres') {
    // Without activity to read, its values are nulls: each of its scans is a constant false.
    // A fresh object each call, which the reads below add their own values to: Object.assign,
    // and the spread last, since a spread followed by new properties costs about 2 µs on Node 20
    // (storedProfile). ActivityAhead has neither workspaceId nor visitorId.
    const activity = (visitorId: string | null) =>
      recentActivityValues({ workspaceId: q.workspaceId, visitorId: q.activity ? visitorId : null, replaySince: 0, now: 0, ...q.activity });
    const variant = await activityVariant(store, activity(null));
    if (q.tokenVisitorId !== undefined) {
      const [row] = await tokenReadOnPostgres(store, Object.assign(activity(q.tokenVisitorId), { tokenVisitorId: q.tokenVisitorId }), variant);
      if (row?.token_visitor) {
        const tokenVisitor = toRecord(row.token_visitor, true);
        const prefetched = q.activity && { network: row.network, visitor: { visitorId: tokenVisitor.visitorId, rows: row.token_activity } };
        if (!q.candidatesForToken?.(tokenVisitor)) return { tokenVisitor, ...NO_CANDIDATES, ...(prefetched && { prefetched }) };
        // A young ID that may be relinked: the candidates too, in the read of a visit without
        // a token, its network's activity left out (read above: no IP or linked_id to scan).
        // The prefetched network activity stays valid; the visitor's is read again if the
        // visit moves to another ID.
        const candidates = q.keys.length === 0
          ? NO_CANDIDATES
          : candidateRead(await readKeysOnPostgres(store, Object.assign(activity(null), { ip: null, linkedId: null, keys: JSON.stringify(q.keys) }), variant));
        return { tokenVisitor, ...candidates, ...(q.activity && { prefetched: { network: row.network } }) };
      }
      // Gone: relinked to another visitor (its token follows it), or deleted.
      const relinkedTo = await loadTokenVisitor(store, q.workspaceId, q.tokenVisitorId);
      if (relinkedTo) return { tokenVisitor: relinkedTo, ...NO_CANDIDATES };
    }
    const row = await readKeysOnPostgres(store, Object.assign(activity(null), { keys: JSON.stringify(q.keys) }), variant);
    return { tokenVisitor: null, ...candidateRead(row), ...(q.activity && { prefetched: { network: row.network } }) };
  }
  const tokenVisitor = q.tokenVisitorId === undefined ? null : await loadTokenVisitor(store, q.workspaceId, q.tokenVisitorId);
  if (tokenVisitor && !q.candidatesForToken?.(tokenVisitor)) return { tokenVisitor, ...NO_CANDIDATES };
  return { tokenVisitor, ...(await findCandidates(store, q.workspaceId, q.keys)) };
}
