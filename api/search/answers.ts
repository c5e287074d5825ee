import * as t from 'io-ts'
import { EntryHit, Receipt } from '../tools/shapes'
import * as c from '../codecs'

// What the search route answers, as an io-ts codec: the answer is encoded by it, and the OpenAPI
// document describes it from the same codec.

const d = c.described
const score = (what: string) => d(t.number, `0-1: ${what}`)
const Offsets = { start: t.number, end: t.number }

const Highlight = d(
  c.object({ text: t.string, ...Offsets, terms: d(t.array(c.object(Offsets)), "Where the query's words are") }),
  'The sentence or two of `content` that best match the query; offsets are UTF-16 code units into `content`',
)

const Result = c.object(
  {
    id: d(t.string, 'The entry'),
    title: t.string,
    content: d(t.string, 'The chunk of the entry that best answers the query'),
    source: t.string,
    metadata: t.UnknownRecord,
    score: score(
      'the calibrated chance that the result is relevant, the same in every mode and query; minScore compares it',
    ),
    scores: d(
      c.object(
        {},
        {
          text: score('keyword (BM25) evidence alone'),
          vector: score('vector similarity alone'),
          fused: score('the score served'),
          rerank: d(t.number, "The reranking model's relevance score, where it reordered the results"),
        },
      ),
      "Each leg's calibrated score for this entry (a leg that did not run is absent), the fused score served, and " +
        "the reranking model's",
    ),
    ranks: d(
      c.object({}, { text: t.number, vector: t.number }),
      "The entry's rank in each leg that found it (1 is first)",
    ),
    chunkIndex: t.number,
    version: d(t.number, "The entry's version (1 for its first content) whose content the served chunk is"),
    sha256: d(t.string, 'SHA-256 (hex) of the served chunk text'),
  },
  {
    pageUrl: d(t.string, 'For a crawled entry: the page the chunk came from'),
    headingPath: d(t.string, 'The headings the served chunk stands under, as "Installation › Linux"'),
    highlight: Highlight,
  },
  'a search result',
)

const AsOf = d(
  c.object({ position: t.number, time: t.union([t.string, t.null]) }),
  "Present when asOf was asked: the workspace's last event at or before it, whose state the answer shows",
)

/** The answer of a search; with `view=compact`, each result as the agent tools answer it. */
export const SearchAnswer = c.object(
  {
    results: t.union([t.array(Result), t.array(EntryHit)]),
    mode: d(c.Mode, 'The mode that answered (text when vectors could not be searched)'),
  },
  {
    fallback: d(t.string, 'Why another mode than the one asked for answered'),
    receipt: Receipt,
    asOf: AsOf,
    engines: d(
      c.object({}, { text: t.string, vectors: t.string, rerank: t.string }),
      'The engines that answered each leg that ran: pg_textsearch, tsvector or elasticsearch; pgvector or exact ' +
        'scan; and the reranking model that reordered the results, or why none did (off, unavailable: the reason)',
    ),
  },
  'a search answer',
)

/** The operators' re-embedding: the vectors each workspace got. */
export const Reembedded = c.object({
  reembedded: t.array(c.object({ workspaceId: t.string, model: t.string, vectors: t.number })),
})
