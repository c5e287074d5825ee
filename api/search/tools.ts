import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import type * as t from 'io-ts'
import type { CommandContext } from '../../commands/handle'
import { loadKbConfig } from '../../commands/knowledge'
import { searchKnowledge, searchPages } from '../../commands/search'
import type { PageScope } from '../../queries/search'
import * as c from '../codecs'
import type { Deps } from '../deps'
import { mcpTool } from '../mcp'
import type { PackSearch } from '../pages'
import { READS, type ToolDeps, defineTool } from '../tools/tool'
import { kbCompare } from './compare'
import { FILTER_NOTE, PAGE_FILTER_NOTE, PageFilter, SearchFilter, filterOf } from './filter'
import { EntrySearchAnswer, PageSearchAnswer, entryHits, pageHits, searchArguments, searchNotes } from './shapes'

// The agents' searches: kb_search over entries, page_search over pages (a workspace's, or a pack's
// verified ones), and kb_compare (./compare.ts).

const KbSearchArguments = c.object(
  { query: c.string(1, 1000) },
  {
    ...searchArguments,
    source: c.FilterSource,
    category: c.string(1, 200),
    tag: c.string(1, 100),
    filter: SearchFilter,
  },
)

const kbSearch = defineTool({
  name: 'native:kb_search',
  description:
    "Search the workspace's knowledge entries (uploaded documents, web pages, text) before answering from memory. " +
    'Returns the best matches with their matching sentences and a citation for each.',
  permission: 'read:tools',
  annotations: READS,
  arguments: KbSearchArguments,
  argumentNotes: {
    ...searchNotes,
    source: 'Only entries of this kind: text, url (web pages), file (uploads), or a legacy kind',
    category: "Only entries whose metadata category is this (as the workspace's entries name it)",
    tag: 'Only entries carrying this tag',
    filter: FILTER_NOTE,
  },
  output: EntrySearchAnswer,
  run: async (deps, { workspaceId, command }, args) => {
    // What the call leaves out comes from the workspace's search settings, as for the endpoint.
    const found = await searchKnowledge(deps, command, workspaceId, {
      query: args.query,
      mode: args.mode,
      limit: args.limit,
      minScore: args.minScore,
      filters: { source: args.source, category: args.category, tag: args.tag, ...filterOf(args.filter) },
    })
    return E.map(({ results, ...rest }: { results: Parameters<typeof entryHits>[0]; mode: string }) => ({
      data: { ...rest, results: entryHits(results, args.include) } as t.TypeOf<typeof EntrySearchAnswer>,
      served: results.map((r) => ({ kind: 'entry' as const, id: r.id, version: r.version, title: r.title })),
    }))(found)
  },
})

const PageSearchArguments = c.object({ query: c.string(1, 1000) }, { ...searchArguments, filter: PageFilter })

/** A search of pages with what the call leaves out taken from the workspace's search settings. */
const pagesFound = async (
  deps: ToolDeps,
  command: CommandContext,
  scope: PageScope,
  args: t.TypeOf<typeof PageSearchArguments>,
) => {
  const { search } = await loadKbConfig(deps.store, scope.workspaceId)
  const found = await searchPages(deps, command, scope, {
    query: args.query,
    mode: args.mode ?? search.defaultMode,
    limit: args.limit ?? search.defaultLimit,
    minScore: args.minScore ?? search.minScore,
    filters: filterOf(args.filter),
  })
  return pipe(
    found,
    E.map((f) => ({ ...f, results: pageHits(f.results, args.query, args.include) })),
  )
}

const pageSearch = defineTool({
  name: 'native:page_search',
  description:
    'Search the brain pages (the team wiki agents and people write) before answering or writing. Returns the best ' +
    'matches with their matching sentences and the citation "<title> · v<version>" to quote.',
  permission: 'read:tools',
  annotations: READS,
  arguments: PageSearchArguments,
  argumentNotes: { ...searchNotes, filter: PAGE_FILTER_NOTE },
  output: PageSearchAnswer,
  run: async (deps, { workspaceId, command }, args) =>
    E.map((data: t.TypeOf<typeof PageSearchAnswer>) => ({
      data,
      served: data.results.map((r) => ({ kind: 'page' as const, id: r.pageId, version: r.version, title: r.title })),
    }))(await pagesFound(deps, command, { kind: 'workspace', workspaceId }, args)),
})

/** A public pack's page_search: its verified pages, each at its pinned version. */
export const packSearch: PackSearch = (deps: Deps, pack, command) =>
  mcpTool({
    name: 'page_search',
    description:
      `Search the verified pages of the pack "${pack.name}". Returns the best matches with their matching ` +
      'sentences and the citation "<title> · v<version>" to quote.',
    arguments: PageSearchArguments,
    argumentNotes: { ...searchNotes, filter: PAGE_FILTER_NOTE },
    output: PageSearchAnswer,
    run: (a) =>
      pagesFound(
        deps,
        command(),
        { kind: 'pack', workspaceId: pack.workspaceId, collectionId: pack.collectionId, slug: pack.slug },
        a,
      ),
  })

export const searchTools = [kbSearch, pageSearch, kbCompare]
