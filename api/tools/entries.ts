import * as E from 'fp-ts/Either'
import { searchKnowledge } from '../../commands/search'
import { fail } from '../../domain/shared'
import * as c from '../codecs'
import { FilterSource, Mode } from '../routes/search'
import { getEntry } from '../../queries/knowledge'
import { inputSchemaOf } from '../openapi'
import type { Tool } from './tool'

const KbSearchArguments = c.object(
  { query: c.string(1, 1000) },
  {
    mode: Mode,
    limit: c.integer(1, 50),
    minScore: c.number(0, 1),
    source: FilterSource,
    category: c.string(1, 200),
    tag: c.string(1, 100),
  },
)

const kbSearch: Tool = {
  name: 'native:kb_search',
  searches: true,
  description:
    "Search the workspace's knowledge entries (uploaded reference: text, web pages, files); mode, limit and minScore " +
    "default to the workspace's search settings",
  permission: 'read:tools',
  arguments: KbSearchArguments,
  inputSchema: inputSchemaOf(KbSearchArguments),
  run: async (deps, { workspaceId, command }, args) => {
    // Agent-facing search takes the workspace's search settings as they stand, defaults included.
    const found = await searchKnowledge(deps, command, workspaceId, {
      query: args.query,
      mode: args.mode,
      limit: args.limit,
      minScore: args.minScore,
      filters: { source: args.source, category: args.category, tag: args.tag },
      defaults: 'workspace',
    })
    return E.map((data: unknown) => ({ data }))(found)
  },
}

const KbGetEntryArguments = c.object({ id: c.id }, {})

const kbGetEntry: Tool = {
  name: 'native:kb_get_entry',
  description: 'Read one knowledge entry of the workspace by id (its whole content and fields)',
  permission: 'read:tools',
  arguments: KbGetEntryArguments,
  inputSchema: inputSchemaOf(KbGetEntryArguments, { id: { description: 'The entry id' } }),
  run: async (deps, { workspaceId }, args) => {
    const entry = await getEntry(deps.db.pool, workspaceId, args.id)
    return entry ? E.right({ data: entry }) : fail('NOT_FOUND', 'knowledge entry not found')
  },
}

export const entryTools: Tool[] = [kbSearch, kbGetEntry]
