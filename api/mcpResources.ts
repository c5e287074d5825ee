import { entryTextAt } from '../commands/knowledge'
import { readPage, readVersion } from '../queries/pages'
import type { Deps } from './deps'
import type { Served } from './tools/tool'

// An entry's or a page's version as an MCP resource: tool results link the versions they served, and
// resources/read gives the text of that version, as the log holds it.

const FOLDER = { entry: 'entries', page: 'pages' } as const

/** The URI of a version: kb://entries/{id}@v{n} or kb://pages/{id}@v{n}. */
const resourceUri = (s: Pick<Served, 'kind' | 'id' | 'version'>) => `kb://${FOLDER[s.kind]}/${s.id}@v${s.version}`

/** A served version as a tool result's resource_link. */
export const resourceLink = (s: Served) => ({
  type: 'resource_link' as const,
  uri: resourceUri(s),
  name: s.title,
  mimeType: 'text/markdown',
})

export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: 'kb://entries/{id}@v{version}',
    name: 'knowledge entry',
    description: "A version of a knowledge entry, as kb_search's results link it",
    mimeType: 'text/markdown',
  },
  {
    uriTemplate: 'kb://pages/{id}@v{version}',
    name: 'brain page',
    description: "A version of a brain page, as page_search's and page_read's results link it",
    mimeType: 'text/markdown',
  },
]

/** The text of the version a URI names, in the workspace; undefined where there is none (or not here). */
export const readResource = async (deps: Pick<Deps, 'db' | 'store'>, workspaceId: string, uri: string) => {
  const named = /^kb:\/\/(entries|pages)\/([^/@]{1,200})@v(\d{1,9})$/.exec(uri)
  if (!named) return undefined
  const [, folder, id, v] = named
  const version = Number(v)
  if (folder === 'entries') {
    const found = await entryTextAt(deps.store, deps.db.pool, workspaceId, id, version)
    return found && { uri, name: found.title, mimeType: 'text/markdown', text: found.content }
  }
  const [page, row] = await Promise.all([
    readPage(deps.db.pool, workspaceId, id),
    readVersion(deps.db.pool, workspaceId, id, version),
  ])
  return page && row && { uri, name: page.title, mimeType: 'text/markdown', text: row.content }
}
