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

export const mcpServer = (deps: Deps, name: string, served: McpTool[], withPrompts: boolean) => {
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
    const result = await tool.call(request.params.arguments ?? {}, server.getClientVersion()?.name ?? 'unknown-client')
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

interface Session {
  transport: StreamableHTTPServerTransport
  keyId: string
  lastSeen: number
}

const IDLE_MS = 60 * 60 * 1000

/**
 * `/mcp`: MCP over Streamable HTTP, every request authenticated by x-api-key. A session is opened
 * by `initialize` and bound to its key (and so to the key's workspace); its client name, given at
 * initialize, is the author of its writes. Sessions idle for an hour are closed.
 */
export const mountMcp = (router: Router, deps: Deps) => {
  const sessions = new Map<string, Session>()
  const sweeper = setInterval(() => {
    for (const s of sessions.values()) if (Date.now() - s.lastSeen > IDLE_MS) void s.transport.close()
  }, 60_000)
  sweeper.unref()

  const handler = async (ctx: Context) => {
    const identity = await authenticate(deps, ctx, 'apiKey')
    if (identity.kind !== 'apiKey') throw new Error('an API key identity')
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
    if (problems.length) throw new ApiError('VALIDATION_ERROR', 'the request is not valid', problems)
    const sessionId = ctx.get('mcp-session-id')
    let session = sessionId ? sessions.get(sessionId) : undefined
    if (sessionId && (!session || session.keyId !== identity.keyId))
      throw new ApiError('NOT_FOUND', 'no such MCP session for this key; initialize a new one')
    if (!session) {
      const served: McpTool[] = tools.map((tool) => ({
        name: mcpName(tool),
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: tool.annotations,
        call: (args, client) =>
          checked(tool, args, async (a) => {
            authorize(identity, tool.permission)
            const command = {
              actor: { kind: 'agent' as const, client },
              at: new Date().toISOString(),
              correlationId: randomUUID(),
              workspaceId: identity.workspaceId,
            }
            return runTool(deps, tool, { workspaceId: identity.workspaceId, client, keyId: identity.keyId, command }, a)
          }),
      }))
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (id) => {
          sessions.set(id, { transport, keyId: identity.keyId, lastSeen: Date.now() })
        },
      })
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId)
      }
      await mcpServer(deps, 'kb-service', served, true).connect(transport)
      session = { transport, keyId: identity.keyId, lastSeen: Date.now() }
    }
    session.lastSeen = Date.now()
    ctx.respond = false
    await session.transport.handleRequest(ctx.req, ctx.res, body)
  }
  // POST carries JSON-RPC; GET opens the session's server-to-client stream; DELETE ends the session.
  router.post('/mcp', handler)
  router.get('/mcp', handler)
  router.delete('/mcp', handler)
  return {
    close: async () => {
      clearInterval(sweeper)
      await Promise.all([...sessions.values()].map((s) => s.transport.close()))
    },
  }
}
