import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { fail } from '../../domain/shared'
import { entryRow, getEntry } from '../../queries/knowledge/knowledge'
import * as c from '../codecs'
import { rangeArguments, rangeFields, rangeNotes, rangeOptional, readRange } from '../tools/ranges'
import { READS, defineTool } from '../tools/tool'

const d = c.described

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

export const entryTools = [kbGetEntry]
