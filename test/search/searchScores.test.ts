import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { nameList } from '../../testkit/marsupials'
import { type Member, type TestService, ok, seedMember, startTestService } from '../helpers/service'

// A newcomer's workspace: one-line notes, then long documents beside them. A result's score is its
// own evidence's, so it means the same whatever else the workspace holds, and the defaults a user
// never changes (hybrid, 5 results, minScore 0.5) return a note that holds every word of the question.
const test = suite<{ svc: TestService; m: Member; ids: Record<string, string> }>(
  'API: search scores (a result scored on its own evidence)',
)

const NOTES: Record<string, string> = {
  Quokkas: 'Quokkas are small wallabies that live on Rottnest Island, off Perth.',
  Wombats: 'Wombats are burrowing marsupials whose droppings are cube shaped.',
  Devils: 'Tasmanian devils are marsupials with the strongest bite for their size of any mammal.',
  Bilbies: 'Bilbies are desert marsupials with long ears that dig burrows.',
  Gaskets: 'A rubber grommet seals the flange where the cable enters the housing.',
}
/** A manual's worth of lines: marsupial names in the questions' words, and a long text on another topic. */
const LONG: Record<string, string> = {
  'Marsupial names': nameList('Which marsupial lives on an island'),
  'Travel guide': Array.from(
    { length: 300 },
    (_, i) => `Day ${i}: the ferry from Perth reaches the island by noon; Perth, the island, and back to Perth.`,
  ).join('\n'),
  'Pump manual': Array.from(
    { length: 400 },
    (_, i) => `Step ${i}: check the pump's pressure gauge, then tighten the valve and log the reading.`,
  ).join('\n'),
}

test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
  ctx.ids = {}
})
test.after(async ({ svc }) => svc.stop())

const add = async (ctx: { svc: TestService; m: Member; ids: Record<string, string> }, docs: Record<string, string>) => {
  for (const [title, content] of Object.entries(docs)) {
    const body = { title, source: 'text', content }
    ctx.ids[title] = ok(await ctx.svc.call('POST', '/api/v1/knowledge', { token: ctx.m.token, body }), 201).id
  }
}
const search = async (ctx: { svc: TestService; m: Member }, body: Record<string, unknown>) =>
  ok(await ctx.svc.call('POST', '/api/v1/knowledge/search', { token: ctx.m.token, body })) as {
    mode: string
    results: Array<{ id: string; title: string; score: number }>
  }
const scoreOf = (d: { results: Array<{ id: string; score: number }> }, id: string) =>
  d.results.find((r) => r.id === id)?.score

const QUESTIONS = ['quokkas on Rottnest Island', 'which marsupial has the strongest bite']

test('a note scores the same beside long documents as among notes alone', async (ctx) => {
  await add(ctx, NOTES)
  const before = new Map<string, Record<string, number | undefined>>()
  for (const query of QUESTIONS)
    for (const mode of ['text', 'vector', 'hybrid'])
      before.set(`${mode} ${query}`, {
        Quokkas: scoreOf(await search(ctx, { query, mode, minScore: 0, limit: 20 }), ctx.ids.Quokkas),
        Devils: scoreOf(await search(ctx, { query, mode, minScore: 0, limit: 20 }), ctx.ids.Devils),
      })
  await add(ctx, LONG)
  for (const query of QUESTIONS)
    for (const mode of ['text', 'vector', 'hybrid']) {
      const d = await search(ctx, { query, mode, minScore: 0, limit: 20 })
      for (const note of ['Quokkas', 'Devils']) {
        const was = before.get(`${mode} ${query}`)![note]
        const now = scoreOf(d, ctx.ids[note])
        if (was === undefined) continue
        assert.ok(now !== undefined, `${note} still found (${mode}, "${query}")`)
        // Vector evidence is the note's own similarity; text evidence moves only with the workspace's
        // term statistics (a word's rarity, the average length), which the long documents change a little.
        if (mode === 'vector') assert.is(now, was, `${note}'s vector score (${mode}, "${query}")`)
        else assert.ok(Math.abs(now! - was) <= 0.15, `${note}: ${was} then ${now} (${mode}, "${query}")`)
      }
    }
})

test('with the defaults untouched, a note that holds every word of the question is returned', async (ctx) => {
  const cases: Array<[string, string]> = [
    ['island near Perth', 'Quokkas'],
    ['quokkas on Rottnest Island', 'Quokkas'],
    ['grommet flange', 'Gaskets'],
    ['desert marsupials', 'Bilbies'],
    ['strongest bite', 'Devils'],
  ]
  for (const [query, title] of cases) {
    const d = await search(ctx, { query })
    assert.is(d.mode, 'hybrid')
    const hit = d.results.find((r) => r.id === ctx.ids[title])
    assert.ok(hit, `"${query}" returns ${title}: ${JSON.stringify(d.results.map((r) => [r.title, r.score]))}`)
    assert.ok(hit!.score >= 0.5)
  }
})

test('a long list of names does not score as sure an answer as the note that answers', async (ctx) => {
  for (const mode of ['text', 'hybrid']) {
    const d = await search(ctx, { query: 'which marsupial has the strongest bite', mode, minScore: 0, limit: 10 })
    const devils = scoreOf(d, ctx.ids.Devils)!
    const list = scoreOf(d, ctx.ids['Marsupial names']) ?? 0
    assert.ok(devils > list, `${mode}: Devils ${devils}, the list ${list}`)
    assert.ok(list < 0.99, `${mode}: the list scores ${list}`)
  }
})

test.run()
