// `tsx scripts/eval/evidence.ts <set> <out.json>` (with EVAL_DATA_DIR to keep the ingested workspace):
// what the ranking model is given for each question of a set, written once so that ways of fusing
// it can be compared in milliseconds (scripts/eval/variants.ts) instead of a run of the service each:
// - the text leg's evidence of each candidate entry (chunk, body, title, coverage), from the service's own legs;
// - every passage of the workspace with its vector, and each chunk's own vector (the chunk's head,
//   as the local model reads it in one window, embedded with the title), and the query's vector.
import fs from 'node:fs'
import { embeddingInput } from '../../adapters/embeddingCache'
import { chunkScope } from '../../adapters/textIndex/port'
import { KNOWLEDGE_INDEX, inSnapshot, rank } from '../../queries/search'
import { SETS, loadDocs, loadQuestions } from './sets'
import { openEvalWorkspace } from './workspace'

const [name, out] = process.argv.slice(2)
const set = SETS.find((s) => s.name === name)
if (!set || !out) throw new Error('usage: evidence.ts <set> <out.json>')
const { service, workspaceId, docOf, close } = await openEvalWorkspace(set, loadDocs(set))
const deps = service.deps
const pool = deps.db.pool
/** A chunk's head: what the local model reads of a chunk in its one window of 128 tokens. */
const head = (text: string) => text.split(/\s+/).slice(0, HEAD_WORDS).join(' ')
const HEAD_WORDS = 80
const b64 = (v: number[]) => Buffer.from(new Float32Array(v).buffer).toString('base64')
const parse = (text: string) => text.slice(1, -1).split(',').map(Number)

try {
  const { rows: passages } = await pool.query<{
    entry_id: string
    chunk_index: number
    id: string
    content: string
    v: string
  }>(
    `SELECT entry_id, chunk_index, id, content, embedding::text AS v FROM kb_passages
     WHERE workspace_id = $1 AND embedding IS NOT NULL ORDER BY id`,
    [workspaceId],
  )
  process.stderr.write(`${passages.length} passages\n`)
  const { rows: chunks } = await pool.query<{ entry_id: string; chunk_index: number; content: string; title: string }>(
    `SELECT c.entry_id, c.chunk_index, c.content, e.title FROM kb_chunks c JOIN kb_chunk_entries e USING (entry_id)
     WHERE c.workspace_id = $1 ORDER BY c.entry_id, c.chunk_index`,
    [workspaceId],
  )
  const chunkVectors: number[][] = []
  for (let i = 0; i < chunks.length; i += 32) {
    chunkVectors.push(
      ...(await deps.embedder.embed(chunks.slice(i, i + 32).map((c) => embeddingInput(c.title, head(c.content))))),
    )
    process.stderr.write(`chunks embedded ${Math.min(i + 32, chunks.length)}/${chunks.length}\r`)
  }
  const questions = []
  for (const q of loadQuestions(set)) {
    const [qvec] = await deps.embedder.embed([q.query])
    const text = await inSnapshot(deps, async (tx) => {
      const ranked = await rank(
        deps,
        tx,
        {
          index: KNOWLEDGE_INDEX,
          workspaceId,
          scope: chunkScope(workspaceId, {}),
          query: q.query,
          mode: 'text',
          fusion: 'score',
          limit: 50,
        },
        undefined,
      )
      return ranked.hits.map((h) => [
        docOf.get(h.key),
        h.evidence.text.chunk,
        h.evidence.text.body,
        h.evidence.text.title,
        h.evidence.text.coverage,
      ])
    })
    questions.push({ id: q.id, kind: q.kind, query: q.query, judgments: q.judgments, text, qvec: b64(qvec) })
  }
  fs.writeFileSync(
    out,
    JSON.stringify({
      set: set.name,
      questions,
      passages: passages.map((p) => ({
        doc: docOf.get(p.entry_id),
        chunk: p.chunk_index,
        n: Number(p.id.slice(p.id.lastIndexOf(':') + 1)),
        text: p.content,
        v: b64(parse(p.v)),
      })),
      chunks: chunks.map((c, i) => ({ doc: docOf.get(c.entry_id), chunk: c.chunk_index, v: b64(chunkVectors[i]) })),
    }),
  )
} finally {
  await close()
}
process.exit(0)
