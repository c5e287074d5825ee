import { type Database, inTransaction } from './db'

/**
 * A sliding-window counter kept in the database, so the limit holds across every service process
 * sharing it. Not a read model: it is operational state that no event describes.
 */
export const rateLimitSchema = `
CREATE TABLE IF NOT EXISTS rate_limit_hits (
  scope text NOT NULL,
  at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX IF NOT EXISTS rate_limit_hits_scope ON rate_limit_hits (scope, at);
`

export type RateVerdict = { allowed: true; release(): Promise<void> } | { allowed: false; retryAfterSeconds: number }

/**
 * Counts one hit of `scope` unless `limit` hits fell in the last `windowSeconds`. A hit counted
 * for a request that is then refused is given back with `release`.
 */
export const takeHit = (db: Database, scope: string, limit: number, windowSeconds: number): Promise<RateVerdict> =>
  inTransaction(db.pool, async (tx) => {
    // One counter at a time per scope: concurrent requests (from any process) queue here.
    await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`rate:${scope}`])
    await tx.query(
      `DELETE FROM rate_limit_hits WHERE scope = $1 AND at < clock_timestamp() - make_interval(secs => $2)`,
      [scope, windowSeconds],
    )
    const { rows } = await tx.query<{ n: number; oldest: number | null }>(
      `SELECT count(*)::int AS n,
        extract(epoch FROM clock_timestamp() - min(at))::float8 AS oldest FROM rate_limit_hits WHERE scope = $1`,
      [scope],
    )
    if (rows[0].n >= limit)
      return {
        allowed: false as const,
        retryAfterSeconds: Math.max(1, Math.ceil(windowSeconds - (rows[0].oldest ?? 0))),
      }
    const hit = await tx.query<{ at: Date }>('INSERT INTO rate_limit_hits (scope) VALUES ($1) RETURNING at', [scope])
    const at = hit.rows[0].at
    const release = async () => {
      await db.pool.query(
        'DELETE FROM rate_limit_hits WHERE ctid IN (SELECT ctid FROM rate_limit_hits WHERE scope = $1 AND at = $2 ' +
          'LIMIT 1)',
        [scope, at],
      )
    }
    return { allowed: true as const, release }
  })

/** Forgets hits older than a day: a scope hit once (an address never seen again) leaves no row behind. */
export const sweepRateLimits = (db: Pick<Database['pool'], 'query'>) =>
  db.query("DELETE FROM rate_limit_hits WHERE at < clock_timestamp() - interval '1 day'")
