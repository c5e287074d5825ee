// `npm run bench -- vector-index`: what pgvector's HNSW index costs in PGlite as a table grows, against the same
// rows written without it (the baseline, measured in the same run). Passages of about 40 words cut from the
// evaluation documents at shifting offsets, embedded by the hashing embedder (1,536 dimensions) and folded to 512
// (the local model's length). For each length: rows added in statements of 50, with the service's index (m = 8,
// ef_construction 64) and without; at each size the cost of a row over the last 2,000 added. Then, at the first
// size: the index built in one statement over rows already written (CREATE INDEX), and an exact scan of every row.
// BENCH_SIZES (default 10000,25000,50000,100000).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pgvector from 'pgvector'
import { openPglite } from '../../adapters/db'
import { enableVectors } from '../../adapters/embeddingCache'
import { hashingEmbedder } from '../../adapters/embedders/hashing'
import { vectorIndexDdl } from '../../adapters/vectorIndex'
import { benchDocs } from './corpus'

const SIZES = (process.env.BENCH_SIZES ?? '10000,25000,50000,100000').split(',').map(Number)
const STATEMENT = 50
const WINDOW = 2000

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-bench-vector-index-'))
const db = await openPglite(dir)
const embedder = hashingEmbedder()
const words = benchDocs().flatMap((d) => d.text.split(/\s+/).filter(Boolean))
/** Passage k: 40 words from a shifting place in the documents, numbered so that no two are alike. */
const passage = (k: number) => {
  const from = (k * 7919) % (words.length - 40)
  return `${words.slice(from, from + 40).join(' ')} passage ${k}`
}
/** A 1,536-long vector folded to `length` (summed slices), unit length. */
const fold = (v: number[], length: number) => {
  const out = new Array<number>(length).fill(0)
  v.forEach((x, i) => {
    out[i % length] += x
  })
  const n = Math.sqrt(out.reduce((s, x) => s + x * x, 0)) || 1
  return out.map((x) => x / n)
}
const ms = () => performance.now()
try {
  if (!(await enableVectors(db.pool))) throw new Error('pgvector is not available')
  const rows: string[] = []
  for (const length of [embedder.dimensions, 512]) {
    const tables = { indexed: `v${length}_indexed`, bare: `v${length}_bare` }
    for (const t of Object.values(tables))
      await db.pool.query(`CREATE TABLE ${t} (id int PRIMARY KEY, model text NOT NULL, embedding vector)`)
    await db.pool.query(vectorIndexDdl(tables.indexed, 'm', length))
    const spent = { indexed: [] as number[], bare: [] as number[] }
    let written = 0
    for (const size of SIZES) {
      while (written < size) {
        const ids = Array.from({ length: STATEMENT }, (_, i) => written + i)
        const vectors = (await embedder.embed(ids.map(passage))).map((v) => pgvector.toSql(fold(v, length)))
        for (const kind of ['indexed', 'bare'] as const) {
          const t = ms()
          await db.pool.query(
            `INSERT INTO ${tables[kind]} SELECT u.id, 'm', u.v::vector FROM unnest($1::int[], $2::text[]) AS u(id, v)`,
            [ids, vectors],
          )
          spent[kind].push((ms() - t) / STATEMENT)
        }
        written += STATEMENT
      }
      const last = (xs: number[]) => xs.slice(-WINDOW / STATEMENT).reduce((s, x) => s + x, 0) / (WINDOW / STATEMENT)
      const [indexed, bare] = [last(spent.indexed), last(spent.bare)]
      rows.push(
        `| ${length} | ${size.toLocaleString('en-US')} | added one at a time | ${indexed.toFixed(2)} | ` +
          `${bare.toFixed(3)} | ${(indexed / bare).toFixed(1)} | ${((indexed * 1e6) / 60_000).toFixed(0)} |`,
      )
      process.stderr.write(`${rows[rows.length - 1]}\n`)
      if (size !== SIZES[0]) continue
      // The index built in one statement over the rows written so far, and an exact scan of them.
      const built = `v${length}_built`
      await db.pool.query(`CREATE TABLE ${built} AS SELECT * FROM ${tables.bare}`)
      let t = ms()
      await db.pool.query(vectorIndexDdl(built, 'm', length))
      const build = (ms() - t) / size
      const probes = await embedder.embed(Array.from({ length: 10 }, (_, i) => passage(size * 3 + i)))
      const typed = `vector(${length})`
      t = ms()
      for (const q of probes)
        await db.pool.query(
          `SELECT id FROM ${tables.bare} ORDER BY (embedding::${typed} <=> $1::${typed}) + 0 LIMIT 10`,
          [pgvector.toSql(fold(q, length))],
        )
      const scan = (ms() - t) / probes.length / size
      const floor = spent.bare.reduce((s, x) => s + x, 0) / spent.bare.length
      rows.push(
        `| ${length} | ${size.toLocaleString('en-US')} | built in one statement | ${build.toFixed(2)} | ` +
          `${floor.toFixed(3)} | ${(build / floor).toFixed(1)} | ${((build * 1e6) / 60_000).toFixed(0)} |`,
        `| ${length} | ${size.toLocaleString('en-US')} | exact scan, per row compared | ${scan.toFixed(4)} | | | |`,
      )
      process.stderr.write(`${rows.slice(-2).join('\n')}\n`)
      await db.pool.query(`DROP TABLE ${built}`)
    }
  }
  process.stdout.write(
    '\n| length | rows | index work | ms a row | ms a row without the index | ratio | minutes a million rows |\n' +
      `|---:|---:|---|---:|---:|---:|---:|\n${rows.join('\n')}\n`,
  )
} finally {
  await db.close()
  fs.rmSync(dir, { recursive: true, force: true })
}
process.exit(0)
