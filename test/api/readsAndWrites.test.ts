// Reads never wait for the model: what is written is embedded before its event is appended, and
// a projection only reads vectors from the cache; a text it finds no vector for is filled in
// later by the embedding filler, off every transaction.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { newKey, tool } from '../helpers/agents'
import { type Member, type TestService, ok, seedMember, startTestService } from '../helpers/service'
import { until } from '../helpers/until'

const test = suite<{ svc: TestService; m: Member }>('reads and writes: no read waits for the model')
test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
})
test.after(async ({ svc }) => svc.stop())

/** The service's embedder, with its calls on long texts (a page, not a query) held until released. */
const gateLongTexts = (svc: TestService, onLong: (texts: string[]) => Promise<void>) => {
  const embedder = svc.deps.embedder
  const embed = embedder.embed.bind(embedder)
  embedder.embed = async (texts: string[]) => {
    if (texts.some((t) => t.length > 5000)) await onLong(texts)
    return embed(texts)
  }
  return () => void (embedder.embed = embed)
}

test('a 500,000-character page written while 20 searches run: every search answers while it is embedded', async ({
  svc,
  m,
}) => {
  const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
  ok(
    await call('POST', '/api/v1/knowledge', { title: 'Wombats', content: 'Wombats dig burrows.', source: 'text' }),
    201,
  )
  const key = (await newKey(svc.call, m.workspaceId, 'compiler')).api_key
  // 500,000 characters: a write takes 100,000 at most, so four appends follow the first. A version's
  // vector reads the page's head, which appends keep: the cache is emptied before the last append,
  // so that its version is embedded again.
  const part = (i: number) =>
    `Part ${i}. ${'Echidnas are monotremes that lay eggs and eat ants. '.repeat(1920)}`.slice(0, 100_000)
  const page = ok(await call('POST', '/api/v1/pages', { title: 'Echidna compendium', content: part(0) }), 201)
  for (let i = 1; i < 4; i++) ok(await tool(svc.call, key, 'page_write', { pageId: page.id, content: part(i) }))
  await svc.deps.db.pool.query('DELETE FROM embedding_cache')
  const timeline: string[] = []
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  const restore = gateLongTexts(svc, async () => {
    timeline.push('embedding started')
    await gate
    timeline.push('embedding ended')
  })
  try {
    const written = tool(svc.call, key, 'page_write', { pageId: page.id, content: part(4) })
    await until('the page being embedded', () => timeline.includes('embedding started'), 30_000)
    // Twenty searches while the model holds the page (a safety release after 20 s would show as a failure).
    const safety = setTimeout(release, 20_000)
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        call('POST', '/api/v1/knowledge/search', { query: 'wombats burrows', minScore: 0 }),
      ),
    )
    timeline.push('20 searches answered')
    clearTimeout(safety)
    release()
    assert.equal(
      answers.map((a) => a.status),
      Array(20).fill(200),
    )
    const last = ok(await written)
    assert.is(last.version, 5)
    assert.equal(timeline, ['embedding started', '20 searches answered', 'embedding ended'])
    const read = ok(await call('GET', `/api/v1/pages/${page.id}`))
    assert.ok(read.content.length > 495_000, `${read.content.length} characters`)
  } finally {
    release()
    restore()
  }
})

test('a page whose vector the model could not make is written, then filled in by the filler', async ({ svc, m }) => {
  let refused = 0
  const restore = gateLongTexts(svc, async () => {
    // Down for the write and for the filler's first try, which then waits a second to try again.
    if (refused++ < 2) throw new Error('the model is down (test)')
  })
  try {
    const content = 'Platypuses hunt by electroreception. '.repeat(200)
    const page = ok(
      await svc.call('POST', '/api/v1/pages', { token: m.token, body: { title: 'Platypus notes', content } }),
      201,
    )
    const unembedded = async () =>
      (
        await svc.deps.db.pool.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM kb_page_index WHERE page_id = $1 AND embedding IS NULL',
          [page.id],
        )
      ).rows[0].n
    assert.is(await unembedded(), 1, 'written without its vector')
    await until('the vector filled in', async () => (await unembedded()) === 0, 30_000)
    const pending = await svc.deps.db.pool.query('SELECT 1 FROM embedding_pending')
    assert.is(pending.rows.length, 0)
    const key = (await newKey(svc.call, m.workspaceId, 'reader')).api_key
    const found = ok(
      await tool(svc.call, key, 'page_search', {
        query: 'platypuses hunt by electroreception',
        mode: 'vector',
        minScore: 0,
      }),
    )
    // Vector mode serves only pages with a vector: it is among them now.
    assert.ok(
      found.results.some((r: any) => r.pageId === page.id),
      JSON.stringify(found).slice(0, 800),
    )
  } finally {
    restore()
  }
})

test('a text the model never takes holds back no other: it is set aside, the rest are filled in', async ({
  svc,
  m,
}) => {
  let down = true
  const restore = gateLongTexts(svc, async (texts) => {
    if (down || texts.some((t) => t.includes('POISON'))) throw new Error('the model refuses (test)')
  })
  try {
    const write = async (title: string, word: string) =>
      ok(
        await svc.call('POST', '/api/v1/pages', {
          token: m.token,
          body: { title, content: `${word} wombats tunnel at night. `.repeat(200) },
        }),
        201,
      ).id as string
    const poisoned = await write('Poisoned notes', 'POISON')
    const healthy = await write('Healthy notes', 'Healthy')
    down = false
    const embedded = async (id: string) =>
      (
        await svc.deps.db.pool.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM kb_page_index WHERE page_id = $1 AND embedding IS NOT NULL',
          [id],
        )
      ).rows[0].n
    await until('the healthy page filled in', async () => (await embedded(healthy)) === 1, 30_000)
    await until(
      'the poisoned text set aside',
      async () =>
        (await svc.deps.db.pool.query<{ attempts: number }>('SELECT attempts FROM embedding_pending')).rows.some(
          (r) => r.attempts >= 5,
        ),
      60_000,
    )
    assert.is(await embedded(poisoned), 0)
  } finally {
    restore()
  }
})

test.run()
