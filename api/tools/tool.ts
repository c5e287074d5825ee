import type * as E from 'fp-ts/Either'
import type * as t from 'io-ts'
import type { CommandContext } from '../../commands/handle'
import type { DomainError, Permission } from '../../domain/shared'
import type { Deps } from '../deps'
import type { ObjectSchema } from '../openapi'

/** The services tools are given: the store to write, the read models, search's parts, the citation log. */
export type ToolDeps = Pick<
  Deps,
  'db' | 'store' | 'embedder' | 'textIndex' | 'vectors' | 'citations' | 'runner' | 'config'
>

/** Names of the services in ToolDeps, for the routes that run tools. */
export const TOOL_SERVICES = [
  'db',
  'store',
  'embedder',
  'textIndex',
  'vectors',
  'citations',
  'runner',
  'config',
] as const

export interface ToolContext {
  workspaceId: string
  /** The agent's client name: the MCP session's `initialize` name, or the API key's name. */
  client: string
  command: CommandContext
}

export interface ToolOutput {
  data: unknown
  /** Position of the events the tool appended: the answer waits for the read models to reach it. */
  position?: number
}

/** A tool, served over `POST /api/v1/tools/{name}/execute` and over MCP (without the `native:` prefix). */
export interface Tool<A = any> {
  name: string
  description: string
  permission: Permission
  arguments: t.Type<A, unknown, unknown>
  /** The arguments as JSON Schema, for MCP clients (the codec above is what checks them). */
  inputSchema: ObjectSchema
  run(deps: ToolDeps, ctx: ToolContext, args: A): Promise<E.Either<DomainError, ToolOutput>>
  /** A search: it records citations, so it does not wait for the pending ones to be counted. */
  searches?: true
}
