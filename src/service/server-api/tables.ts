/**
 * Tables of the Server API module (migration 003-server-api). Times are bigint ms, the same
 * on SQLite and PostgreSQL.
 */

/**
 * One row per accepted visitor-deletion request: the background job executes rows still
 * `scheduled`; the rows of the last day also count against the workspace's deletion limits.
 */
export interface VisitorDeletionsTable {
  id: string;
  workspace_id: string;
  visitor_id: string;
  requested_at: number;
  status: 'scheduled' | 'done';
  completed_at: number | null;
  /** Events removed when executed (for operators; null while scheduled). */
  deleted_events: number | null;
}

export interface ServerApiTables {
  visitor_deletions: VisitorDeletionsTable;
}
