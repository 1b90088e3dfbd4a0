/** The stored JSON of one event of a workspace, as text (served without re-serialising). */
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';

export async function getEventPayload(
  db: Kysely<Database>,
  workspaceId: string,
  eventId: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('events')
    .select('payload')
    .where('event_id', '=', eventId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirst();
  return row?.payload;
}
