import * as E from 'fp-ts/Either'
import { loadKbConfig } from '../../commands/knowledge'
import { searchKnowledge } from '../../commands/search'
import { fail } from '../../domain/shared'
import * as c from '../codecs'
import { FilterSource, Mode } from '../routes/search'
import { getEntry } from '../views/knowledge'
import type { Tool } from '.'

const kbSearch: Tool = {
  name: 'native:kb_search',
  searches: true,
  description: "Search the workspace's knowledge entries (uploaded reference: text, web pages, files); mode, limit and minScore default to the workspace's search settings",
  permission: 'read:tools',
  arguments: c.object(
    { query: c.string(1, 1000) },
    { mode: Mode, limit: c.integer(1, 50), minScore: c.number(0, 1), source: FilterSource, category: c.string(1, 200), tag: c.string(1, 100) },
  ),
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', minLength: 1, maxLength: 1000 },
      mode: { type: 'string', enum: ['hybrid', 'vector', 'text'] },
      limit: { type: 'integer', minimum: 1, maximum: 50 },
      minScore: { type: 'number', minimum: 0, maximum: 1 },
      source: { type: 'string', enum: ['manual', 'document', 'webpage', 'faq', 'api_docs', 'transcript'] },
      category: { type: 'string' },
      tag: { type: 'string' },
    },
    required: ['query'],
  },
  run: async (deps, { workspaceId, command }, args) => {
    // Agent-facing search uses the workspace's search.* defaults (DESIGN.md), not the endpoint's.
    const { search } = await loadKbConfig(deps.store, workspaceId)
    const found = await searchKnowledge(deps, command, workspaceId, {
      query: args.query,
      mode: args.mode ?? search.defaultMode,
      limit: args.limit ?? search.defaultLimit,
      minScore: args.minScore ?? search.minScore,
      filters: { source: args.source, category: args.category, tag: args.tag },
    })
    return E.map((data: unknown) => ({ data }))(found)
  },
}

const kbGetEntry: Tool = {
  name: 'native:kb_get_entry',
  description: 'Read one knowledge entry of the workspace by id (its whole content and fields)',
  permission: 'read:tools',
  arguments: c.object({ id: c.id }, {}),
  inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  run: async (deps, { workspaceId }, args) => {
    const entry = await getEntry(deps.db.pool, workspaceId, args.id)
    return entry ? E.right({ data: entry }) : fail('NOT_FOUND', 'knowledge entry not found')
  },
}

export const entryTools: Tool[] = [kbSearch, kbGetEntry]
