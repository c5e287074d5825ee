import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import { loadKbConfig } from '../../commands/knowledge'
import { searchKnowledge } from '../../commands/search'
import type { DomainError, Permission } from '../../domain/shared'
import type { CommandContext } from '../../commands/handle'
import * as c from '../codecs'
import type { Deps } from '../deps'
import { FilterSource, Mode } from '../routes/search'

export interface ToolContext {
  workspaceId: string
  command: CommandContext
}

export interface Tool<A = any> {
  name: string
  description: string
  permission: Permission
  arguments: t.Type<A, unknown, unknown>
  run(deps: Deps, ctx: ToolContext, args: A): Promise<E.Either<DomainError, unknown>>
}

const kbSearch: Tool = {
  name: 'native:kb_search',
  description: "Search the workspace's knowledge entries; mode, limit and minScore default to the workspace's search settings",
  permission: 'read:tools',
  arguments: c.object(
    { query: c.string(1, 1000) },
    { mode: Mode, limit: c.integer(1, 50), minScore: c.number(0, 1), source: FilterSource, category: c.string(1, 200), tag: c.string(1, 100) },
  ),
  run: async (deps, { workspaceId, command }, args) => {
    // Agent-facing search uses the workspace's search.* defaults (DESIGN.md), not the endpoint's.
    const { search } = await loadKbConfig(deps.store, workspaceId)
    return searchKnowledge(deps, command, workspaceId, {
      query: args.query,
      mode: args.mode ?? search.defaultMode,
      limit: args.limit ?? search.defaultLimit,
      minScore: args.minScore ?? search.minScore,
      filters: { source: args.source, category: args.category, tag: args.tag },
    })
  },
}

/** The tools served over `POST /api/v1/tools/{tool}/execute` (and MCP, later). */
export const tools: Tool[] = [kbSearch]
