import http from 'node:http'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { rerankResults } from '../../queries/search/rerank'
import { DEFAULT_RERANK } from '../../domain/knowledge/kbConfig'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

/** A reranking server of the common wire format; `mode` says how it answers the next requests. */
const startReranker = async () => {
  const state = { mode: 'reverse' as 'reverse' | 'slow' | 'error' | 'garbage', asked: [] as any[] }
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (d) => (body += d))
    req.on('end', () => {
      const asked = JSON.parse(body)
      state.asked.push({ path: req.url, ...asked })
      const answer = () => {
        if (state.mode === 'error') return res.writeHead(500).end('{"error":"model not loaded"}')
        if (state.mode === 'garbage') return res.writeHead(200, { 'content-type': 'application/json' }).end('[1,2]')
        // The documents in reverse order, best first, as a model that disagrees with the search would.
        const results = asked.documents
          .map((_: string, index: number) => ({ index, relevance_score: (index + 1) / asked.documents.length }))
          .reverse()
          .slice(0, asked.top_n)
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }))
      }
      if (state.mode === 'slow') setTimeout(answer, 1500)
      else answer()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return { url: `http://127.0.0.1:${port}`, state, close: () => new Promise<void>((r) => server.close(() => r())) }
}

type Reranker = Awaited<ReturnType<typeof startReranker>>
const test = suite<{ svc: TestService; m: Member; reranker: Reranker }>('search reranking by a served model')
test.before(async (ctx) => {
  ctx.reranker = await startReranker()
  ctx.svc = await startTestService({ RERANK_URL: `${ctx.reranker.url}/`, RERANK_TIMEOUT_MS: '500' })
  ctx.m = await seedMember(ctx.svc.call)
  for (const [title, content] of [
    ['Otters', 'Otters otters otters hold hands while they sleep.'],
    ['Rivers', 'Otters live along rivers.'],
    ['Seas', 'Sea otters float on the sea, and one otter uses a stone.'],
  ])
    ok(
      await ctx.svc.call('POST', '/api/v1/knowledge', { token: ctx.m.token, body: { title, source: 'text', content } }),
      201,
    )
})
test.after(async ({ svc, reranker }) => (await svc.stop(), await reranker.close()))

test('off by default: the search asks no model and says nothing of one', async (ctx) => {
  const found = ok(
    await ctx.svc.call('POST', '/api/v1/knowledge/search', {
      token: ctx.m.token,
      body: { query: 'otters', mode: 'text', limit: 3, minScore: 0 },
    }),
  )
  assert.is(found.results.length, 3)
  assert.is(found.engines.rerank, undefined)
  assert.ok(found.results.every((r: any) => r.scores.rerank === undefined))
  assert.equal(ctx.reranker.state.asked, [])
  const config = ok(await ctx.svc.call('GET', '/api/v1/knowledge/config', { token: ctx.m.token })).config
  assert.equal(config.search.rerank, { enabled: false, model: 'bge-reranker-base', candidates: 30 })
})

test('turned on: the best results go to the model in the wire format, and its order is served', async (ctx) => {
  const call = (body: object) => ctx.svc.call('PATCH', '/api/v1/knowledge/config', { token: ctx.m.token, body })
  expectError(await call({ search: { rerank: { candidates: 10 } } }), 400, 'VALIDATION_ERROR')
  const changed = ok(await call({ search: { rerank: { enabled: true, model: 'test-reranker', candidates: 20 } } }))
  assert.equal(changed.config.search.rerank, { enabled: true, model: 'test-reranker', candidates: 20 })
  ok(await call({ search: { rerank: { candidates: 25 } } }))
  const plain = ok(
    await ctx.svc.call('POST', '/api/v1/knowledge/search', {
      token: ctx.m.token,
      body: { query: 'otters', mode: 'text', limit: 3, minScore: 0 },
    }),
  )
  const [asked] = ctx.reranker.state.asked
  assert.equal([asked.path, asked.model, asked.query, asked.top_n], ['/rerank', 'test-reranker', 'otters', 3])
  assert.is(asked.documents.length, 3)
  assert.is(plain.engines.rerank, 'test-reranker')
  // The model answered the documents in reverse: the search's last is served first, with its score.
  assert.equal(
    plain.results.map((r: any) => r.content),
    [...asked.documents].reverse(),
  )
  assert.equal(
    plain.results.map((r: any) => r.scores.rerank),
    [1, 0.6667, 0.3333],
  )
  // The limit is what is served; the model saw every candidate.
  ctx.reranker.state.asked = []
  const two = ok(
    await ctx.svc.call('POST', '/api/v1/knowledge/search', {
      token: ctx.m.token,
      body: { query: 'otters', mode: 'text', limit: 2, minScore: 0 },
    }),
  )
  assert.is(ctx.reranker.state.asked[0].documents.length, 3)
  assert.equal(
    two.results.map((r: any) => r.id),
    plain.results.slice(0, 2).map((r: any) => r.id),
  )
})

test('a model slow, failing or answering nonsense: the search answers in its own order and says why', async (ctx) => {
  const own = ok(
    await ctx.svc.call('POST', '/api/v1/knowledge/search', {
      token: ctx.m.token,
      body: { query: 'otters', mode: 'text', limit: 3, minScore: 0 },
    }),
  )
  const reversed = own.results.map((r: any) => r.id)
  for (const [mode, why] of [
    ['slow', /^unavailable: no answer within 500 ms$/],
    ['error', /^unavailable: it answered HTTP 500$/],
    ['garbage', /^unavailable: its answer is not/],
  ] as const) {
    ctx.reranker.state.mode = mode
    const found = ok(
      await ctx.svc.call('POST', '/api/v1/knowledge/search', {
        token: ctx.m.token,
        body: { query: 'otters', mode: 'text', limit: 3, minScore: 0 },
      }),
    )
    assert.match(found.engines.rerank, why, mode)
    assert.equal(
      found.results.map((r: any) => r.id),
      [...reversed].reverse(),
      `${mode}: the search's own order`,
    )
    assert.ok(found.results.every((r: any) => r.scores.rerank === undefined))
  }
  ctx.reranker.state.mode = 'reverse'
})

test('without RERANK_URL a workspace that turned reranking on is told so, and served as before', async () => {
  const result = { id: 'e', content: 'c', scores: { fused: 0.5 } } as never
  const served = await rerankResults(undefined, { ...DEFAULT_RERANK, enabled: true }, 'q', [result, result], 1)
  assert.equal([served.results.length, served.engine], [1, 'off: no RERANK_URL is configured'])
})

test.run()
