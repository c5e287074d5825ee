import { randomUUID } from 'node:crypto'
import type Router from '@koa/router'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  McpError,
  RequestSchema,
} from '@modelcontextprotocol/sdk/types.js'
import * as E from 'fp-ts/Either'
import type { Context } from 'koa'
import type { DomainError } from '../domain/shared'
import { authenticate, authorize } from './auth'
import { readJson } from './body'
import type { Deps } from './deps'
import { ApiError } from './errors'
import { characters } from './codecs'
import { inputProblems } from './route'
import { skills } from './skills'
import { type Tool, type ToolOutput, mcpName, runTool, tools } from './tools'
import { endMcpSession, mcpSessionClient, openMcpSession } from '../adapters/mcpSessions'
import { nextStepOf } from './tools/nextStep'
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

/** A tool's answer as text too, for clients that read no structuredContent (compact: it costs the agent tokens). */
const text = (value: unknown) => [{ type: 'text' as const, text: JSON.stringify(value) }]

/** A failure an agent can act on: the envelope's code, message and details, and the next step. */
export const toolError = (tool: string, error: DomainError) => ({
  isError: true,
  content: text({ ...error, nextStep: nextStepOf(tool, error) }),
})

/**
 * An MCP server over the given tools (and, for workspace sessions, the skills as prompts). A tool's
 * expected failure is a tool result with isError and the envelope's code, message and details.
 */
/** A schema failure of a request's params, named by its path under params. */
const describeIssue = (i: { path: PropertyKey[]; message: string }) =>
  `params.${i.path.slice(1).map(String).join('.')}: ${i.message}`

export const mcpServer = (
  deps: Deps,
  name: string,
  served: McpTool[],
  withPrompts: boolean,
  /** The author of the session's writes: the client name its `initialize` gave. */
  client: () => string,
) => {
  const server = new Server(
    { name, version: '0.1.0' },
    { capabilities: { tools: {}, ...(withPrompts ? { prompts: {} } : {}) } },
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
    if (E.isLeft(result)) return toolError(tool.name, result.left)
    if (result.right.position) await deps.runner.waitFor(result.right.position, deps.config.readYourWritesTimeoutMs)
    const data = result.right.data as Record<string, unknown>
    return { content: text(data), structuredContent: data }
  })
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
 * `/mcp`: MCP over Streamable HTTP, every request authenticated by x-api-key. A session is opened
 * by `initialize` and bound to its key (and so to the key's workspace); its client name, given at
 * initialize, is the author of its writes. Sessions live in the database (adapters/mcpSessions.ts)
 * and every request is served by a server and transport of its own, so any API process answers
 * any request of a session. Answers are JSON; there is no server-to-client stream (GET is 405),
 * as the tools and prompts send no notifications. Sessions idle for an hour are gone (the
 * scheduler's sweep removes their rows).
 */
export const mountMcp = (router: Router, deps: Deps) => {
  const db = deps.db.pool

  const handler = async (ctx: Context) => {
    const identity = await authenticate(deps, ctx, 'apiKey')
    if (identity.kind !== 'apiKey') throw new Error('an API key identity')
    const sessionId = ctx.get('mcp-session-id')
    if (ctx.method === 'DELETE') {
      if (!sessionId || !(await endMcpSession(db, sessionId, identity.keyId)))
        throw new ApiError('NOT_FOUND', 'no such MCP session for this key')
      ctx.status = 200
      ctx.body = ''
      return
    }
    await readJson(ctx)
    const body = (ctx.request as { body?: unknown }).body
    const problems = inputProblems(body, '', [])
    // The client's name at initialize is the author of every write of its session.
    const initialize = (Array.isArray(body) ? body : [body]).find(
      (m) => (m as { method?: unknown })?.method === 'initialize',
    ) as { params?: { clientInfo?: { name?: unknown } } } | undefined
    const name = initialize?.params?.clientInfo?.name
    if (initialize && !(typeof name === 'string' && name.trim() && characters(name) <= 200))
      problems.push("params.clientInfo.name: must be the client's name, 1-200 characters")
    if (!initialize && !sessionId)
      problems.push('Mcp-Session-Id: send the id the initialize answer gave (or initialize a session first)')
    if (problems.length) throw new ApiError('VALIDATION_ERROR', 'the request is not valid', problems)
    let client: string
    if (initialize) {
      const id = randomUUID()
      client = name as string
      await openMcpSession(db, id, identity.keyId, client)
      ctx.set('mcp-session-id', id)
    } else {
      const known = await mcpSessionClient(db, sessionId, identity.keyId)
      if (known === undefined) throw new ApiError('NOT_FOUND', 'no such MCP session for this key; initialize a new one')
      client = known
    }
    const served: McpTool[] = tools.map((tool) => ({
      name: mcpName(tool),
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: tool.annotations,
      call: (args, author) =>
        checked(tool, args, async (a) => {
          authorize(identity, tool.permission)
          const command = {
            actor: { kind: 'agent' as const, client: author },
            at: new Date().toISOString(),
            correlationId: randomUUID(),
            workspaceId: identity.workspaceId,
          }
          return runTool(
            deps,
            tool,
            { workspaceId: identity.workspaceId, client: author, keyId: identity.keyId, command },
            a,
          )
        }),
    }))
    const server = mcpServer(deps, 'kb-service', served, true, () => client)
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    ctx.res.on('close', () => {
      void transport.close()
      void server.close()
    })
    await server.connect(transport)
    ctx.respond = false
    await transport.handleRequest(ctx.req, ctx.res, body)
  }
  const noStream = async (ctx: Context) => {
    await authenticate(deps, ctx, 'apiKey')
    ctx.set('Allow', 'POST, DELETE')
    throw new ApiError('METHOD_NOT_ALLOWED', 'this MCP server sends no server-to-client stream; POST requests to /mcp')
  }
  // POST carries JSON-RPC; DELETE ends the session.
  router.post('/mcp', handler)
  router.get('/mcp', noStream)
  router.delete('/mcp', handler)
  return {
    close: async () => undefined,
  }
}
