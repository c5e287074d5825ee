import { startTestService, seedMember, ok } from './test/helpers/service'
import * as knowledge from './commands/knowledge'
import { getEntry } from './api/views/knowledge'
const svc = await startTestService()
const m = await seedMember(svc.call, 'owner')
const text = 'Postgres vacuum index heap tuple page buffer query planner. '.repeat(85)
const d = svc.deps
const kd = { store: d.store, db: d.db.pool, embedder: d.embedder }
const ctx = () => ({ actor: { kind: 'human' as const, userId: m.userId }, at: new Date().toISOString(), correlationId: 'x', workspaceId: m.workspaceId })
const tm: Record<string, number> = {}
const t = async <T>(k: string, f: () => Promise<T>) => { const s = performance.now(); const r = await f(); tm[k] = (tm[k] ?? 0) + performance.now() - s; return r }
for (let i = 0; i < 50; i++) {
  const r: any = await t('command', () => knowledge.createTextEntry(kd, ctx(), { workspaceId: m.workspaceId, title: 't', content: text + i, source: 'text', metadata: {}, externalReferenceIds: {}, folderId: null, isEnabled: true, chunkingOptions: {} }))
  await t('wait', () => d.runner.waitFor(r.right.position, 5000))
  await t('read', () => getEntry(d.db.pool, m.workspaceId, r.right.id))
  await t('http', () => svc.call('POST', '/api/v1/knowledge', { token: m.token, body: { title: 't', source: 'text', content: text + 'h' + i } }))
}
for (const k in tm) console.log(k, (tm[k] / 50).toFixed(2), 'ms')
await svc.stop(); process.exit(0)
