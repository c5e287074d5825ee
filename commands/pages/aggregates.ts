import { collection } from '../../domain/pages/collection'
import { page } from '../../domain/pages/page'
import { proposal } from '../../domain/pages/proposal'
import { aggregate } from '../handle'
import { type StreamCategory, category } from '../streams'

// The pages' aggregates, each decider bound to its streams' category.

export const pages = aggregate(page, category('page'))
export const collections = aggregate(collection, category('collection'))
export const proposals = aggregate(proposal, category('proposal'))

/** The pages' categories: every member reads them, and people name each by its bare id. */
export const pageStreams: StreamCategory[] = [pages, collections, proposals].map(({ category }) => ({
  category,
  members: true,
  lookup: true,
}))
