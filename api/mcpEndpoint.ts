import { randomUUID } from 'node:crypto'
import type Router from '@koa/router'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { Context } from 'koa'
import { endMcpSession, mcpSessionClient, openMcpSession } from '../adapters/mcpSessions'
import { mcpResourceOf, issuerOf, resourceMetadataUrl } from './accounts'
import { permissionsOf } from '../domain/shared'
import { authenticateAgent } from './auth'
import { originOf } from './route'
import { readJson } from './body'
import { characters } from './codecs'
import type { Deps } from './deps'
import { ApiError } from './errors'
import { type McpTool, checked, mcpServer } from './mcp'
import { readResource } from './mcpResources'
import { inputProblems } from './validation'
import { type Tool, mcpName, runTool } from './tools'

/**
 * `/mcp`: MCP over Streamable HTTP, every request authenticated by x-api-key. A session is opened
 * by `initialize` and bound to its key (and so to the key's workspace); its client name, given at
 * initialize, is the author of its writes. Sessions live in the database (adapters/mcpSessions.ts)
 * and every request is served by a server and transport of its own, so any API process answers
 * any request of a session. Answers are JSON; there is no server-to-client stream (GET is 405),
 * as the tools and prompts send no notifications. Sessions idle for an hour are gone (the
 * scheduler's sweep removes their rows).
 */
export const mountMcp = (router: Router, deps: Deps, tools: Tool[]) => {
  const db = deps.db.pool

  /**
   * The caller, or a 401 that tells an OAuth client where to find how to sign in (RFC 9728's resource_metadata).
   */
  const agent = async (ctx: Context) => {
    const issuer = issuerOf(deps, originOf(ctx))
    try {
      const identity = await authenticateAgent(deps, ctx, mcpResourceOf(issuer))
      if (identity.kind !== 'apiKey') throw new Error('an agent identity')
      return identity
    } catch (error) {
      if (!(error instanceof ApiError) || (error.code !== 'UNAUTHORIZED' && error.code !== 'INVALID_TOKEN')) throw error
      const invalid = error.code === 'INVALID_TOKEN' ? ', error="invalid_token"' : ''
      throw new ApiError(error.code, error.message, error.details, {
        'WWW-Authenticate': `Bearer resource_metadata="${resourceMetadataUrl(issuer)}"${invalid}`,
      })
    }
  }

  const handler = async (ctx: Context) => {
    const identity = await agent(ctx)
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
    // A session sees the tools its access may call: a grant of kb:read alone reads.
    const allowed = tools.filter((tool) => permissionsOf(identity.role).includes(tool.permission))
    const served: McpTool[] = allowed.map((tool) => ({
      name: mcpName(tool),
      description: tool.description,
      inputSchema: tool.inputSchema,
      outputSchema: tool.outputSchema,
      annotations: tool.annotations,
      call: (args, author) =>
        checked(tool, args, async (a) => {
          const command = {
            actor: { kind: 'agent' as const, client: author, keyId: identity.keyId },
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
    const server = mcpServer(
      deps,
      'kb-service',
      served,
      true,
      () => client,
      async (uri) => {
        const found = await readResource(deps, identity.workspaceId, uri)
        return found && { uri: found.uri, mimeType: found.mimeType, text: found.text }
      },
    )
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
    await agent(ctx)
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
