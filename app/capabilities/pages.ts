import { collectionRoutes, mountPacks, packsOpenApi, pageRoutes, pageTools, pageUndoTools } from '../../api/pages'
import { pageVersionRoutes, proposalRoutes, proposalTools } from '../../api/pages'
import { packSearch } from '../../api/search'
import { pageStreams } from '../../commands/pages'
import { pagesProjector } from '../../projections/pages'
import type { Capability } from '../capability'

/** Pages (the wiki), their versions, proposals, collections and packs. */
export const pages: Capability = {
  name: 'pages',
  uses: ['knowledge'],
  streams: pageStreams,
  projectors: () => [pagesProjector],
  routes: [...pageRoutes, ...pageVersionRoutes, ...collectionRoutes, ...proposalRoutes],
  tools: [...pageTools, ...proposalTools, ...pageUndoTools],
  // A pack's page_search is search's: the composition hands it to the packs, which cannot import search.
  mounts: [{ mount: (router, deps) => mountPacks(router, deps, packSearch), openApi: packsOpenApi }],
}
