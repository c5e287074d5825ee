import type { Queryable } from '../../adapters/db'
import type { EventStore } from '../../adapters/eventstore/port'
import { EntryEvent } from '../../domain/knowledge'
import { entries } from './aggregates'

/**
 * An entry's title and content at one of its versions (as results show them: 1 for its first content), from its
 * stream in the log; undefined where the workspace holds no such entry or version, or a deletion cut its content.
 */
export const entryTextAt = async (
  store: EventStore,
  db: Queryable,
  workspaceId: string,
  entryId: string,
  version: number,
) => {
  const { rows } = await db.query<{ first: string | null }>(
    'SELECT first_content_revision AS first FROM kb_entries WHERE id = $1 AND workspace_id = $2',
    [entryId, workspaceId],
  )
  if (!rows[0] || rows[0].first === null) return undefined
  const revision = version - 1 + Number(rows[0].first)
  if (revision < Number(rows[0].first)) return undefined
  const events = await store.readStream(entries.stream(entryId), { fromRevision: 0, maxCount: revision + 1 })
  if (events.at(-1)?.revision !== revision) return undefined
  let title = ''
  let content = ''
  for (const recorded of events) {
    const decoded = EntryEvent.decode({ type: recorded.type, data: recorded.data })
    if (decoded._tag === 'Left') continue
    const e = decoded.right
    if (e.type === 'EntryCreated') ({ title, content } = e.data)
    if (e.type === 'EntryContentProcessed') content = e.data.content
    if (e.type === 'EntryUpdated') {
      title = e.data.changes.title ?? title
      content = e.data.changes.content ?? content
    }
  }
  return { title, content }
}
