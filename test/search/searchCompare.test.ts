import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { newKey } from '../helpers/agents'
import { type Ctx as McpCtx, call, connect, described } from '../helpers/mcpClient'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

type Ctx = { svc: TestService; m: Member; ids: Record<string, string>; from: number; receipt: string; folder: string }
const test = suite<Ctx>('API: why did this answer change: one search compared at two moments')

const NOTES: Record<string, string> = {
  platypus: 'The platypus is a mammal that lays eggs in a burrow.',
  echidna: 'The echidna is a mammal that lays eggs and keeps one in a pouch.',
  wombat: 'The wombat is a mammal that lays eggs? No: it carries its young in a pouch, yet mammal eggs are asked.',
  quokka: 'The quokka is a small mammal of Rottnest Island.',
}
const QUERY = { query: 'mammal lays eggs', mode: 'text', minScore: 0, limit: 10 }

test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
  ctx.ids = {}
  for (const [title, content] of Object.entries(NOTES)) {
    const body = { title, source: 'text', content, metadata: { zone: 'au' } }
    ctx.ids[title] = ok(await ctx.svc.call('POST', '/api/v1/knowledge', { token: ctx.m.token, body }), 201).id
  }
  const folder = { token: ctx.m.token, body: { name: 'Islands' } }
  ctx.folder = ok(await ctx.svc.call('POST', '/api/v1/knowledge/folders', folder), 201).id
  // The moment compared from: the position a search answered at.
  const answer = ok(await ctx.svc.call('POST', '/api/v1/knowledge/search', { token: ctx.m.token, body: QUERY }))
  ctx.from = answer.receipt.position
  ctx.receipt = answer.receipt.id
  const call = (method: string, path: string, body?: object) => ctx.svc.call(method, path, { token: ctx.m.token, body })
  // Between the moments: an edit that takes the echidna off the topic, a deletion, a new entry, a metadata change,
  // and the workspace's search settings.
  ok(await call('PATCH', `/api/v1/knowledge/${ctx.ids.echidna}`, { content: 'The echidna eats ants and termites.' }))
  ok(await call('DELETE', `/api/v1/knowledge/${ctx.ids.wombat}`))
  const body = {
    title: 'kiwi',
    source: 'text',
    content: 'The kiwi is a bird that lays eggs, not a mammal that lays eggs.',
  }
  ctx.ids.kiwi = ok(await call('POST', '/api/v1/knowledge', body), 201).id
  ok(await call('PATCH', `/api/v1/knowledge/${ctx.ids.quokka}`, { metadata: { zone: 'wa' } }))
  ok(await call('POST', `/api/v1/knowledge/${ctx.ids.quokka}/move`, { folderId: ctx.folder }))
  ok(await call('PATCH', '/api/v1/knowledge/config', { search: { defaultLimit: 7 } }))
})
test.after(async ({ svc }) => svc.stop())

const compare = (ctx: Ctx, body: object) =>
  ctx.svc.call('POST', '/api/v1/knowledge/search/compare', { token: ctx.m.token, body: { ...QUERY, ...body } })

test('each entry that entered, left, rose or fell, with the events that moved it', async (ctx) => {
  const r = ok(await compare(ctx, { from: `pos:${ctx.from}` }))
  assert.is(r.from.position, ctx.from)
  assert.ok(r.to.position > ctx.from)
  const titles = (xs: { title: string }[]) => xs.map((x) => x.title).sort()
  // A deleted entry's content is never served again, as of any moment: it is listed as deleted between them.
  assert.equal(titles(r.before), ['echidna', 'platypus', 'quokka'])
  assert.equal(
    r.deleted.map((d: any) => [d.id, d.title]),
    [[ctx.ids.wombat, 'wombat']],
  )
  assert.equal(titles(r.after), ['kiwi', 'platypus', 'quokka'].sort())
  const moved = new Map<string, any>(r.moved.map((m: { title: string }) => [m.title, m]))
  assert.is(moved.get('kiwi').movement, 'entered')
  assert.equal(moved.get('kiwi').before, null)
  assert.equal(
    moved.get('kiwi').because.map((b: any) => b.causes),
    [['created']],
  )
  assert.is(moved.get('echidna').movement, 'left')
  assert.equal(
    moved.get('echidna').because.map((b: any) => [b.type, b.causes]),
    [['EntryUpdated', ['edited']]],
  )
  // The platypus fell below the kiwi with no event of its own; the quokka kept its place, and is not listed.
  assert.equal([moved.get('platypus').movement, moved.get('platypus').because], ['fell', []])
  assert.equal([moved.get('platypus').before.rank, moved.get('platypus').after.rank], [1, 2])
  assert.not.ok(moved.has('quokka'))
  // The workspace's settings changed every search.
  assert.equal(
    r.workspace.map((b: any) => [b.type, b.causes]),
    [['KbConfigChanged', ['settings']]],
  )
  for (const b of [...r.workspace, ...r.moved.flatMap((m: any) => m.because)])
    assert.ok(b.position > ctx.from && b.position <= r.to.position && b.time)
})

test('a metadata change that moves an entry out of a filter is named', async (ctx) => {
  const r = ok(await compare(ctx, { from: `pos:${ctx.from}`, filter: { metadata: { zone: { eq: 'au' } } } }))
  const quokka = r.moved.find((m: { title: string }) => m.title === 'quokka')
  assert.is(quokka.movement, 'left')
  assert.equal(
    quokka.because.map((b: any) => b.causes),
    [['metadata'], ['moved']],
  )
  // Moved into a folder: it enters the folder's answer.
  const inFolder = ok(await compare(ctx, { from: `pos:${ctx.from}`, folderId: ctx.folder }))
  assert.equal(
    inFolder.moved.map((m: any) => [m.title, m.movement, m.because.map((b: any) => b.causes)]),
    [['quokka', 'entered', [['metadata'], ['moved']]]],
  )
  // A moment to another moment: nothing between them, nothing moved.
  const same = ok(await compare(ctx, { from: `pos:${ctx.from}`, to: `pos:${ctx.from}` }))
  assert.equal([same.moved, same.workspace, same.deleted], [[], [], []])
  assert.equal(same.before, same.after)
})

test("a receipt's answer compared with now: its search asked again as it was, from when it answered", async (ctx) => {
  const path = `/api/v1/receipts/${encodeURIComponent(ctx.receipt)}/compare`
  let r = await ctx.svc.call('GET', path, { token: ctx.m.token })
  // The search's record reaches the log just after its answer: until then, the receipt says to ask again.
  for (let i = 0; i < 50 && r.status === 409; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    r = await ctx.svc.call('GET', path, { token: ctx.m.token })
  }
  const compared = ok(r)
  assert.is(compared.from.position, ctx.from)
  const direct = ok(await compare(ctx, { from: `pos:${ctx.from}` }))
  assert.equal(compared.moved, direct.moved)
  assert.equal(compared.before, direct.before)
  const other = await seedMember(ctx.svc.call, 'owner')
  await expectError(await ctx.svc.call('GET', path, { token: other.token }), 404, 'NOT_FOUND')
  await expectError(
    await ctx.svc.call('GET', '/api/v1/receipts/nonsense/compare', { token: ctx.m.token }),
    404,
    'NOT_FOUND',
  )
})

test('kb_compare answers the same through MCP, and is described', async (ctx) => {
  const key = (await newKey(ctx.svc.call, ctx.m.workspaceId, 'comparer')).api_key
  const mcp: McpCtx = { svc: ctx.svc, m: ctx.m, key, clients: [] }
  try {
    const client = await connect(mcp, '/mcp', key)
    const outputs = await described(client)
    const r = await call(client, outputs, 'kb_compare', { ...QUERY, from: `pos:${ctx.from}` })
    assert.equal(r.moved.map((m: { title: string; movement: string }) => [m.title, m.movement]).sort(), [
      ['echidna', 'left'],
      ['kiwi', 'entered'],
      ['platypus', 'fell'],
    ])
    const refused = (await client.callTool({ name: 'kb_compare', arguments: { query: 'x', from: 'then' } })) as {
      isError?: boolean
      content: { text: string }[]
    }
    assert.ok(refused.isError)
    assert.match(refused.content[0].text, /from: must be a log position/)
  } finally {
    await Promise.all(mcp.clients.map((c) => c.close()))
  }
})

test('moments out of order or unknown are refused, naming the field', async (ctx) => {
  const later = ok(await compare(ctx, { from: `pos:${ctx.from}` })).to.position
  const r = await compare(ctx, { from: `pos:${later}`, to: `pos:${ctx.from}` })
  assert.match(
    JSON.stringify((await expectError(r, 400, 'VALIDATION_ERROR')).details),
    /from: a moment at or before to/,
  )
  const bad = await compare(ctx, { from: 'yesterday' })
  assert.match(
    JSON.stringify((await expectError(bad, 400, 'VALIDATION_ERROR')).details),
    /from: must be a log position/,
  )
  const missing = await ctx.svc.call('POST', '/api/v1/knowledge/search/compare', {
    token: ctx.m.token,
    body: { query: 'x' },
  })
  assert.match(JSON.stringify((await expectError(missing, 400, 'VALIDATION_ERROR')).details), /from: is required/)
})

test.run()
