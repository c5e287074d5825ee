import type { Database } from '../../adapters/db'
import type { KnowledgeDeps } from '../../commands/knowledge/knowledge'
import type { NewEntry, NewEntryDeps } from '../../commands/knowledge/createEntry'
import { getEntry } from '../../queries/knowledge/knowledge'
import type { Identity } from '../auth'
import * as c from '../codecs'
import { type Uses, readBack } from '../route'
import * as E from 'fp-ts/Either'
import * as t from 'io-ts'

// What the knowledge routes share: the shapes of their input, the services they hand the
// commands, and the entry they answer after a write.

/** An entry's metadata: category, tags and author, and keys of the team's own, which searches filter on. */
export const Metadata = c.metadata(
  { category: c.string(0, 200), tags: c.arrayOf(c.string(1, 100), 50), author: c.string(0, 200) },
  {
    category: { type: 'string', maxLength: 200 },
    tags: { type: 'array', maxItems: 50, items: { type: 'string', minLength: 1, maxLength: 100 } },
    author: { type: 'string', maxLength: 200 },
  },
)

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

/**
 * What a create request asks for, with the defaults of what it leaves out: no metadata, no external
 * references, at root, enabled, the workspace's chunking.
 */
export const newEntry = (
  body: Omit<NewEntry, 'metadata' | 'externalReferenceIds' | 'folderId' | 'isEnabled' | 'chunkingOptions'> &
    Partial<Pick<NewEntry, 'metadata' | 'externalReferenceIds' | 'folderId' | 'isEnabled' | 'chunkingOptions'>>,
): NewEntry => ({
  ...body,
  metadata: body.metadata ?? {},
  externalReferenceIds: body.externalReferenceIds ?? {},
  folderId: body.folderId ?? null,
  isEnabled: body.isEnabled ?? true,
  chunkingOptions: body.chunkingOptions ?? {},
})

/** `externalRef.<key>=<value>` query parameters, any number of them: entries holding every one. */
export const externalRefsOf = (query: Record<string, unknown>): E.Either<string[], Record<string, string>> => {
  const refs: Record<string, string> = {}
  const problems: string[] = []
  for (const [key, value] of Object.entries(query)) {
    if (!key.startsWith('externalRef.')) continue
    const name = key.slice('externalRef.'.length)
    if (!name || name.length > 100 || typeof value !== 'string' || value.length > 500)
      problems.push(`${key}: must be given once, as a string of at most 500 characters`)
    else refs[name] = value
  }
  return problems.length ? E.left(problems) : E.right(refs)
}
