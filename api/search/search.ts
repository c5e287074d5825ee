import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { searchKnowledge } from '../../commands/search/search'
import { fail } from '../../domain/shared'
import { memberOf } from '../auth'
import * as c from '../codecs'
import { type AnyRoute, route } from '../route'
import { resolveAsOf } from '../../queries/asOf'
import { getFolder } from '../../queries/knowledge'
import type { SearchResult } from '../../queries/search/search'
import { entryHits } from './shapes'
import { SearchAnswer } from './answers'
import { compareRoutes } from './compare'
import { filterOf, searchFields } from './filter'

const SearchBody = c.object({ query: c.string(1, 1000) }, { ...searchFields, asOf: c.asOf })

/**
 * Search. What the request leaves out is the workspace's setting (search.defaultMode, defaultLimit,
 * minScore: hybrid, 5, 0.5 until changed), as for the agents' tools.
 */
export const searchRoutes: AnyRoute[] = [
  ...compareRoutes,
  route({
    method: 'post',
    path: '/api/v1/knowledge/search',
    tag: 'search',
    auth: 'bearer',
    permission: 'read:knowledge',
    summary:
      'Search entries: hybrid (BM25 and vectors), vector, or text; one result per entry with the chunk that answers',
    body: SearchBody,
    // compact: each result's title, citation, score and matching sentences, as the agent tools answer.
    query: t.partial({ view: t.keyof({ full: null, compact: null }) }),
    response: SearchAnswer,
    uses: [
      'db',
      'store',
      'embedder',
      'textIndex',
      'vectors',
      'citations',
      'receiptKeys',
      'runner',
      'config',
      'reranker',
    ],
    handler: async ({ body, query, identity, command }, deps) => {
      const { workspaceId } = memberOf(identity)
      if (body.folderId && !(await getFolder(deps.db.pool, workspaceId, body.folderId)))
        return fail('NOT_FOUND', 'folder not found')
      const asOf = await resolveAsOf(deps, workspaceId, body.asOf)
      if (E.isLeft(asOf)) return asOf
      const found = await searchKnowledge(deps, command, workspaceId, {
        ...(asOf.right ? { asOf: asOf.right } : {}),
        query: body.query,
        mode: body.mode,
        limit: body.limit,
        minScore: body.minScore,
        filters: {
          source: body.source,
          category: body.category,
          tag: body.tag,
          folderId: body.folderId,
          ...filterOf(body.filter),
        },
      })
      return E.map((data: { results: Array<Omit<SearchResult, 'revision'>> }) => ({
        data: query.view === 'compact' ? { ...data, results: entryHits(data.results, 'highlight') } : data,
      }))(found)
    },
  }),
]
