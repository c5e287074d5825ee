import type { Queryable } from './db'

/**
 * MCP sessions, kept in the database so that any API process answers any request of a session (a
 * load balancer need not stick a client to one process). A session is bound to its API key and
 * remembers the client name given at `initialize`, the author of its writes. Not a read model:
 * operational state no event describes.
 */
export const mcpSessionSchema = `
CREATE TABLE IF NOT EXISTS mcp_sessions (
  id text PRIMARY KEY,
  key_id text NOT NULL,
  client text NOT NULL,
  last_seen timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS mcp_sessions_seen ON mcp_sessions (last_seen);
`

/** Sessions idle for this long are gone. */
export const MCP_IDLE_MS = 60 * 60 * 1000
/** A session's last use is written at most this often (a request in the same minute writes nothing). */
const TOUCH_MS = 60_000

/** Live sessions a key may hold: opening one more ends its least recently used. */
export const MCP_SESSIONS_PER_KEY = 100

export const openMcpSession = async (db: Queryable, id: string, keyId: string, client: string) => {
  await db.query('INSERT INTO mcp_sessions (id, key_id, client) VALUES ($1, $2, $3)', [id, keyId, client])
  await db.query(
    `DELETE FROM mcp_sessions WHERE key_id = $1 AND id NOT IN
       (SELECT id FROM mcp_sessions WHERE key_id = $1 ORDER BY last_seen DESC, id LIMIT $2)`,
    [keyId, MCP_SESSIONS_PER_KEY],
  )
}

/** The client name of a live session of this key (undefined: no such session, another key's, or idle too long). */
export const mcpSessionClient = async (db: Queryable, id: string, keyId: string) => {
  const { rows } = await db.query<{ client: string; idle_ms: number }>(
    `SELECT client, extract(epoch FROM now() - last_seen) * 1000 AS idle_ms FROM mcp_sessions
     WHERE id = $1 AND key_id = $2`,
    [id, keyId],
  )
  const row = rows[0]
  if (!row || row.idle_ms > MCP_IDLE_MS) return undefined
  if (row.idle_ms > TOUCH_MS) await db.query('UPDATE mcp_sessions SET last_seen = now() WHERE id = $1', [id])
  return row.client
}

export const endMcpSession = async (db: Queryable, id: string, keyId: string) => {
  const { rowCount } = await db.query('DELETE FROM mcp_sessions WHERE id = $1 AND key_id = $2', [id, keyId])
  return (rowCount ?? 0) > 0
}

/** Forgets sessions idle longer than MCP_IDLE_MS. */
export const sweepMcpSessions = (db: Queryable) =>
  db.query(`DELETE FROM mcp_sessions WHERE last_seen < now() - make_interval(secs => $1)`, [MCP_IDLE_MS / 1000])
