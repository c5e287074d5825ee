import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { hashingEmbedder } from '../../adapters/embedders/hashing'
import { ADMIN, ok, seedMember, startTestService } from '../helpers/service'

/** An OpenAI-compatible embeddings server whose vectors come from the hashing embedder. */
const embeddingsServer = async () => {
  const hashing = hashingEmbedder()
  let requests = 0
  const server = http.createServer((req, res) => {
    let raw = ''
    req.on('data', (d) => (raw += d))
    req.on('end', async () => {
      requests++
      const { input } = JSON.parse(raw) as { input: string[] }
      const vectors = await hashing.embed(input)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(
        JSON.stringify({
          object: 'list',
          model: 'm',
          data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
          usage: { prompt_tokens: 0, total_tokens: 0 },
        }),
      )
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests: () => requests,
    close: () => new Promise((r) => server.close(r)),
  }
}

const test = suite('re-embedding when the embedding model changes')

test(
  'after a model change vector search never mixes models; reembed builds new vectors and swaps them ' + 'in',
  async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-reembed-'))
    const server = await embeddingsServer()
    try {
      const a = await startTestService({ EMBEDDER: 'hashing' }, undefined, { dataDir })
      const m = await seedMember(a.call, 'owner')
      const ids: string[] = []
      for (const content of ['Vacuum reclaims dead tuples.', 'Indexes speed up lookups.', 'Sunny weather all week.']) {
        ids.push(
          ok(
            await a.call('POST', '/api/v1/knowledge', {
              token: m.token,
              body: { title: content, source: 'text', content },
            }),
            201,
          ).id,
        )
      }
      const before = ok(
        await a.call('POST', '/api/v1/knowledge/search', {
          token: m.token,
          body: { query: 'dead tuples', mode: 'vector', minScore: 0 },
        }),
      )
      assert.is(before.mode, 'vector')
      await a.stop()

      // The same data with another model configured: the old vectors are never compared with new queries.
      const b = await startTestService(
        { EMBEDDER: 'openai', OPENAI_API_KEY: 'k', OPENAI_BASE_URL: server.url, EMBEDDING_MODEL: 'test-model' },
        undefined,
        { dataDir },
      )
      try {
        const stale = ok(
          await b.call('POST', '/api/v1/knowledge/search', {
            token: m.token,
            body: { query: 'dead tuples', mode: 'vector', minScore: 0 },
          }),
        )
        assert.is(stale.mode, 'text')
        assert.match(stale.fallback, /no embeddings of the current model/)
        const r = ok(await b.call('POST', '/api/v1/admin/reembed', { token: ADMIN, body: {} }))
        assert.equal(r.reembedded, [{ workspaceId: m.workspaceId, model: 'openai:test-model', vectors: 3 }])
        const { rows } = await b.deps.db.pool.query('SELECT DISTINCT model FROM kb_passages WHERE workspace_id = $1', [
          m.workspaceId,
        ])
        assert.equal(
          rows.map((x: any) => x.model),
          ['openai:test-model'],
        )
        const after = ok(
          await b.call('POST', '/api/v1/knowledge/search', {
            token: m.token,
            body: { query: 'dead tuples', mode: 'vector', minScore: 0 },
          }),
        )
        assert.is(after.mode, 'vector')
        assert.is(after.results[0].id, ids[0])
        // The vectors come from the cache on a rebuild: no new embedding requests.
        const calls = server.requests()
        ok(await b.call('POST', '/api/v1/admin/projections/chunks/rebuild', { token: ADMIN }))
        assert.is(server.requests(), calls)
        assert.equal(
          (await b.deps.db.pool.query('SELECT DISTINCT model FROM kb_passages')).rows.map((x: any) => x.model),
          ['openai:test-model'],
        )
      } finally {
        await b.stop()
      }
    } finally {
      await server.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  },
)

test.run()
