import type { Queryable } from '../../adapters/db'
import { type KbConfig, applyChanges, defaultKbConfig } from '../../domain/knowledge/kbConfig'

/** A workspace's configuration as this projection holds it (the defaults until first changed). */
export const readKbConfig = async (db: Queryable, workspaceId: string): Promise<KbConfig> =>
  (await readConfigRow(db, workspaceId)).config

/**
 * A workspace's configuration and the search settings it has set (a PATCH, even to the value they
 * had), in one read.
 */
export const readConfigRow = async (db: Queryable, workspaceId: string) => {
  const { rows } = await db.query<{ config: KbConfig; search_set: string[] }>(
    'SELECT config, search_set FROM kb_configs WHERE workspace_id = $1',
    [workspaceId],
  )
  // A row written before a setting existed takes that setting's default.
  const config = rows[0] ? applyChanges(defaultKbConfig(), rows[0].config) : defaultKbConfig()
  return { config, set: rows[0]?.search_set ?? [] }
}
