import { receiptRoutes, searchOperatorRoutes, searchRoutes, searchTools } from '../../api/search'
import { searchStreams } from '../../commands/search'
import { chunksProjector, pageIndexProjector, receiptsProjector, servedProjector } from '../../projections/search'
import type { Capability } from '../capability'

/** Searches over entries and pages: their indexes, the search tools, what searches served, answer receipts. */
export const search: Capability = {
  name: 'search',
  uses: ['knowledge', 'pages', 'accounts'],
  streams: searchStreams,
  projectors: (deps) => [chunksProjector(deps), receiptsProjector, servedProjector, pageIndexProjector(deps)],
  routes: [...searchOperatorRoutes, ...receiptRoutes, ...searchRoutes],
  tools: searchTools,
  mounts: [],
}
