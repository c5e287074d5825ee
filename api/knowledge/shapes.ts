import type { Database } from '../../adapters/db'
import type { KnowledgeDeps } from '../../commands/knowledge/knowledge'
import type { NewEntryDeps } from '../../commands/knowledge/createEntry'
import { getEntry } from '../../queries/knowledge/knowledge'
import type { Identity } from '../auth'
import * as c from '../codecs'
import { type Uses, readBack } from '../route'
import * as t from 'io-ts'

// What the knowledge routes share: the shapes of their input, the services they hand the
// commands, and the entry they answer after a write.

export const Metadata = c.exact({
  category: c.string(0, 200),
  tags: c.arrayOf(c.string(1, 100), 50),
  author: c.string(0, 200),
})

export const IdParam = t.type({ id: c.id })

export const actorId = (identity: Identity) =>
  identity.kind === 'user' ? identity.userId : identity.kind === 'apiKey' ? identity.name : 'system'

/** What the knowledge commands are given, from the services a handler uses. */
export const knowledgeDeps = (deps: Uses<'store' | 'db' | 'embedder' | 'parsers'>): KnowledgeDeps => ({
  store: deps.store,
  db: deps.db.pool,
  embedder: deps.embedder,
  parsers: deps.parsers,
})

/** What creating an entry is given, from the services a handler uses. */
export const newEntryDeps = (
  deps: Uses<'store' | 'db' | 'embedder' | 'parsers' | 'blobs' | 'config'>,
): NewEntryDeps => ({ ...knowledgeDeps(deps), blobs: deps.blobs, allowPrivateUrls: deps.config.allowPrivateUrls })

/**
 * An entry as the read models hold it after a write. `completed` promises a searchable entry: read
 * before every projection (the search index among them) reached the write, it says `processing`.
 * A create passes the configuration's `freshnessDays` it was admitted by (its one read of it).
 */
export const entryReply = (
  db: Database,
  workspaceId: string,
  id: string,
  position: number,
  status = 200,
  freshnessDays?: number,
) =>
  readBack(
    position,
    async (caughtUp) => {
      const entry = await getEntry(db.pool, workspaceId, id, undefined, freshnessDays)
      if (caughtUp) return entry ?? { id }
      if (!entry) return { id, processingStatus: 'processing' }
      return entry.processingStatus === 'completed' ? { ...entry, processingStatus: 'processing' } : entry
    },
    status,
  )

export const MULTIPART_JSON_FIELDS = [
  'metadata',
  'chunkingOptions',
  'externalReferenceIds',
  'crawlOptions',
  'customMetadata',
]
