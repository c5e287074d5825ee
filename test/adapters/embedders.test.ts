import http from 'node:http'
import { availableParallelism } from 'node:os'
import type { AddressInfo } from 'node:net'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createEmbedder } from '../../adapters/embedders'
import { hashingEmbedder } from '../../adapters/embedders/hashing'
import { localEmbedder } from '../../adapters/embedders/local'
import { threadCpuSeconds } from '../../testkit/threads'
import { openAiEmbedder } from '../../adapters/embedders/openai'
import { expectError, seedMember, startTestService } from '../helpers/service'

const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i], 0)

/** A local server speaking OpenAI's embeddings API; `plan` says how to answer each request. */
const fakeOpenAi = async (
  plan: (n: number, input: string[]) => { status: number; body: unknown; headers?: Record<string, string> },
) => {
  const requests: { path: string; input: string[]; auth?: string }[] = []
  const server = http.createServer((req, res) => {
    let raw = ''
    req.on('data', (d) => (raw += d))
    req.on('end', () => {
      const body = JSON.parse(raw)
      requests.push({ path: req.url ?? '', input: body.input, auth: req.headers.authorization })
      const answer = plan(requests.length, body.input)
      res.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.headers ?? {}) })
      res.end(JSON.stringify(answer.body))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  return { requests, baseURL: `http://127.0.0.1:${port}/v1`, close: () => new Promise((r) => server.close(r)) }
}

const vectorFor = (text: string, length = DIMENSIONS) =>
  Array.from({ length }, (_, i) => (i === text.length % length ? 1 : 0))
const embeddings = (input: string[], length = DIMENSIONS) => ({
  object: 'list',
  model: 'text-embedding-3-small',
  data: input.map((text, index) => ({ object: 'embedding', index, embedding: vectorFor(text, length) })),
  usage: { prompt_tokens: 1, total_tokens: 1 },
})

/** The OpenAI model's length (text-embedding-3-small), and the hashing embedder's. */
const DIMENSIONS = 1536

const test = suite('embedders: hashing, OpenAI-compatible (against a local server), local model')

test('hashing: deterministic unit vectors of 1536; shared words are closer than none', async () => {
  const e = hashingEmbedder()
  const [a, a2, b, c] = await e.embed([
    'vacuum reclaims dead tuples',
    'vacuum reclaims dead tuples',
    'vacuum frees tuples',
    'the weather is sunny',
  ])
  assert.is(a.length, DIMENSIONS)
  assert.equal(a, a2)
  assert.ok(Math.abs(cosine(a, a) - 1) < 1e-9)
  assert.ok(cosine(a, b) > cosine(a, c))
})

test('OpenAI: batches the inputs, sends the key, and keeps the order', async () => {
  const server = await fakeOpenAi((_, input) => ({ status: 200, body: embeddings(input) }))
  try {
    const e = openAiEmbedder({
      apiKey: 'sk-test',
      baseURL: server.baseURL,
      model: 'text-embedding-3-small',
      batchSize: 10,
    })
    const texts = Array.from({ length: 25 }, (_, i) => 'x'.repeat(i + 1))
    const vectors = await e.embed(texts)
    assert.is(server.requests.length, 3)
    assert.equal(
      server.requests.map((r) => r.input.length),
      [10, 10, 5],
    )
    assert.is(server.requests[0].path, '/v1/embeddings')
    assert.is(server.requests[0].auth, 'Bearer sk-test')
    texts.forEach((t, i) => assert.is(vectors[i].indexOf(1), t.length % DIMENSIONS))
    assert.is(e.model, 'openai:text-embedding-3-small')
  } finally {
    await server.close()
  }
})

test('OpenAI: a 429 and a 503 are retried with backoff, then succeed', async () => {
  const server = await fakeOpenAi((n, input) =>
    n === 1
      ? { status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after-ms': '10' } }
      : n === 2
        ? { status: 503, body: { error: { message: 'busy' } }, headers: { 'retry-after-ms': '10' } }
        : { status: 200, body: embeddings(input) },
  )
  try {
    const e = openAiEmbedder({ apiKey: 'k', baseURL: server.baseURL, model: 'm' })
    const [v] = await e.embed(['hello'])
    assert.is(v.length, DIMENSIONS)
    assert.is(server.requests.length, 3)
  } finally {
    await server.close()
  }
})

test('OpenAI: vectors of the wrong length or with a non-number are refused', async () => {
  const short = await fakeOpenAi((_, input) => ({ status: 200, body: embeddings(input, 512) }))
  try {
    await openAiEmbedder({ apiKey: 'k', baseURL: short.baseURL, model: 'm' })
      .embed(['a'])
      .then(
        () => assert.unreachable('should refuse'),
        (e: Error) => assert.match(e.message, /length 512, expected 1536/),
      )
    // A model configured with its own length (EMBEDDING_DIMENSIONS=512) takes them, as they are.
    const e = openAiEmbedder({ apiKey: 'k', baseURL: short.baseURL, model: 'm', dimensions: 512 })
    assert.is(e.dimensions, 512)
    assert.is((await e.embed(['abc']))[0].length, 512)
  } finally {
    await short.close()
  }
  const nan = await fakeOpenAi((_, input) => {
    const body = embeddings(input)
    ;(body.data[0].embedding as unknown[])[3] = 'NaN'
    return { status: 200, body }
  })
  try {
    await openAiEmbedder({ apiKey: 'k', baseURL: nan.baseURL, model: 'm' })
      .embed(['a'])
      .then(
        () => assert.unreachable('should refuse'),
        (e: Error) => assert.match(e.message, /non-finite/),
      )
  } finally {
    await nan.close()
  }
})

test('local model: its own 512 dimensions, paraphrases closer than unrelated text, event loop free', async () => {
  const e = localEmbedder()
  try {
    let ticks = 0
    const timer = setInterval(() => ticks++, 5)
    const long = 'Vacuum reclaims storage occupied by dead tuples in PostgreSQL tables. '.repeat(40)
    const [a, b, c, d] = await e.embed([
      'the cat sat on the mat',
      'a kitten was sitting on the rug',
      'quarterly revenue grew by ten percent',
      long,
    ])
    clearInterval(timer)
    assert.ok(ticks > 3, `the event loop ran ${ticks} times while embedding`)
    assert.is(e.dimensions, 512)
    assert.is(e.workers, availableParallelism(), 'one thread per core by default')
    for (const v of [a, b, c, d]) {
      assert.is(v.length, 512)
      assert.ok(Math.abs(cosine(v, v) - 1) < 1e-6)
    }
    assert.ok(cosine(a, b) > cosine(a, c) + 0.1, `${cosine(a, b)} vs ${cosine(a, c)}`)
  } finally {
    await e.close?.()
  }
})

test('local model: EMBED_WORKERS threads, and they embed as one', async () => {
  const e = createEmbedder({ embedder: 'local', embeddingModel: '', embedWorkers: 3 })
  try {
    assert.is(e.workers, 3)
    const texts = Array.from({ length: 9 }, (_, i) => `passage number ${i} about tuples and pages`)
    const spread = await e.embed(texts)
    const one = localEmbedder(1)
    try {
      const alone = await one.embed(texts)
      spread.forEach((v, i) => assert.ok(cosine(v, alone[i]) > 0.9999, `text ${i}`))
    } finally {
      await one.close?.()
    }
  } finally {
    await e.close?.()
  }
})

test("local model: one long document's passages keep every model thread busy", async () => {
  const e = localEmbedder(2)
  try {
    await e.embed(['warm up', 'the model'])
    const threads = e.threadIds?.() ?? []
    assert.is(threads.length, 3, 'two threads for writes and one for queries, each telling its id')
    const threadCpu = (tid: number) => threadCpuSeconds().get(tid) ?? Number.NaN
    const before = threads.map(threadCpu)
    // One document, one call: 256 passages of about 40 words.
    const passage = (i: number) => `Passage ${i}: vacuum reclaims the storage of dead tuples; `.repeat(6)
    await e.embed(Array.from({ length: 256 }, (_, i) => passage(i)))
    const used = threads.map((tid, i) => threadCpu(tid) - before[i])
    // The two writers' threads shared the work (each took at least a third of it); the queries' one took none.
    const [queries, ...writers] = used
    const total = writers.reduce((a, b) => a + b, 0)
    for (const w of writers) assert.ok(w >= total / 3, `threads' CPU seconds: ${used}`)
    assert.ok(queries < total / 10, `threads' CPU seconds: ${used}`)
  } finally {
    await e.close?.()
  }
})

test('a failing embedder: the create answers 503 SERVICE_UNAVAILABLE and writes nothing', async () => {
  const server = await fakeOpenAi(() => ({ status: 400, body: { error: { message: 'model not found' } } }))
  const svc = await startTestService({ EMBEDDER: 'openai', OPENAI_API_KEY: 'k', OPENAI_BASE_URL: server.baseURL })
  try {
    const m = await seedMember(svc.call, 'owner')
    const head = await svc.deps.store.headPosition()
    const e = expectError(
      await svc.call('POST', '/api/v1/knowledge', {
        token: m.token,
        body: { title: 't', source: 'text', content: 'c.' },
      }),
      503,
      'SERVICE_UNAVAILABLE',
    )
    assert.match(e.message, /embedding model is unavailable/)
    assert.is(await svc.deps.store.headPosition(), head)
  } finally {
    await svc.stop()
    await server.close()
  }
})

test.run()
