import type { Queryable } from '../adapters/db'
import { type KbConfig, defaultKbConfig } from '../domain/kbConfig'

/** A workspace's configuration as this projection holds it (the defaults until first changed). */
export const readKbConfig = async (db: Queryable, workspaceId: string): Promise<KbConfig> =>
  (await readConfigRow(db, workspaceId)).config

/** The search settings a workspace has set (a PATCH, even to the value they had). */
export const readSearchSettings = async (db: Queryable, workspaceId: string) => {
  const { config, set } = await readConfigRow(db, workspaceId)
  const chosen = <K extends keyof KbConfig['search']>(key: K) => (set.includes(key) ? config.search[key] : undefined)
  return {
    mode: chosen('defaultMode'),
    limit: chosen('defaultLimit'),
    minScore: chosen('minScore'),
    fusion: config.search.fusion,
  }
}

const readConfigRow = async (db: Queryable, workspaceId: string) => {
  const { rows } = await db.query<{ config: KbConfig; search_set: string[] }>(
    'SELECT config, search_set FROM kb_configs WHERE workspace_id = $1',
    [workspaceId],
  )
  return { config: rows[0]?.config ?? defaultKbConfig(), set: rows[0]?.search_set ?? [] }
}
