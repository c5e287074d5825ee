import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { MARSUPIAL_NOTES } from '../../testkit/marsupials'
import { type Member, type TestService, ok, seedMember, startTestService } from '../helpers/service'

// A long entry's rows are written in parts, each its own transaction on PGlite, and searches run
// between them: what they find must still be whole.
const test = suite<{ svc: TestService; m: Member }>('API: search while a long entry is written (its rows go in parts)')

const WORDS = 'river stone moss fern cedar lantern harbour orchard meadow quarry'.split(' ')
/** About `chars` characters of sentences, each naming the zyzzyva once. */
const longText = (chars: number) => {
  let text = ''
  for (let i = 0; text.length < chars; i++)
    text += `The zyzzyva rests by the ${WORDS[i % WORDS.length]} near the ${WORDS[(i * 7 + 3) % WORDS.length]} ${i}. `
  return text
}

test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
  for (const [title, content] of Object.entries(MARSUPIAL_NOTES)) {
    const body = { title, source: 'text', content }
    ok(await ctx.svc.call('POST', '/api/v1/knowledge', { token: ctx.m.token, body }), 201)
  }
})
test.after(async ({ svc }) => svc.stop())

const search = async (ctx: { svc: TestService; m: Member }, query: string, mode: string) =>
  ok(
    await ctx.svc.call('POST', '/api/v1/knowledge/search', {
      token: ctx.m.token,
      body: { query, mode, limit: 20, minScore: 0 },
    }),
  ).results.map((r: { id: string }) => r.id) as string[]

/** Searches one after another until `write` settles; answers the write's result and every search's ids. */
const searchWhile = async <T>(ctx: { svc: TestService; m: Member }, write: Promise<T>, query: string, mode: string) => {
  let done = false
  const written = write.finally(() => {
    done = true
  })
  const found: string[][] = []
  while (!done) found.push(await search(ctx, query, mode))
  return { written: await written, found }
}

test('while a long entry is created, every entry a search found before is found', async (ctx) => {
  const before = await search(ctx, 'marsupial', 'hybrid')
  assert.ok(before.length >= 5, 'the notes are found')
  const body = { title: 'Field notes', source: 'text', content: longText(60_000) }
  const { written, found } = await searchWhile(
    ctx,
    ctx.svc.call('POST', '/api/v1/knowledge', { token: ctx.m.token, body }),
    'marsupial',
    'hybrid',
  )
  ok(written, 201)
  assert.ok(found.length > 0)
  for (const ids of found)
    assert.equal(
      before.filter((id) => !ids.includes(id)),
      [],
      'none is missing',
    )
})

test('while a long entry is rewritten, each search finds it, by its words and by its meaning', async (ctx) => {
  const body = { title: 'Zyzzyva sightings', source: 'text', content: longText(60_000) }
  const id = ok(await ctx.svc.call('POST', '/api/v1/knowledge', { token: ctx.m.token, body }), 201).id
  const chunks = ok(await ctx.svc.call('GET', `/api/v1/knowledge/${id}/chunks`, { token: ctx.m.token }))
  assert.ok(chunks.items.length >= 20, 'the entry is long')
  for (const mode of ['text', 'vector']) {
    // Words added at the start move every chunk and passage: each row is written again.
    const content = `Seen again in spring (${mode}). ${longText(60_000)}`
    const patch = ctx.svc.call('PATCH', `/api/v1/knowledge/${id}`, { token: ctx.m.token, body: { content } })
    const { written, found } = await searchWhile(ctx, patch, 'zyzzyva sightings', mode)
    ok(written)
    assert.ok(found.length > 0)
    for (const ids of found) assert.ok(ids.includes(id), `${mode}: the entry is found throughout`)
  }
  const after = ok(await ctx.svc.call('GET', `/api/v1/knowledge/${id}/chunks`, { token: ctx.m.token }))
  assert.ok(after.items[0].content.startsWith('Seen again in spring (vector).'), 'the last edit stands')
  // Whole: no row of the text before it is left over.
  assert.equal(
    after.items.map((c: { index: number }) => c.index),
    after.items.map((_: unknown, i: number) => i),
  )
})

test.run()
