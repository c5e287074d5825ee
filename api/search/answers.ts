import * as t from 'io-ts'
import { EntryHit, Receipt } from './shapes'
import * as c from '../codecs'
import { Author, Pagination } from '../answers'

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

const Moment = d(
  c.object({
    position: d(t.number, 'Its log position'),
    time: d(t.union([t.string, t.null]), 'Its time (ISO 8601)'),
  }),
  "A moment compared: the workspace's last event at or before the one asked (time null: before its first event)",
)

const Ranked = c.object(
  {
    rank: d(t.number, 'Its place in the answer (1 is first)'),
    id: d(t.string, 'The entry'),
    title: d(t.string, 'Its title'),
    score: score('the score served'),
    version: d(t.number, "The entry's version whose content was served"),
    chunkIndex: d(t.number, 'The chunk served (0 is the first)'),
  },
  {},
  'a result of a compared answer',
)

const Placed = d(
  t.union([
    c.object({
      rank: d(t.number, 'Its place (1 is first)'),
      score: score('the score served'),
      version: d(t.number, "The entry's version served"),
    }),
    t.null,
  ]),
  'Its place, score and version in that answer, or null where it was not in it',
)

const Because = c.object(
  {
    causes: d(
      t.array(t.string),
      'What the event did: created, edited, retitled, reprocessed, metadata, disabled, enabled, moved, deleted, ' +
        're-embedded, settings',
    ),
    type: d(t.string, 'The event type'),
    position: d(t.number, "The event's log position"),
    time: d(t.string, 'When it was written (ISO 8601)'),
    actor: d(Author, 'Who wrote it: a user, an agent (its client) or a process'),
  },
  {},
  'an event between the moments',
)

/** The answer of a comparison of one search at two moments. */
export const CompareAnswer = c.object(
  {
    mode: d(c.Mode, 'The mode both searches were asked in'),
    from: Moment,
    to: Moment,
    before: d(t.array(Ranked), 'The answer as of from'),
    after: d(t.array(Ranked), 'The answer as of to'),
    moved: d(
      t.array(
        c.object(
          {
            id: d(t.string, 'The entry'),
            title: d(t.string, 'Its title'),
            movement: d(t.keyof({ entered: null, left: null, rose: null, fell: null }), 'How its place changed'),
            before: Placed,
            after: Placed,
            because: d(t.array(Because), "The entry's events between the moments, oldest first"),
          },
          {},
          'an entry whose place changed',
        ),
      ),
      'Every entry that entered, left, rose or fell, with the events behind it',
    ),
    workspace: d(
      t.array(Because),
      "The workspace's events between the moments that change every search: search settings, a re-embedding",
    ),
    deleted: d(
      t.array(
        c.object(
          {
            id: d(t.string, 'The entry'),
            title: d(t.union([t.string, t.null]), 'Its title when deleted (null for entries deleted long ago)'),
            position: d(t.number, "The deletion's log position"),
            time: d(t.string, 'When it was deleted (ISO 8601)'),
          },
          {},
          'a deleted entry',
        ),
      ),
      'Entries deleted between the moments (the latest 100): their content is cut, so no answer of any moment ' +
        'serves them, and whether they answered then is not shown',
    ),
  },
  {},
  'a comparison',
)

/** The operators' re-embedding: the vectors each workspace got. */
export const Reembedded = c.object({
  reembedded: t.array(c.object({ workspaceId: t.string, model: t.string, vectors: t.number })),
})

const ReceiptResult = c.object(
  {
    version: d(t.number, "The entry's version (1 for its first content), or the page's, that was served"),
    sha256: d(t.string, 'SHA-256 (hex) of the text served'),
    status: d(t.string, 'current, changed or deleted'),
  },
  {
    entryId: t.string,
    pageId: t.string,
    chunkIndex: t.number,
    currentVersion: d(t.number, 'When changed: the version now'),
    diff: d(t.string, 'When changed: a unified diff of the text served against the text now'),
  },
)
export const ReceiptRecord = c.object(
  {
    id: t.string,
    kind: d(t.string, 'knowledge or pages'),
    at: t.string,
    position: t.number,
    recorded: d(t.boolean, "Whether the search's record (query, mode, who) has reached the log"),
    results: t.array(ReceiptResult),
  },
  { query: t.string, mode: t.string, actor: d(Author, 'Who was served (an agent by its client)'), asOf: t.number },
  'an answer receipt',
)

export const StaleExposure = c.object({
  items: t.array(
    c.object(
      {
        status: d(t.string, 'changed or deleted'),
        changedAt: t.union([t.string, t.null]),
        servedTo: t.array(c.object({ receiptId: t.string, at: t.string, actor: t.unknown, version: t.number })),
      },
      { entryId: t.string, pageId: t.string, title: t.string, currentVersion: t.number },
    ),
  ),
  pagination: Pagination,
})
