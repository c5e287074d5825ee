import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import Ajv from 'ajv'
import * as assert from 'uvu/assert'
import { newKey } from './agents'
import { type Member, type TestService, ok, seedMember, startTestService } from './service'

// The MCP suites' context, hooks and SDK client: tools listed with their schemas, answers checked against them.

export interface Ctx {
  svc: TestService
  m: Member
  key: string
  clients: Client[]
}

export const connect = async (ctx: Ctx, path: string, key?: string) => {
  const client = new Client({ name: 'schema-checker', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(ctx.svc.url + path), {
      requestInit: { headers: key ? { 'x-api-key': key } : {} },
    }),
  )
  ctx.clients.push(client)
  return client
}

/** A sentence about a topic, so every entry matches the query and its chunks are full. */
export const filler = (topic: string, n: number) =>
  Array.from(
    { length: n },
    (_, i) => `Note ${i} on ${topic}: the relay station logs its readings every hour and keeps them for a year.`,
  ).join(' ')

/** The MCP suites' before-hook: an owner, an agent's key, and entries about relay stations. */
export const startWithRelayEntries = async (ctx: Ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
  ctx.key = (await newKey(ctx.svc.call, ctx.m.workspaceId, 'schema-agent')).api_key
  ctx.clients = []
  // Five entries of one 1,000-token chunk each (and more), all about the query.
  for (let i = 0; i < 6; i++) {
    ok(
      await ctx.svc.call('POST', '/api/v1/knowledge', {
        token: ctx.m.token,
        body: {
          source: 'text',
          title: `Relay station manual ${i}`,
          content: filler(`relay station ${i}`, 120),
          chunkingOptions: { chunkSizeTokens: 1000, overlapTokens: 0 },
        },
      }),
      201,
    )
  }
}

/** The MCP suites' after-hook. */
export const closeAll = async ({ svc, clients }: Ctx) => {
  await Promise.all(clients.map((c) => c.close()))
  await svc.stop()
}

/** Every property of a JSON Schema, nested objects and array items included, with where it is. */
const properties = (schema: any, at: string): Array<[string, any]> => {
  const own = Object.entries<any>(schema?.properties ?? {}).map(([k, v]): [string, any] => [`${at}.${k}`, v])
  return own.flatMap(([where, s]) => [
    [where, s] as [string, any],
    ...properties(s, where),
    ...properties(s.items, `${where}[]`),
  ])
}

const ajv = new Ajv({ strict: false })

/** Calls a tool and checks its structuredContent against the outputSchema the tool listed. */
export const call = async (client: Client, outputs: Map<string, any>, name: string, args: Record<string, unknown>) => {
  const result = (await client.callTool({ name, arguments: args })) as any
  assert.not.ok(result.isError, `${name}: ${JSON.stringify(result.content)}`)
  const validate = ajv.compile(outputs.get(name))
  assert.ok(validate(result.structuredContent), `${name}: ${JSON.stringify(validate.errors)}`)
  // Older clients read the text content: the same answer.
  assert.equal(JSON.parse(result.content[0].text), result.structuredContent)
  return result.structuredContent
}

export const described = async (client: Client) => {
  const listed = (await client.listTools()).tools
  for (const t of listed) {
    assert.ok(t.description && t.description.length > 40, `${t.name} says when to use it`)
    assert.ok(t.outputSchema, `${t.name} has an outputSchema`)
    for (const [where, s] of [...properties(t.inputSchema, 'input'), ...properties(t.outputSchema, 'output')])
      assert.ok(typeof s.description === 'string' && s.description.length > 5, `${t.name} ${where} is described`)
    const a = t.annotations ?? {}
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const)
      assert.type(a[hint], 'boolean', `${t.name} declares ${hint}`)
  }
  return new Map(listed.map((t) => [t.name, t.outputSchema]))
}
