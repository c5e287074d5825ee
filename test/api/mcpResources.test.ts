import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { newKey } from '../helpers/agents'
import { type Member, type TestService, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService; m: Member; client: Client }>(
  'MCP: tool results link the versions they served, and resources/read reads them',
)
test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
  const key = (await newKey(ctx.svc.call, ctx.m.workspaceId, 'linker')).api_key
  ctx.client = new Client({ name: 'linker', version: '1.0.0' })
  await ctx.client.connect(
    new StreamableHTTPClientTransport(new URL(`${ctx.svc.url}/mcp`), {
      requestInit: { headers: { 'x-api-key': key } },
    }),
  )
})
test.after(async ({ svc, client }) => {
  await client.close()
  await svc.stop()
})

type Link = { type: string; uri: string; name: string; mimeType: string }
const linksOf = (result: unknown) => (result as { content: Link[] }).content.filter((c) => c.type === 'resource_link')
const textOf = async (client: Client, uri: string) => {
  const { contents } = await client.readResource({ uri })
  return (contents[0] as { text: string }).text
}

test('kb_search links each entry at the version it served; each version reads as it was', async ({
  svc,
  m,
  client,
}) => {
  const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
  const e = ok(
    await call('POST', '/api/v1/knowledge', { title: 'Bilbies', content: 'Bilbies dig burrows.', source: 'text' }),
    201,
  )
  ok(await call('PATCH', `/api/v1/knowledge/${e.id}`, { content: 'Bilbies dig spiral burrows in the desert.' }))
  const found = await client.callTool({ name: 'kb_search', arguments: { query: 'bilbies burrows', minScore: 0 } })
  const hit = (found.structuredContent as { results: { id: string; version: number }[] }).results[0]
  assert.is(hit.id, e.id)
  assert.is(hit.version, 2)
  assert.equal(linksOf(found), [
    { type: 'resource_link', uri: `kb://entries/${e.id}@v2`, name: 'Bilbies', mimeType: 'text/markdown' },
  ])
  assert.is(await textOf(client, `kb://entries/${e.id}@v2`), 'Bilbies dig spiral burrows in the desert.')
  assert.is(await textOf(client, `kb://entries/${e.id}@v1`), 'Bilbies dig burrows.')
  const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)
  assert.equal(templates, ['kb://entries/{id}@v{version}', 'kb://pages/{id}@v{version}'])
})

test('page_search and page_read link pages at their versions', async ({ svc, m, client }) => {
  const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
  const p = ok(await call('POST', '/api/v1/pages', { title: 'Numbat care', content: 'Numbats eat termites.' }), 201)
  await client.callTool({
    name: 'page_write',
    arguments: { title: 'Numbat care', mode: 'append', content: 'Up to 20,000 a day.' },
  })
  const found = await client.callTool({ name: 'page_search', arguments: { query: 'numbats termites', minScore: 0 } })
  assert.equal(
    linksOf(found).map((l) => l.uri),
    [`kb://pages/${p.id}@v2`],
  )
  assert.match(await textOf(client, `kb://pages/${p.id}@v2`), /20,000 a day/)
  const first = await client.callTool({ name: 'page_read', arguments: { title: 'Numbat care', version: 1 } })
  assert.equal(
    linksOf(first).map((l) => [l.uri, l.name]),
    [[`kb://pages/${p.id}@v1`, 'Numbat care']],
  )
  assert.is(await textOf(client, `kb://pages/${p.id}@v1`), 'Numbats eat termites.')
})

test("a version that is not there, another workspace's, or a malformed URI is resource-not-found", async ({
  svc,
  client,
}) => {
  const other = await seedMember(svc.call, 'owner')
  const theirs = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: other.token,
      body: { title: 'Secret', content: 'Not yours.', source: 'text' },
    }),
    201,
  )
  for (const uri of [
    `kb://entries/${theirs.id}@v1`,
    'kb://entries/nope@v1',
    'kb://pages/x@v0',
    'https://example.com/',
  ]) {
    const error = await client.readResource({ uri }).then(
      () => undefined,
      (e: { code: number; message: string }) => e,
    )
    assert.is(error?.code, -32002, uri)
    assert.match(error!.message, /no resource/)
  }
})

test.run()
