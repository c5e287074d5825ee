import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type Member, type TestService, ok, seedMember, startTestService } from '../helpers/service'

// One long document beside short notes on its topic: its passages are the nearest to any question
// on that topic, hundreds of them, and must not take the vector leg's every candidate.
const test = suite<{ svc: TestService; m: Member; notes: Record<string, string>; long: string }>(
  'API: search (a long document beside short notes)',
)

const NOTES: Record<string, string> = {
  Quokkas: 'Quokkas are small wallabies that live on Rottnest Island, off Perth.',
  Wombats: 'Wombats are burrowing marsupials whose droppings are cube shaped.',
  Devils: 'Tasmanian devils are marsupials with the strongest bite for their size of any mammal.',
  Koalas: 'Koalas are marsupials that eat eucalyptus leaves and sleep most of the day.',
  Numbats: 'Numbats are marsupials that eat termites, up to twenty thousand a day.',
  Bilbies: 'Bilbies are desert marsupials with long ears that dig burrows.',
  Kangaroos: 'Kangaroos are the largest marsupials and move by hopping.',
  Possums: 'Possums are tree-dwelling marsupials found across Australia.',
}

// 1,200 lines of marsupial names with the question's own words: about 600 passages, each nearer to
// the question than any note, as in a manual that lists names page after page.
const NAMES = ['quokka', 'wombat', 'devil', 'koala', 'numbat', 'bilby', 'kangaroo', 'possum', 'marsupial']
const longDocument = () =>
  Array.from(
    { length: 1200 },
    (_, i) =>
      `Which marsupial has the strongest bite: ${NAMES[i % 9]}, ${NAMES[(i + 4) % 9]} or ${NAMES[(i + 7) % 9]}?`,
  ).join('\n')

test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
  ctx.notes = {}
  for (const [title, content] of Object.entries(NOTES)) {
    const body = { title, source: 'text', content }
    ctx.notes[title] = ok(await ctx.svc.call('POST', '/api/v1/knowledge', { token: ctx.m.token, body }), 201).id
  }
  const body = { title: 'Marsupial names', source: 'text', content: longDocument() }
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
