import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { searchKnowledge } from '../../commands/search'
import { memberOf } from '../auth'
import * as c from '../codecs'
import { type AnyRoute, route } from '../route'

export const Mode = t.keyof({ hybrid: null, vector: null, text: null })
export const FilterSource = t.keyof({ manual: null, document: null, webpage: null, faq: null, api_docs: null, transcript: null })

const SearchBody = c.object(
  { query: c.string(1, 1000) },
  { mode: Mode, limit: c.integer(1, 50), minScore: c.number(0, 1), source: FilterSource, category: c.string(1, 200), tag: c.string(1, 100) },
)

/** SPEC.md "Search": defaults are the endpoint's (hybrid, 5, 0.5), not the workspace's agent defaults. */
export const searchRoutes: AnyRoute[] = [
  route({
    method: 'post', path: '/api/v1/knowledge/search', tag: 'search', auth: 'bearer', permission: 'read:knowledge',
    summary: 'Search entries: hybrid (RRF of BM25 and vectors), vector, or text; one result per entry',
    body: SearchBody,
    handler: async ({ body, identity, command }, deps) => {
      const found = await searchKnowledge(deps, command, memberOf(identity).workspaceId, {
        query: body.query,
        mode: body.mode ?? 'hybrid',
        limit: body.limit ?? 5,
        minScore: body.minScore ?? 0.5,
        filters: { source: body.source, category: body.category, tag: body.tag },
      })
      return E.map((data: unknown) => ({ data }))(found)
    },
  }),
]
