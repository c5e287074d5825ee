import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  RequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import * as E from 'fp-ts/Either'
import type * as t from 'io-ts'
import type { DomainError } from '../domain/shared'
import type { Deps } from './deps'
import { RESOURCE_TEMPLATES, resourceLink } from './mcpResources'
import { skills } from './skills'
import { READS, type Tool, type ToolOutput, argumentsSchema } from './tools/tool'
import { nextStepOf } from './tools/nextStep'
import { outputSchemaOf } from './openapi'
import { describeErrors } from './validation'

/** A tool as an MCP server serves it: its arguments checked, then run for the session's client. */
export interface McpTool {
  name: string
  description: string
  inputSchema: Tool['inputSchema']
  outputSchema: Tool['outputSchema']
  annotations: Tool['annotations']
  /** Answers the data its output codec encoded, so it matches outputSchema. */
  call(args: unknown, client: string): Promise<E.Either<DomainError, ToolOutput>>
}

/** Why GET is not documented on the MCP endpoints (they answer it 405). */
export const NO_MCP_STREAM =
  'Every answer is JSON. GET on this endpoint answers 405 Method Not Allowed: the server offers no ' +
  'server-to-client event stream, which MCP Streamable HTTP allows (clients then send every request by POST).'

/** A tool's answer as text too, for clients that read no structuredContent (compact: it costs the agent tokens). */
const text = (value: unknown) => [{ type: 'text' as const, text: JSON.stringify(value) }]

/** A failure an agent can act on: the envelope's code, message and details, and the next step. */
export const toolError = (tool: string, { writtenAt: _, ...error }: DomainError) => ({
  isError: true,
  content: text({ ...error, nextStep: nextStepOf(tool, error) }),
})

/** A schema failure of a request's params, named by its path under params. */
const describeIssue = (i: { path: PropertyKey[]; message: string }) =>
  `params.${i.path.slice(1).map(String).join('.')}: ${i.message}`

/**
 * An MCP server over the given tools (and, for workspace sessions, the skills as prompts). A tool's
 * expected failure is a tool result with isError and the envelope's code, message and details.
 */
export const mcpServer = (
  deps: Deps,
  name: string,
  served: McpTool[],
  withPrompts: boolean,
  /** The author of the session's writes: the client name its `initialize` gave. */
  client: () => string,
  /** The text of a kb:// version, for a workspace's session (a pack serves none). */
  readResource?: (uri: string) => Promise<{ uri: string; mimeType: string; text: string } | undefined>,
) => {
  const server = new Server(
    { name, version: '0.1.0' },
    {
      capabilities: {
        tools: {},
        ...(withPrompts ? { prompts: {} } : {}),
        ...(readResource ? { resources: {} } : {}),
      },
    },
  )
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: served.map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: t.inputSchema,
      outputSchema: t.outputSchema,
      annotations: t.annotations,
    })),
  }))
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const tool = served.find((t) => t.name === request.params.name)
    if (!tool)
      return {
        isError: true,
        content: text({
          code: 'NOT_FOUND',
          message: `no tool named ${request.params.name}`,
          nextStep: `call one of: ${served.map((t) => t.name).join(', ')}`,
        }),
      }
    // The author of a write is the client that opened the session, never anything in the arguments.
    const result = await tool.call(request.params.arguments ?? {}, client())
    if (E.isLeft(result)) {
      if (result.left.writtenAt) await deps.runner.waitFor(result.left.writtenAt, deps.config.readYourWritesTimeoutMs)
      return toolError(tool.name, result.left)
    }
    if (result.right.position) await deps.runner.waitFor(result.right.position, deps.config.readYourWritesTimeoutMs)
    const data = result.right.data as Record<string, unknown>
    const links = readResource ? (result.right.served ?? []).map(resourceLink) : []
    return { content: [...text(data), ...links], structuredContent: data }
  })
  if (readResource) {
    // The versions are many and named by the results that serve them: none is listed, the templates say how.
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [] }))
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: RESOURCE_TEMPLATES,
    }))
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      const found = await readResource(request.params.uri)
      // -32002: the MCP specification's "resource not found".
      if (!found)
        throw new McpError(
          -32002,
          `no resource ${request.params.uri}: kb://entries/{id}@v{n} or kb://pages/{id}@v{n} of this workspace`,
        )
      return { contents: [found] }
    })
  }
  if (withPrompts) {
    server.setRequestHandler(ListPromptsRequestSchema, async () => ({
      prompts: skills.map((s) => ({ name: s.name, description: s.description, arguments: s.arguments })),
    }))
    // Checked here rather than by the SDK, whose schema failure would answer an internal error
    // (-32603) for what is the client's invalid params (-32602).
    server.setRequestHandler(RequestSchema.extend({ method: GetPromptRequestSchema.shape.method }), async (raw) => {
      const parsed = GetPromptRequestSchema.safeParse(raw)
      if (!parsed.success)
        throw new McpError(
          ErrorCode.InvalidParams,
          `invalid prompts/get: ${parsed.error.issues.map(describeIssue).join('; ')}`,
        )
      const request = parsed.data
      const skill = skills.find((s) => s.name === request.params.name)
      if (!skill)
        throw new McpError(
          ErrorCode.InvalidParams,
          `no skill named ${request.params.name}; the skills are ${skills.map((s) => s.name).join(', ')}`,
        )
      const args = request.params.arguments ?? {}
      const missing = skill.arguments.filter((a) => a.required && !args[a.name]?.trim()).map((a) => a.name)
      if (missing.length)
        throw new McpError(
          ErrorCode.InvalidParams,
          `the skill ${skill.name} needs the argument${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
        )
      return {
        description: skill.description,
        messages: [{ role: 'user' as const, content: { type: 'text' as const, text: skill.text(args) } }],
      }
    })
  }
  return server
}

/** Checks a tool's arguments with its codec; a bad argument is VALIDATION_ERROR naming arguments.<field>. */
export const checked = async <A>(
  tool: Pick<Tool<A>, 'arguments'>,
  args: unknown,
  run: (a: A) => Promise<E.Either<DomainError, ToolOutput>>,
) => {
  const decoded = tool.arguments.decode(args)
  if (E.isLeft(decoded))
    return E.left<DomainError, ToolOutput>({
      code: 'VALIDATION_ERROR',
      message: 'the tool arguments are not valid',
      details: describeErrors(decoded.left, 'arguments.'),
    })
  return run(decoded.right)
}

/**
 * A read-only tool of a server with no session (a pack's): its arguments checked by its codec, its
 * answer encoded by its output codec (so it matches its outputSchema).
 */
export const mcpTool = <A, O>(spec: {
  name: string
  description: string
  arguments: t.Type<A, unknown, unknown>
  argumentNotes: Record<string, string>
  output: t.Type<O, unknown, unknown>
  run: (args: A) => Promise<E.Either<DomainError, O>>
}): McpTool => ({
  name: spec.name,
  description: spec.description,
  inputSchema: argumentsSchema(spec.arguments, spec.argumentNotes),
  outputSchema: outputSchemaOf(spec.output),
  annotations: READS,
  call: (args) =>
    checked({ arguments: spec.arguments }, args, async (a) =>
      E.map((data: O) => ({ data: spec.output.encode(data) }))(await spec.run(a)),
    ),
})
