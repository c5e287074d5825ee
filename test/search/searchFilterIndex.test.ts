import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type Member, type TestService, ok, seedMember, startTestService } from '../helpers/service'

// A filter whose scope is too large to compare every row goes through the vector index (HNSW, scanned on until
// enough rows pass the filter). SEARCH_EXACT_ROWS=0 sends every filtered search there, so a small corpus shows
// what a million-passage one does (here more rows than the scan keeps): the answer is as full as the matches allow,
// and the same as the exact one.

type Ctx = { indexed: TestService; exact: TestService; members: Member[] }
const test = suite<Ctx>('search filters through the vector index: a full page when matches exist')

const WORDS = 'storage engine release backup storage engine release backup snapshot index'.split(' ')
/** Forty words of the topic, from the `start`th on. */
const words = (start: number) => Array.from({ length: 40 }, (_, j) => WORDS[(start + j * 3) % WORDS.length]).join(' ')
/** A long manual on the topic: many chunks, all nearer the query than any note, none in the filter's scope. */
const manual = (n: number) =>
  Array.from({ length: 48 }, (_, i) => `Section ${i} of manual ${n}. ${words(i * 7 + n)}.`).join('\n\n')

const load = async (svc: TestService, m: Member) => {
  ok(
    await svc.call('PATCH', '/api/v1/knowledge/config', {
      token: m.token,
      body: { ingestion: { chunkSize: 100, chunkOverlap: 0 } },
    }),
  )
  for (let n = 0; n < 30; n++)
    ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: m.token,
        body: { title: `Manual ${n}`, source: 'text', content: manual(n), metadata: { kind: 'manual' } },
      }),
      201,
    )
  for (let n = 0; n < 14; n++)
    ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: m.token,
        body: {
          title: `Note ${n}`,
          source: 'text',
          content: `Note ${n} lists chores: gardening, cooking, travel plans, and a backup of the photos.`,
          metadata: { kind: 'note' },
        },
      }),
      201,
    )
}

test.before(async (ctx) => {
  ctx.indexed = await startTestService({ SEARCH_EXACT_ROWS: '0' })
  ctx.exact = await startTestService()
  ctx.members = [await seedMember(ctx.indexed.call, 'owner'), await seedMember(ctx.exact.call, 'owner')]
  await Promise.all([load(ctx.indexed, ctx.members[0]), load(ctx.exact, ctx.members[1])])
})
test.after(async ({ indexed, exact }) => {
  await indexed.stop()
  await exact.stop()
})

const search = async (svc: TestService, m: Member, body: object) =>
  ok(
    await svc.call('POST', '/api/v1/knowledge/search', {
      token: m.token,
      body: { query: 'storage engine release backup', minScore: 0, ...body },
    }),
  ).results as { title: string; score: number }[]

test('the filtered vector leg fills the page from the index, as the exact comparison does', async (ctx) => {
  const [a, b] = ctx.members
  const { stats } = ok(await ctx.indexed.call('GET', '/api/v1/knowledge/stats', { token: a.token }))
  assert.ok(stats.totalChunks > 600, `a corpus the index serves (${stats.totalChunks} chunks)`)
  // Unfiltered, the manuals crowd the nearest rows; filtered, every answer is a note, and the page is full.
  for (const mode of ['vector', 'hybrid']) {
    const filter = { metadata: { kind: { eq: 'note' } } }
    const indexed = await search(ctx.indexed, a, { mode, limit: 10, filter })
    assert.is(indexed.length, 10, mode)
    assert.ok(
      indexed.every((r) => r.title.startsWith('Note ')),
      mode,
    )
    const exact = await search(ctx.exact, b, { mode, limit: 10, filter })
    // As good as the exact answer: the same scores (the notes tie, so which of them is not fixed).
    const scores = (rs: { score: number }[]) => rs.map((r) => r.score.toFixed(4)).sort()
    assert.equal(scores(indexed), scores(exact), mode)
    // Fewer matches than asked: every one of them.
    const few = await search(ctx.indexed, a, { mode, limit: 20, filter })
    assert.is(few.length, 14, mode)
  }
})

test.run()
