import { collection } from '../../domain/pages/collection'
import { page } from '../../domain/pages/page'
import { proposal } from '../../domain/pages/proposal'
import { aggregate } from '../handle'
import { streams } from '../streams'

// The pages' aggregates, each decider bound to its streams' name.

export const pages = aggregate(page, streams.page)
export const collections = aggregate(collection, streams.collection)
export const proposals = aggregate(proposal, streams.proposal)
