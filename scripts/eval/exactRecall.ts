// The vector leg's recall of distinct entries against an exact scan. The service reads the nearest
// passages from pgvector's HNSW index (approximate); here every passage vector of the workspace is
// read once and compared with the question's vector exactly, in memory (the same stored vectors, the
// same query embedding), so the figure does not depend on the index or on pgvector being installed.
import { vectorRaw } from '../../queries/search'
import type { Service } from '../../app/service'

/** The entries an exact scan ranks first: by their best passage's cosine, and by the vector leg's own raw score. */
export interface ExactTop {
  best: string[]
  raw: string[]
}

const unit = (v: number[]) => {
  const n = Math.sqrt(v.reduce((s, x) => s + x * x, 0)) || 1
  return Float32Array.from(v, (x) => x / n)
}

/** Answers a function that gives, for a query, the `k` entries first by an exact scan of every passage. */
export const exactScanner = async (service: Service, workspaceId: string) => {
  const { db, embedder } = service.deps
  const { rows } = await db.pool.query<{ entry_id: string; v: string }>(
    `SELECT entry_id, embedding::text AS v FROM kb_passages
     WHERE workspace_id = $1 AND model = $2 AND embedding IS NOT NULL AND is_enabled`,
    [workspaceId, embedder.model],
  )
  // A vector reads as '[0.1,...]' (pgvector) or '{0.1,...}' (real[]).
  const passages = rows.map((r) => ({ entry: r.entry_id, v: unit(r.v.slice(1, -1).split(',').map(Number)) }))
  return {
    passages: passages.length,
    top: async (query: string, k: number): Promise<ExactTop> => {
      const q = unit((await embedder.embed([query]))[0])
      const byEntry = new Map<string, number[]>()
      for (const p of passages) {
        let dot = 0
        for (let i = 0; i < q.length; i++) dot += q[i] * p.v[i]
        // The service's similarity: 1 - cosine distance, clamped to [0, 1].
        const s = Math.min(1, Math.max(0, dot))
        const list = byEntry.get(p.entry)
        if (list) list.push(s)
        else byEntry.set(p.entry, [s])
      }
      const evidence = [...byEntry].map(([entry, scores]) => {
        const top = scores.sort((a, b) => b - a).slice(0, 3)
        return { entry, best: top[0], top3: top.reduce((s, x) => s + x, 0) / top.length }
      })
      const first = (score: (e: (typeof evidence)[number]) => number) =>
        [...evidence]
          .sort((a, b) => score(b) - score(a))
          .slice(0, k)
          .map((e) => e.entry)
      return { best: first((e) => e.best), raw: first((e) => vectorRaw(e)) }
    },
  }
}

/** |found ∩ exact| / |exact| */
export const recallOf = (found: string[], exact: string[]) =>
  exact.length ? exact.filter((id) => found.includes(id)).length / exact.length : 1
