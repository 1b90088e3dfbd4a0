/**
 * Tables of the identification module (migration 002-identification). Times are bigint ms,
 * JSON is text, the same on SQLite and PostgreSQL.
 */

/** One row per visitor (per browser): when it was seen and what it looked like lately. */
export interface VisitorsTable {
  visitor_id: string;
  workspace_id: string;
  first_seen_at: number;
  last_seen_at: number;
  visit_count: number;
  /** Last visit that came with this visitor's own valid token: proof that the browser is alive. */
  last_token_at: number | null;
  /** `VisitorProfile` JSON (profile.ts): recent values of every component, networks, languages. */
  profile: string;
}

/**
 * Blocking keys: several hashes of stable signal subsets per visitor, so that a visit whose
 * token is gone finds its candidates through an index even when one component drifted.
 */
export interface VisitorKeysTable {
  workspace_id: string;
  key: string;
  visitor_id: string;
  last_seen_at: number;
}

export interface IdentificationTables {
  visitors: VisitorsTable;
  visitor_keys: VisitorKeysTable;
}
