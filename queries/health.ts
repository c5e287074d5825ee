import type { Queryable } from '../adapters/db'

/** Whether the database answers, and how many jobs wait for the broker (a backlog: it is, or was, unreachable). */
export const databaseHealth = async (db: Queryable) => {
  await db.query('SELECT 1')
  const outbox = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM kb_outbox WHERE published_at IS NULL')
  return { unpublishedJobs: outbox.rows[0].n }
}
