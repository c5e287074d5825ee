import net from 'node:net'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { ok, seedMember, startTestService } from '../helpers/service'

// The service pointed at an Elasticsearch that does not answer (a closed port): it starts, /health
// says what it uses and that this engine's contract suite has not run here, searches answer from
// the database's own index, and the projector that writes to Elasticsearch waits instead of stopping.
const test = suite('Elasticsearch unreachable, through the API')

const closedPort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

test('searches fall back and say so; the chunks projector waits with its reason; /health says so', async () => {
  const svc = await startTestService({
    ELASTICSEARCH_URL: `http://127.0.0.1:${await closedPort()}`,
    READ_YOUR_WRITES_TIMEOUT_MS: '1000',
  })
  try {
    const health = ok(await svc.call('GET', '/health'))
    assert.is(health.dependencies.search.contractSuite, 'not run here')
    const { token } = await seedMember(svc.call)
    // Written to the log; the projection that feeds Elasticsearch cannot finish it yet.
    const created = await svc.call('POST', '/api/v1/knowledge', {
      token,
      body: { title: 'Wombats', source: 'text', content: 'The wombat digs a burrow.' },
    })
    assert.is(created.status, 201)
    // Not searchable yet: the answer does not say completed, and says the read models lag.
    assert.is(created.body.data.processingStatus, 'processing')
    assert.is(created.headers.get('x-read-models-lag'), 'true')
    let chunks: { state: string; waitingFor?: string; retryAt?: string } | undefined
    for (let i = 0; i < 100 && chunks?.state !== 'waiting'; i++) {
      // A projector that waits leaves the service ready: what it serves is only older.
      const h = ok(await svc.call('GET', '/health'))
      chunks = h.dependencies.projections.find((p: { name: string }) => p.name === 'chunks')
      await new Promise((r) => setTimeout(r, 50))
    }
    assert.is(chunks?.state, 'waiting')
    assert.match(chunks!.waitingFor!, /Elasticsearch is unreachable/)
    assert.ok(Date.parse(chunks!.retryAt!) > 0)
    const search = ok(
      await svc.call('POST', '/api/v1/knowledge/search', { token, body: { query: 'wombat', mode: 'text' } }),
    )
    assert.is(search.engines.text, 'tsvector (Elasticsearch unreachable)')
    const after = ok(await svc.call('GET', '/health'))
    assert.is(after.dependencies.search.text, 'tsvector (Elasticsearch unreachable)')
  } finally {
    await svc.stop()
  }
})

test.run()
