import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { searchKnowledge } from '../../commands/search'
import { fail } from '../../domain/shared'
import { entryRow, getEntry } from '../../queries/knowledge/knowledge'
import * as c from '../codecs'
import { FILTER_NOTE, SearchFilter, filterOf } from '../search'
import {
  EntrySearchAnswer,
  entryHits,
  rangeArguments,
  rangeFields,
  rangeNotes,
  rangeOptional,
  readRange,
  searchArguments,
  searchNotes,
} from '../tools/shapes'
import { READS, defineTool } from '../tools/tool'

const d = c.described

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

const KbGetEntryArguments = c.object({ id: c.id }, rangeArguments)

const EntryRead = c.object(
  {
    id: d(t.string, 'The entry id'),
    title: d(t.string, 'Its title'),
    source: d(t.string, 'What it was made from: manual (text), webpage, document (a file), or a legacy kind'),
    citation: d(t.string, 'How to cite it to the user'),
    freshness: d(t.string, 'current, stale (not verified within the freshness period) or unknown'),
    updatedAt: d(t.string, 'When it last changed (ISO 8601)'),
    ...rangeFields,
  },
  {
    ...rangeOptional,
    sourceUrl: d(t.string, 'The web page it was fetched from'),
    fileName: d(t.string, 'The file it was uploaded as'),
    category: d(t.string, 'Its metadata category'),
    tags: d(t.array(t.string), 'Its metadata tags'),
  },
)

const kbGetEntry = defineTool({
  name: 'native:kb_get_entry',
  description:
    'Read a knowledge entry found by kb_search, by its id: its content (a section or a range of a long one), ' +
    'where it came from and how fresh it is.',
  permission: 'read:tools',
  annotations: READS,
  arguments: KbGetEntryArguments,
  argumentNotes: { id: 'The entry id, as kb_search answered it', ...rangeNotes },
  output: EntryRead,
  run: async (deps, { workspaceId }, args) => {
    const entry = await getEntry(deps.db.pool, workspaceId, args.id)
    if (!entry) return fail('NOT_FOUND', 'knowledge entry not found')
    const part = readRange(entry.content, args)
    if (E.isLeft(part)) return fail('VALIDATION_ERROR', 'the section is not in this entry', [part.left])
    const sourceUrl = (await entryRow(deps.db.pool, workspaceId, args.id))?.source_url ?? undefined
    const metadata = entry.metadata as { category?: string; tags?: string[] }
    return E.right({
      data: {
        id: entry.id,
        title: entry.title,
        source: entry.source,
        citation: sourceUrl ? `${entry.title} (${sourceUrl})` : entry.title,
        freshness: entry.freshness,
        updatedAt: entry.updatedAt,
        ...part.right,
        ...(sourceUrl ? { sourceUrl } : {}),
        ...(entry.storageInfo ? { fileName: entry.storageInfo.fileName } : {}),
        ...(metadata.category ? { category: metadata.category } : {}),
        ...(metadata.tags?.length ? { tags: metadata.tags } : {}),
      },
    })
  },
})

export const entryTools = [kbSearch, kbGetEntry]
