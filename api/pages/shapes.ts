import * as t from 'io-ts'
import { loadKbConfig } from '../../commands/knowledge'
import type { Author } from '../../domain/pages/page'
import { fail } from '../../domain/shared'
import { pageView, readPage } from '../../queries/pages/pages'
import { type Identity, memberOf } from '../auth'
import * as c from '../codecs'
import { type Uses, readBack } from '../route'

// What the page routes share: their ids and version numbers, people as authors, the workspace's
// verification switch, and the page they answer after a write.

export const PAGE_TITLE_MAX = 500
export const PAGE_WRITE_MAX = 100_000
/** A page version number as a client names it. */
export const VersionNumber = c.integer(1, 2 ** 31 - 1)
export const IdParam = t.type({ id: c.id })
export const VersionFromString = c.intFromString(1, 2 ** 31 - 1)

/** A person as a page's author and as a verifier or approver. */
export const personOf = (identity: Identity) => {
  const m = memberOf(identity)
  return { userId: m.userId, name: m.name }
}
export const humanAuthor = (identity: Identity): Author => ({ kind: 'human', ...personOf(identity) })

export const verificationOn = async (deps: Uses<'store'>, workspaceId: string) =>
  (await loadKbConfig(deps.store, workspaceId)).verification.enabled
/** After a write: waits for the read models, then answers the page as it now is. */
export const pageReply = (
  deps: Uses<'db' | 'store'>,
  workspaceId: string,
  pageId: string,
  position: number,
  status = 200,
) =>
  readBack(
    position,
    async () => {
      const row = await readPage(deps.db.pool, workspaceId, pageId)
      return row ? pageView(deps.db.pool, row, await verificationOn(deps, workspaceId)) : { id: pageId }
    },
    status,
  )

export const livePage = async (deps: Uses<'db'>, workspaceId: string, id: string) =>
  readPage(deps.db.pool, workspaceId, id)
export const notFound = fail('NOT_FOUND', 'page not found')
