import type { Queryable } from '../../adapters/db'
import { type KbConfig, type KbConfigChanges, applyChanges, defaultKbConfig } from '../../domain/knowledge/kbConfig'

/**
 * A workspace's configuration: the defaults with the changes the workspace made (the read model
 * keeps the changes alone, so a default is the code's, never one copied into a row).
 */
export const readKbConfig = async (db: Queryable, workspaceId: string): Promise<KbConfig> => {
  const { rows } = await db.query<{ config: KbConfigChanges }>(
    'SELECT config FROM kb_configs WHERE workspace_id = $1',
    [workspaceId],
  )
  return applyChanges(defaultKbConfig(), rows[0]?.config ?? {})
}
