import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { MARSUPIAL_NOTES, nameList } from '../../testkit/marsupials'
import { type Member, type TestService, ok, seedMember, startTestService } from '../helpers/service'

// One long document beside short notes on its topic: its passages are the nearest to any question
// on that topic, hundreds of them, and must not take the vector leg's every candidate.
const test = suite<{ svc: TestService; m: Member; notes: Record<string, string>; long: string }>(
  'API: search (a long document beside short notes)',
)

const NOTES = MARSUPIAL_NOTES

test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
  ctx.notes = {}
  for (const [title, content] of Object.entries(NOTES)) {
    const body = { title, source: 'text', content }
    ctx.notes[title] = ok(await ctx.svc.call('POST', '/api/v1/knowledge', { token: ctx.m.token, body }), 201).id
  }
  const body = { title: 'Marsupial names', source: 'text', content: nameList() }
  ctx.long = ok(await ctx.svc.call('POST', '/api/v1/knowledge', { token: ctx.m.token, body }), 201).id
})
test.after(async ({ svc }) => svc.stop())

const vectorSearch = async (ctx: { svc: TestService; m: Member }, query: string, asOf?: string) =>
  ok(
    await ctx.svc.call('POST', '/api/v1/knowledge/search', {
      token: ctx.m.token,
      body: { query, mode: 'vector', limit: 10, minScore: 0, ...(asOf ? { asOf } : {}) },
    }),
  )

test('in vector mode every note is still found beside the long document', async (ctx) => {
  const passages = ok(await ctx.svc.call('GET', `/api/v1/knowledge/${ctx.long}/chunks`, { token: ctx.m.token }))
  assert.ok(passages.items.length >= 10, 'the long document is long')
  const d = await vectorSearch(ctx, 'which marsupial has the strongest bite')
  assert.is(d.mode, 'vector')
  const found = new Set(d.results.map((r: { id: string }) => r.id))
  for (const [title, id] of Object.entries(ctx.notes)) assert.ok(found.has(id), `${title} is found`)
  assert.ok(found.has(ctx.long), 'and the long document')
  assert.is(d.results.length, 9)
})

test('the same as of a past moment, read from the history', async (ctx) => {
  const d = await vectorSearch(ctx, 'which marsupial has the strongest bite', new Date().toISOString())
  const found = new Set(d.results.map((r: { id: string }) => r.id))
  for (const [title, id] of Object.entries(ctx.notes)) assert.ok(found.has(id), `${title} is found as of now`)
})

test('hybrid keeps every note too', async (ctx) => {
  const d = ok(
    await ctx.svc.call('POST', '/api/v1/knowledge/search', {
      token: ctx.m.token,
      body: { query: 'which marsupial has the strongest bite', mode: 'hybrid', limit: 10, minScore: 0 },
    }),
  )
  const found = new Set(d.results.map((r: { id: string }) => r.id))
  for (const [title, id] of Object.entries(ctx.notes)) assert.ok(found.has(id), `${title} is found`)
})

test.run()
