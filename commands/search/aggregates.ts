import { embeddings } from '../../domain/search/embeddings'
import { rebuildReplay } from '../../domain/search/replay'
import { pageSearch, search } from '../../domain/search/search'
import { aggregate } from '../handle'
import { type StreamCategory, category } from '../streams'

// Search's aggregates, each decider bound to its streams' category (a search over entries or pages is
// recorded on a stream of its own, of one category).

const searchCategory = category('search')
export const searches = aggregate(search, searchCategory)
export const pageSearches = aggregate(pageSearch, searchCategory)
export const reembeds = aggregate(embeddings, category('reembed'))
/** A projection rebuild's replay of the logged queries, and its verdict on the cut-over. */
export const rebuilds = aggregate(rebuildReplay, category('rebuild'))

/** Search's categories, read by those who manage the workspace. */
export const searchStreams: StreamCategory[] = [searchCategory, reembeds, rebuilds]
