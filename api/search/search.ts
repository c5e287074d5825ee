import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { searchKnowledge } from '../../commands/search/search'
import { fail } from '../../domain/shared'
import { memberOf } from '../auth'
import * as c from '../codecs'
import { FilterSource, Mode } from '../codecs'
import { type AnyRoute, route } from '../route'
import { resolveAsOf } from '../../queries/asOf'
import { getFolder } from '../../queries/knowledge'
import type { SearchResult } from '../../queries/search/search'
import { entryHits } from '../tools/shapes'

const SearchBody = c.object(
  { query: c.string(1, 1000) },
  {
    mode: Mode,
    limit: c.integer(1, 50),
    minScore: c.number(0, 1),
    source: FilterSource,
    category: c.string(1, 200),
    tag: c.string(1, 100),
    folderId: c.id,
    asOf: c.asOf,
  },
)

/** The moment an answer as of a past time reflects, as the OpenAPI document describes it. */
export const AsOfAnswer = {
  type: 'object',
  required: ['position', 'time'],
  description:
    "Present when asOf was asked: the workspace's last event at or before it, whose state the answer shows " +
    '(position 0 and time null: the workspace had no events yet)',
  properties: {
    position: { type: 'integer', description: 'Its log position' },
    time: { type: ['string', 'null'], format: 'date-time', description: 'Its time' },
  },
}

const score = (what: string) => ({ type: 'number', minimum: 0, maximum: 1, description: what })
const offsets = { start: { type: 'integer' }, end: { type: 'integer' } }

/** The answer of a search, as the OpenAPI document describes it. */
export const SearchAnswer = {
  type: 'object',
  required: ['results', 'mode'],
  properties: {
    mode: {
      type: 'string',
      enum: ['hybrid', 'vector', 'text'],
      description: 'The mode that answered (text when vectors could not be searched)',
    },
    fallback: { type: 'string', description: 'Why another mode than the one asked for answered' },
    receipt: {
      type: 'object',
      required: ['id', 'position'],
      description: 'The answer receipt: GET /api/v1/receipts/{id} shows what was served and whether it still holds',
      properties: {
        id: { type: 'string' },
        position: { type: 'integer', description: 'The log position the read models had reached' },
      },
    },
    asOf: AsOfAnswer,
    engines: {
      type: 'object',
      description: 'The engines that answered each leg that ran',
      properties: {
        text: {
          type: 'string',
          description: 'pg_textsearch (BM25), tsvector (candidates; BM25 scored from stored terms)',
        },
        vectors: { type: 'string', description: 'pgvector (HNSW), or exact scan (every vector compared, no pgvector)' },
      },
    },
    results: {
      type: 'array',
      items: {
        type: 'object',
        required: [
          'id',
          'title',
          'content',
          'source',
          'metadata',
          'score',
          'scores',
          'ranks',
          'chunkIndex',
          'version',
          'sha256',
        ],
        properties: {
          id: { type: 'string', description: 'The entry' },
          title: { type: 'string' },
          content: { type: 'string', description: 'The chunk of the entry that best answers the query' },
          source: { type: 'string' },
          metadata: { type: 'object' },
          score: score(
            'The calibrated chance that the result is relevant: the same score means about the same chance in every ' +
              'mode and query; minScore compares it',
          ),
          scores: {
            type: 'object',
            description:
              "Each leg's calibrated score for this entry (a leg that did not run is absent), and the fused score " +
              'served',
            properties: {
              text: score('Keyword (BM25) evidence alone'),
              vector: score('Vector similarity alone'),
              fused: score('The score served'),
            },
          },
          ranks: {
            type: 'object',
            description: "The entry's rank in each leg that found it (1 is first)",
            properties: { text: { type: 'integer' }, vector: { type: 'integer' } },
          },
          chunkIndex: { type: 'integer' },
          version: { type: 'integer', description: "The entry's revision whose content the served chunk is" },
          sha256: { type: 'string', description: 'SHA-256 (hex) of the served chunk text' },
          pageUrl: { type: 'string', description: 'For a crawled entry: the page the chunk came from' },
          highlight: {
            type: 'object',
            description:
              'The sentence or two of `content` that best match the query; offsets are UTF-16 code units into ' +
              '`content` (JavaScript string indices)',
            properties: {
              text: { type: 'string' },
              ...offsets,
              terms: {
                type: 'array',
                items: { type: 'object', properties: offsets },
                description: "Where the query's words are",
              },
            },
          },
        },
      },
    },
  },
}

/**
 * Search. What the request leaves out is the workspace's setting where the workspace set
 * it (search.defaultMode, defaultLimit, minScore), and the endpoint's default otherwise (hybrid, 5, 0.5).
 */
export const searchRoutes: AnyRoute[] = [
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
    uses: ['db', 'store', 'embedder', 'textIndex', 'vectors', 'citations', 'receiptKeys', 'runner', 'config'],
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
        filters: { source: body.source, category: body.category, tag: body.tag, folderId: body.folderId },
        defaults: 'endpoint',
      })
      return E.map((data: { results: SearchResult[] }) => ({
        data: query.view === 'compact' ? { ...data, results: entryHits(data.results, 'highlight') } : data,
      }))(found)
    },
  }),
]
