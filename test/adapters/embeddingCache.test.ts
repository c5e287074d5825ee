import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { embeddingCacheSchema } from '../../adapters/embeddingCache'
import { LOCAL_MODEL } from '../../adapters/embedders/local'
import { testPglite } from '../../testkit/db'

const test = suite('embedding cache: the local model at its own length')

test('vectors cached zero-padded to 1536 under the former id are kept, cut to 512, under the new one', async () => {
  const db = await testPglite()
  try {
    await db.pool.query(embeddingCacheSchema)
    const padded = [...Array.from({ length: 512 }, (_, i) => (i % 7) / 10), ...Array(1024).fill(0)]
    await db.pool.query('INSERT INTO embedding_cache (model, text_hash, vector) VALUES ($1, $2, $3)', [
      `${LOCAL_MODEL}:pad1536`,
      'abc',
      padded,
    ])
    await db.pool.query("INSERT INTO embedding_cache (model, text_hash, vector) VALUES ('other', 'abc', '{1,2}')")
    // The next start's schema.
    await db.pool.query(embeddingCacheSchema)
    const { rows } = await db.pool.query<{ model: string; vector: number[] }>(
      'SELECT model, vector FROM embedding_cache ORDER BY model',
    )
    assert.equal(
      rows.map((r) => r.model),
      ['other', LOCAL_MODEL],
    )
    assert.is(rows[1].vector.length, 512)
    rows[1].vector.forEach((x, i) => assert.ok(Math.abs(x - padded[i]) < 1e-6))
  } finally {
    await db.close()
  }
})

test.run()
