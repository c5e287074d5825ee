import * as t from 'io-ts'
import { highlight, type PageResult, type SearchResult } from '../../queries/search'
import * as c from '../codecs'

// What searches take and answer, as the tools and the endpoints declare them (io-ts codecs): an
// answer is encoded by its codec (unknown fields dropped), and the same codec gives the tool's
// outputSchema, so what is declared is what is served.

const d = c.described

/** Search arguments shared by kb_search, page_search and a pack's page_search. */
export const searchArguments = {
  mode: c.Mode,
  limit: c.integer(1, 50),
  minScore: c.number(0, 1),
  include: t.keyof({ highlight: null, chunk: null }),
}

export const searchNotes = {
  query: 'What to look for, in words (a question or key terms)',
  mode:
    'hybrid (default: words and meaning), text (exact words, fastest), or vector (meaning, for paraphrases); ' +
    'defaults to the workspace setting',
  limit:
    'Results wanted, 1-50 (default: the workspace setting, 5 unless changed); each costs about 100 tokens, ' +
    'or a whole chunk with include "chunk"',
  minScore: 'Drop results below this relevance, 0-1; 0.5 keeps likely matches (default: the workspace setting)',
  include: 'highlight (default): the matching sentences only; chunk: also the whole chunk each result matched in',
}

/** What an answer was: its id (GET /api/v1/receipts/{id} tells whether what it served still holds) and position. */
export const Receipt = d(
  c.object({
    id: d(t.string, 'The receipt of this answer'),
    position: d(t.number, 'The log position the knowledge base had reached when it answered'),
  }),
  'The answer receipt: what was served, checkable later',
)

const searchAnswer = <H extends t.Mixed>(hit: H) =>
  c.object(
    {
      results: d(t.array(hit), 'Best first; empty when nothing scored at least minScore'),
      mode: d(c.Mode, 'The mode that ran'),
      receipt: Receipt,
    },
    {
      fallback: d(t.string, 'Why another mode ran than the one asked (no vectors, the model failed)'),
    },
  )

const served = {
  sha256: d(t.string, 'SHA-256 (hex) of the text served (the chunk, or the page version)'),
}

const common = {
  title: d(t.string, 'Its title'),
  score: d(t.number, 'Relevance 0-1: about the chance that this result answers the query'),
  highlight: d(t.string, 'The sentences that best match the query'),
}

export const EntryHit = c.object(
  {
    id: d(t.string, 'The entry id: kb_get_entry reads the entry'),
    ...common,
    citation: d(t.string, 'How to cite it to the user: its title, and the web page it came from if any'),
    chunkIndex: d(t.number, 'Which chunk of the entry matched (0 is the first)'),
    version: d(t.number, "The entry's version (1 for its first content) that was served"),
    ...served,
  },
  {
    headingPath: d(t.string, 'The section the chunk is in: the headings above it, as "Installation › Linux"'),
    content: d(t.string, 'The whole chunk (with include "chunk")'),
  },
)
export const EntrySearchAnswer = searchAnswer(EntryHit)

export const PageHit = c.object(
  {
    pageId: d(t.string, 'The page id: page_read reads the page'),
    ...common,
    version: d(t.number, 'The version that matched'),
    citation: d(t.string, 'How to cite it to the user: "<title> · v<version>"'),
    ...served,
  },
  { content: d(t.string, 'The whole page version (with include "chunk")') },
)
export const PageSearchAnswer = searchAnswer(PageHit)

/** When nothing of the query is in the text (found by meaning alone): its opening, cut at a word. */
const opening = (text: string) => (text.length <= 300 ? text : `${text.slice(0, text.lastIndexOf(' ', 300))} …`)

type Include = 'highlight' | 'chunk' | undefined

/** Entry results as an agent reads them: the matching sentences, the chunk only when asked. */
export const entryHits = (
  results: Array<Omit<SearchResult, 'revision'>>,
  include: Include,
): t.TypeOf<typeof EntryHit>[] =>
  results.map((r) => ({
    id: r.id,
    title: r.title,
    citation: r.pageUrl ? `${r.title} (${r.pageUrl})` : r.title,
    score: r.score,
    highlight: r.highlight?.text ?? opening(r.content),
    chunkIndex: r.chunkIndex,
    version: r.version,
    sha256: r.sha256,
    ...(r.headingPath ? { headingPath: r.headingPath } : {}),
    ...(include === 'chunk' ? { content: r.content } : {}),
  }))

/** Page results as an agent reads them. */
export const pageHits = (
  results: Array<PageResult & { sha256: string }>,
  query: string,
  include: Include,
): t.TypeOf<typeof PageHit>[] =>
  results.map((r) => ({
    pageId: r.pageId,
    title: r.title,
    version: r.version,
    sha256: r.sha256,
    citation: r.citation,
    score: r.score,
    highlight: highlight(r.content, query)?.text ?? opening(r.content),
    ...(include === 'chunk' ? { content: r.content } : {}),
  }))
