import type * as E from 'fp-ts/Either'
import type * as t from 'io-ts'
import type { CommandContext } from '../../commands/handle'
import type { DomainError, Permission } from '../../domain/shared'
import type { Deps } from '../deps'
import { type ObjectSchema, inputSchemaOf, outputSchemaOf } from '../openapi'

/** The services tools are given: the store to write, the read models, search's parts, the citation log. */
export type ToolDeps = Pick<
  Deps,
  'db' | 'store' | 'embedder' | 'textIndex' | 'vectors' | 'citations' | 'receiptKeys' | 'reranker' | 'runner' | 'config'
>

/** Names of the services in ToolDeps, for the routes that run tools. */
export const TOOL_SERVICES = [
  'db',
  'store',
  'embedder',
  'textIndex',
  'vectors',
  'citations',
  'receiptKeys',
  'reranker',
  'runner',
  'config',
] as const

export interface ToolContext {
  workspaceId: string
  /** The agent's client name: the MCP session's `initialize` name, or the API key's name. */
  client: string
  /** The API key the agent calls with: an agent undoes what was written with it. */
  keyId: string
  command: CommandContext
}

/** An entry's or a page's version a tool answered with, which an MCP client reads as a resource. */
export interface Served {
  kind: 'entry' | 'page'
  id: string
  version: number
  title: string
}

export interface ToolOutput<O = unknown> {
  data: O
  /** Position of the events the tool appended: the answer waits for the read models to reach it. */
  position?: number
  /** The versions it served, linked in its MCP result (kb://entries/{id}@v{n}, kb://pages/{id}@v{n}). */
  served?: Served[]
}

/** What an MCP client may assume about a tool (the MCP specification's tool annotations). */
export interface ToolAnnotations {
  readOnlyHint: boolean
  destructiveHint: boolean
  idempotentHint: boolean
  openWorldHint: boolean
}

/** A read of this workspace: safe to call freely. */
export const READS: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
}

/** A tool as it is declared: its codecs, a description for each argument, what it does. */
export interface ToolSpec<A, O> {
  name: string
  /** When to use it and what it returns, in two sentences or so. */
  description: string
  permission: Permission
  annotations: ToolAnnotations
  arguments: t.Type<A, unknown, unknown>
  /** Each argument in the agent's terms: what it does, its range, its default. */
  argumentNotes: { [K in keyof Required<A>]: string }
  /** The answer's shape; what a tool answers is encoded by it, so the declared shape is the served one. */
  output: t.Type<O, unknown, unknown>
  run(deps: ToolDeps, ctx: ToolContext, args: A): Promise<E.Either<DomainError, ToolOutput<O>>>
}

/** A tool, served over `POST /api/v1/tools/{name}/execute` and over MCP (without the `native:` prefix). */
export interface Tool<A = any, O = any> extends ToolSpec<A, O> {
  /** The arguments as JSON Schema, for MCP clients (the codec above is what checks them). */
  inputSchema: ObjectSchema
  /** The answer as JSON Schema, from the output codec. */
  outputSchema: ObjectSchema
}

/** Arguments as JSON Schema, each described in the agent's terms. */
export const argumentsSchema = (codec: t.Mixed, notes: Record<string, string>) =>
  inputSchemaOf(codec, Object.fromEntries(Object.entries(notes).map(([k, v]) => [k, { description: v }])))

/** A tool with its JSON Schemas worked out from its codecs. */
export const defineTool = <A, O>(spec: ToolSpec<A, O>): Tool<A, O> => ({
  ...spec,
  inputSchema: argumentsSchema(spec.arguments, spec.argumentNotes),
  outputSchema: outputSchemaOf(spec.output),
})
