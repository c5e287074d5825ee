import type { Database } from '../../adapters/db'
import { cachedVector, ensureEmbedded } from '../../adapters/embeddingCache'
import type { Embedder } from '../../adapters/embedders/port'
import type { Logger } from '../../adapters/logger'

/** Texts embedded at once. */
const BATCH = 32
/** Tries of a text the model refuses before it is set aside (its rows keep no vector; the log says so). */
const MAX_ATTEMPTS = 5
/** How long a stop waits for a model call under way (the rows it would fill are filled by the next holder). */
const STOP_WAIT_MS = 5000
/** How often it looks for pending texts when nothing woke it. */
const POLL_MS = 2000
const RETRY_MAX_MS = 30_000

/**
 * The tables whose rows keep a copy of their vector from the cache: the column, and which rows do (a
 * history's rows read the cache itself, but for those whose text was replaced, which keep theirs where
 * pgvector indexes them).
 */
const TABLES = [
  { table: 'kb_passages', column: 'embedding', rows: 'true', pgvectorOnly: false },
  { table: 'kb_page_index', column: 'embedding', rows: 'true', pgvectorOnly: false },
  { table: 'kb_passages_history', column: 'closed_embedding', rows: 'replaced', pgvectorOnly: true },
]

/**
 * The embedding filler. Commands and tasks embed what they write before they append it, so the
 * projections only read vectors from the cache; a text a projection found no vector for (the model
 * was down when a page was written, a re-embedding's history, a rebuild after the cache was
 * cleared) is recorded as pending. This loop embeds pending texts of the current model, in batches,
 * with no transaction open while the model runs, then sets the vectors of the rows that wait for
 * them, each table in one short statement. What it writes is a function of each row's own text, so
 * a rebuild gives the same rows. Runs in the process that holds the projections.
 * `vectors`: whether the tables keep pgvector vectors (else `real[]`).
 */
export const startEmbeddingFiller = (db: Database, embedder: Embedder, vectors: boolean, log: Logger) => {
  const fill = (hashes?: string[]) => fillRows(db, embedder, vectors, hashes)
  let stopped = false
  let wake: () => void = () => undefined
  let backoff = 0
  const loop = (async () => {
    // Rows a rebuild or an earlier run left without the vector the cache now has.
    await fill().catch((error) => log.warn({ err: error }, 'embedding fill failed'))
    while (!stopped) {
      let done = 0
      try {
        done = await fillBatch(db, embedder, log, fill)
        // Rows whose vector reached the cache some other way: a rebuild's rows swapped in, or a row
        // a projection wrote while its text's vector was being made (its pending row was taken).
        if (done === 0) await fill()
        backoff = 0
      } catch (error) {
        backoff = Math.min(RETRY_MAX_MS, (backoff || 500) * 2)
        log.warn({ err: error, retryMs: backoff }, 'pending embeddings could not be made; trying again')
      }
      if (done === BATCH && backoff === 0) continue
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, backoff || POLL_MS)
        wake = () => (clearTimeout(timer), resolve())
      })
    }
  })()
  return {
    /** Looks for pending texts now (a projection batch recorded some). */
    kick: () => wake(),
    stop: async () => {
      stopped = true
      wake()
      await Promise.race([loop, new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref())])
    },
  }
}

/**
 * Embeds one batch of pending texts and fills their rows in; answers how many it took. A batch the
 * model refuses is tried text by text, so one text it cannot read holds back no other; a text
 * refused MAX_ATTEMPTS times is set aside.
 */
const fillBatch = async (db: Database, embedder: Embedder, log: Logger, fill: (hashes: string[]) => Promise<void>) => {
  const { rows } = await db.pool.query<{ text_hash: string; text: string }>(
    `SELECT text_hash, text FROM embedding_pending WHERE model = $1 AND attempts < $3 ORDER BY created_at LIMIT $2`,
    [embedder.model, BATCH, MAX_ATTEMPTS],
  )
  if (rows.length === 0) return 0
  let embedded = rows
  try {
    await ensureEmbedded(
      db.pool,
      embedder,
      rows.map((r) => r.text),
    )
  } catch (error) {
    if (rows.length === 1) throw await refused(db, embedder, rows[0].text_hash, error, log)
    embedded = []
    for (const r of rows) {
      const one = await ensureEmbedded(db.pool, embedder, [r.text]).then(
        () => true,
        (e: Error) => refused(db, embedder, r.text_hash, e, log).then(() => false),
      )
      if (one) embedded.push(r)
    }
  }
  const hashes = embedded.map((r) => r.text_hash)
  await fill(hashes)
  await db.pool.query('DELETE FROM embedding_pending WHERE model = $1 AND text_hash = ANY($2::text[])', [
    embedder.model,
    hashes,
  ])
  return rows.length
}

/** Counts a refusal of one text; answers the error. */
const refused = async (db: Database, embedder: Embedder, hash: string, error: unknown, log: Logger) => {
  const { rows } = await db.pool.query<{ attempts: number }>(
    'UPDATE embedding_pending SET attempts = attempts + 1 WHERE model = $1 AND text_hash = $2 RETURNING attempts',
    [embedder.model, hash],
  )
  if ((rows[0]?.attempts ?? 0) >= MAX_ATTEMPTS)
    log.error(
      { err: error, textHash: hash },
      'the model refused a text again and again; its rows stay without a vector',
    )
  return error
}

/** Sets the cached vector of the rows of this model still without one (of these hashes, or all). */
const fillRows = async (db: Database, embedder: Embedder, vectors: boolean, hashes: string[] | undefined) => {
  for (const { table, column, rows } of TABLES.filter((t) => vectors || !t.pgvectorOnly))
    await db.pool.query(
      `UPDATE ${table} SET ${column} = ${cachedVector('$1', `${table}.text_hash`, vectors)}
       WHERE ${column} IS NULL AND ${rows} AND model = $1 AND text_hash IS NOT NULL
         AND ($2::text[] IS NULL OR text_hash = ANY($2::text[]))
         AND EXISTS (SELECT 1 FROM embedding_cache c WHERE c.model = $1 AND c.text_hash = ${table}.text_hash)`,
      [embedder.model, hashes ?? null],
    )
}
