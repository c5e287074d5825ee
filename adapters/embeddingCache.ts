import { sha256Hex } from './text'
import type { Queryable } from './db'
import type { Embedder } from './embedders/port'
import { LOCAL_MODEL } from './embedders/local'
import { STORED_VECTOR } from './vectorIndex'

/**
 * Embeddings by (model, sha256 of the text): not a read model (nothing rebuilds it), so a
 * projection rebuild or an unchanged re-sync never pays for the same embedding twice.
 */
export const embeddingCacheSchema = `
CREATE TABLE IF NOT EXISTS embedding_cache (
  model text NOT NULL,
  text_hash text NOT NULL,
  vector real[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (model, text_hash)
);
CREATE TABLE IF NOT EXISTS embedding_pending (
  model text NOT NULL,
  text_hash text NOT NULL,
  text text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  PRIMARY KEY (model, text_hash)
);
ALTER TABLE embedding_pending ADD COLUMN IF NOT EXISTS attempts integer NOT NULL DEFAULT 0;
${unpadded(`${LOCAL_MODEL}:pad1536`, LOCAL_MODEL, 512)}
`

/**
 * The local model's vectors were once kept zero-padded to 1536 under another id: the cache keeps
 * them, cut to the model's own length, so no text is embedded again.
 */
function unpadded(old: string, model: string, dimensions: number) {
  return `INSERT INTO embedding_cache (model, text_hash, vector, created_at)
    SELECT '${model}', text_hash, vector[1:${dimensions}], created_at FROM embedding_cache WHERE model = '${old}'
    ON CONFLICT DO NOTHING;
  DELETE FROM embedding_cache WHERE model = '${old}';
  DELETE FROM embedding_pending WHERE model = '${old}';`
}

/** What is embedded for a chunk: its entry's title gives the passage its subject. */
export const embeddingInput = (title: string, text: string) => `${title}\n\n${text}`

/** A page's vector comes from its title and the head of its content (pages are searched whole). */
const PAGE_EMBED_CHARS = 8000

/** What is embedded for a page. */
export const pageEmbeddingInput = (title: string, content: string) =>
  embeddingInput(title, content.slice(0, PAGE_EMBED_CHARS))

const hashOf = sha256Hex

/** Calls of ensureEmbedded under way that are waiting for the model, by embedder (one a service). */
const embedding = new WeakMap<Embedder, number>()

/**
 * Whether this embedder is embedding a write's texts (a create, an edit, a task): the upkeep of
 * tables on PGlite, which runs in the same process, leaves its vacuums until no load is under way.
 */
export const embeddingUnderWay = (embedder: Embedder) => (embedding.get(embedder) ?? 0) > 0

/** Texts the model is given at once per thread it runs on (a model behind an API: per request). */
const GROUP_PER_THREAD = 64

/**
 * Makes sure the cache holds a vector of every text by this embedder, embedding only the texts
 * it lacks; answers the texts' hashes. Vectors never travel back through JavaScript: the SQL
 * that stores them reads them from the cache (`cachedVector`).
 *
 * A long document's texts go to the model in groups (64 per model thread), two groups at a time so
 * the threads never wait while a group is stored: each group is in the cache as soon as it is
 * embedded, `progress` hears of it (done, total), and work cut short by a crash or a failure keeps
 * the groups already stored.
 */
export const ensureEmbedded = async (
  q: Queryable,
  embedder: Embedder,
  texts: string[],
  progress?: (done: number, total: number) => unknown,
): Promise<string[]> => {
  if (texts.length === 0) return []
  const hashes = texts.map(hashOf)
  const { rows } = await q.query<{ text_hash: string }>(
    'SELECT text_hash FROM embedding_cache WHERE model = $1 AND text_hash = ANY($2::text[])',
    [embedder.model, [...new Set(hashes)]],
  )
  const known = new Set(rows.map((r) => r.text_hash))
  const missing = [...new Map(hashes.map((h, i) => [h, texts[i]] as const)).entries()].filter(([h]) => !known.has(h))
  const size = GROUP_PER_THREAD * Math.max(1, embedder.workers ?? 1)
  const groups = Array.from({ length: Math.ceil(missing.length / size) }, (_, g) =>
    missing.slice(g * size, (g + 1) * size),
  )
  let done = 0
  const store = async (group: (typeof missing)[number][]) => {
    const vectors = await embedder.embed(group.map(([, text]) => text))
    // The vectors travel as one flat real[] in binary: PGlite parses 1536 floats of text in about 1 ms.
    await q.query(
      `INSERT INTO embedding_cache (model, text_hash, vector)
       SELECT $1, h, ($3::real[])[(i - 1) * $4 + 1 : i * $4] FROM unnest($2::text[])
         WITH ORDINALITY AS x(h, i) ON CONFLICT DO NOTHING`,
      [embedder.model, group.map(([h]) => h), float4Array(vectors, embedder.dimensions), embedder.dimensions],
    )
    done += group.length
    await progress?.(done, missing.length)
  }
  // Two groups in flight: the next one is embedding while one is stored. After a failure no group starts.
  let next = 0
  let failed = false
  const lane = async () => {
    while (!failed && next < groups.length)
      await store(groups[next++]).catch((error) => {
        failed = true
        throw error
      })
  }
  embedding.set(embedder, (embedding.get(embedder) ?? 0) + 1)
  try {
    await Promise.all([lane(), lane()])
  } finally {
    embedding.set(embedder, (embedding.get(embedder) ?? 1) - 1)
  }
  return hashes
}

/** Keeps a vector brought from elsewhere as this embedder's for a text (a vector cached already stays). */
export const cacheVector = async (q: Queryable, embedder: Embedder, text: string, vector: number[]) => {
  await q.query(
    `INSERT INTO embedding_cache (model, text_hash, vector) VALUES ($1, $2, ($3::real[])) ON CONFLICT DO NOTHING`,
    [embedder.model, hashOf(text), float4Array([vector], embedder.dimensions)],
  )
}

/**
 * For a projection, which never calls the model: the texts' hashes, for its rows to read their
 * vectors from the cache (`cachedVector`). A text the cache lacks gets no vector now; it is recorded
 * as pending, and the embedding filler (workers/search/embeddings.ts) embeds it off every transaction and
 * fills the rows in.
 */
export const cachedOrPending = async (q: Queryable, model: string, texts: string[]): Promise<string[]> => {
  if (texts.length === 0) return []
  const hashes = texts.map(hashOf)
  const distinct = [...new Map(hashes.map((h, i) => [h, texts[i]] as const))]
  await q.query(
    `INSERT INTO embedding_pending (model, text_hash, text)
     SELECT $1, u.h, u.t FROM unnest($2::text[], $3::text[]) AS u(h, t)
     WHERE NOT EXISTS (SELECT 1 FROM embedding_cache c WHERE c.model = $1 AND c.text_hash = u.h)
     ON CONFLICT DO NOTHING`,
    [model, distinct.map(([h]) => h), distinct.map(([, t]) => t)],
  )
  return hashes
}

/**
 * Vectors of `dimensions` floats each as one flat real[] in PostgreSQL's binary format (node-postgres
 * sends a Buffer parameter as binary): a one-dimensional array of float4 (type 700), every element
 * its length (4) and its big-endian bytes.
 */
export const float4Array = (vectors: number[][], dimensions: number): Buffer => {
  const n = vectors.length * dimensions
  const buf = Buffer.alloc(20 + n * 8)
  buf.writeInt32BE(1, 0)
  buf.writeInt32BE(0, 4)
  buf.writeInt32BE(700, 8)
  buf.writeInt32BE(n, 12)
  buf.writeInt32BE(1, 16)
  let at = 20
  for (const v of vectors) {
    if (v.length !== dimensions) throw new Error(`a vector of length ${v.length}, expected ${dimensions}`)
    for (const x of v) {
      buf.writeInt32BE(4, at)
      buf.writeFloatBE(x, at + 4)
      at += 8
    }
  }
  return buf
}

/**
 * SQL for the cached vector of a model (a SQL expression) and a text hash (another), as the read models keep it:
 * pgvector's type (STORED_VECTOR), or a `real[]`.
 */
export const cachedVector = (model: string, hash: string, pgvector: boolean) =>
  `(SELECT ec.vector FROM embedding_cache ec WHERE ec.model = ${model} AND ec.text_hash = ` +
  `${hash})::${pgvector ? STORED_VECTOR : 'real[]'}`

/** Whether pgvector can be used here (PGlite ships it; a server may not have it installed). */
export const enableVectors = async (q: Queryable): Promise<boolean> => {
  const { rows } = await q.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM pg_available_extensions WHERE name = 'vector'",
  )
  if (rows[0].n === 0) return false
  await q.query('CREATE EXTENSION IF NOT EXISTS vector')
  return true
}
