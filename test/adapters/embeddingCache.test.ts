import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { embeddingCacheSchema, ensureEmbedded } from '../../adapters/embeddingCache'
import { hashingEmbedder } from '../../adapters/embedders/hashing'
import { LOCAL_MODEL } from '../../adapters/embedders/local'
import type { Embedder } from '../../adapters/embedders/port'
import { testPglite } from '../../testkit/db'

const test = suite('embedding cache: the local model at its own length; long documents embedded in groups')

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

/** The hashing model on `workers` threads, failing from its `failFrom`-th call on; it counts its calls. */
const counting = (workers: number, failFrom = Number.POSITIVE_INFINITY) => {
  const inner = hashingEmbedder()
  const calls: number[] = []
  const embedder: Embedder = {
    ...inner,
    workers,
    embed: async (texts) => {
      calls.push(texts.length)
      if (calls.length >= failFrom) throw new Error('the model went away')
      return inner.embed(texts)
    },
  }
  return { embedder, calls }
}

const texts = (n: number) => Array.from({ length: n }, (_, i) => `passage ${i} of a long manual`)
const cached = async (db: { pool: { query: (q: string) => Promise<{ rows: { n: number }[] }> } }) =>
  (await db.pool.query('SELECT count(*)::int AS n FROM embedding_cache')).rows[0].n

test("a long document's texts are stored group by group (64 a model thread), progress told each time", async () => {
  const db = await testPglite()
  try {
    await db.pool.query(embeddingCacheSchema)
    const { embedder, calls } = counting(2)
    const told: [number, number, number][] = []
    const hashes = await ensureEmbedded(db.pool, embedder, texts(300), async (done, total) => {
      told.push([done, total, await cached(db)])
    })
    assert.is(hashes.length, 300)
    assert.equal(calls, [128, 128, 44], 'groups of 64 per model thread')
    assert.equal(
      told.map(([done, total]) => [done, total]),
      [
        [128, 300],
        [256, 300],
        [300, 300],
      ],
    )
    // What progress tells is in the cache already (the next group, stored meanwhile, may be too).
    for (const [done, , stored] of told) assert.ok(stored >= done, `${stored} stored when ${done} were told`)
    // Run again: nothing is missing, the model is not called.
    await ensureEmbedded(db.pool, embedder, texts(300))
    assert.is(calls.length, 3)
  } finally {
    await db.close()
  }
})

test('a model failing partway keeps the groups stored, starts no other; a rerun embeds the rest', async () => {
  const db = await testPglite()
  try {
    await db.pool.query(embeddingCacheSchema)
    const failing = counting(1, 3)
    const failed = await ensureEmbedded(db.pool, failing.embedder, texts(640)).then(
      () => undefined,
      (e: Error) => e.message,
    )
    assert.is(failed, 'the model went away')
    await new Promise((r) => setTimeout(r, 50))
    // Two groups in flight: the first two stored, the third failed, and none started after it.
    assert.equal(failing.calls, [64, 64, 64])
    assert.is(await cached(db), 128)
    const { embedder, calls } = counting(1)
    await ensureEmbedded(db.pool, embedder, texts(640))
    assert.is(
      calls.reduce((a, b) => a + b, 0),
      640 - 128,
      'only what was missing',
    )
    assert.is(await cached(db), 640)
  } finally {
    await db.close()
  }
})

test.run()
