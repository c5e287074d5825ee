import { embeddings } from '../../domain/search/embeddings'
import { rebuildReplay } from '../../domain/search/replay'
import { pageSearch, search } from '../../domain/search/search'
import { aggregate } from '../handle'
import { streams } from '../streams'

// Search's aggregates, each decider bound to its streams' name (a search over entries or pages is
// recorded on a stream of its own, named alike).

export const searches = aggregate(search, streams.search)
export const pageSearches = aggregate(pageSearch, streams.search)
export const reembeds = aggregate(embeddings, streams.reembed)
export const rebuilds = aggregate(rebuildReplay, streams.rebuild)
