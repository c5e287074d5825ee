import { startTestService, seedMember } from './test/helpers/service'
import { chunkText } from './workers/chunker'
import { countTokens, searchableText } from './adapters/text'
import { embedCached } from './adapters/embeddingCache'
const svc = await startTestService()
const d = svc.deps
const text = 'Postgres vacuum index heap tuple page buffer query planner. '.repeat(85)
const tm: Record<string, number> = {}
const t = async <T>(k: string, f: () => Promise<T> | T) => { const s = performance.now(); const r = await f(); tm[k] = (tm[k] ?? 0) + performance.now() - s; return r }
const opts = { chunkSizeTokens: 1000, overlapTokens: 200, preserveSentences: true }
for (let i = 0; i < 50; i++) {
  const cs = await t('chunk', () => chunkText(text + i, opts))
  await t('count', () => countTokens(text + i))
  await t('searchable', () => searchableText(text + i))
  await t('embed', () => d.embedder.embed(cs.map((c) => c.text)))
  await t('cached', () => embedCached(d.db.pool, d.embedder, cs.map((c) => c.text + 'z')))
  await t('readStream', () => d.store.readStream('kbconfig-x'))
  await t('append', () => d.store.append(`s-${i}`, [{ id: crypto.randomUUID(), type: 'X', data: { text }, metadata: { actor: { kind: 'system', process: 'p' }, correlationId: 'c', causationId: null, at: 'x' } }], 'no_stream'))
  await t('select1', () => d.db.pool.query('select 1'))
}
for (const k in tm) console.log(k, (tm[k] / 50).toFixed(2), 'ms')
await svc.stop(); process.exit(0)
