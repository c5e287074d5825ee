import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import pino from 'pino'
import { completeDeletions, sweepRetention } from '../../workers/knowledge/retention'
import { type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService }>('API: knowledge-base configuration, limits, statistics, retention')
test.before(async (ctx) => {
  ctx.svc = await startTestService()
})
test.after(async ({ svc }) => svc.stop())

const defaults = {
  enabled: true,
  maxDocuments: 1000,
  retentionDays: 365,
  freshnessDays: 90,
  maxFileSize: 10485760,
  allowedFileTypes: ['text/plain', 'text/markdown', 'text/html', 'application/pdf'],
  ingestion: { chunkSize: 1000, chunkOverlap: 200, autoEmbed: true },
  search: {
    defaultMode: 'hybrid',
    defaultLimit: 5,
    minScore: 0.5,
    fusion: 'score',
    rerank: { enabled: false, model: 'bge-reranker-base', candidates: 30 },
  },
  verification: { enabled: false },
}

test('GET answers every default; PATCH of a subset answers the full config; read-only fields are ignored', async ({
  svc,
}) => {
  const m = await seedMember(svc.call, 'owner')
  assert.equal(ok(await svc.call('GET', '/api/v1/knowledge/config', { token: m.token })).config, {
    ...defaults,
    currentDocumentCount: 0,
  })
  const p = ok(
    await svc.call('PATCH', '/api/v1/knowledge/config', {
      token: m.token,
      body: { search: { minScore: 0.4 }, verification: { enabled: true }, currentDocumentCount: 99 },
    }),
  )
  assert.equal(p.config, {
    ...defaults,
    search: { ...defaults.search, minScore: 0.4 },
    verification: { enabled: true },
    currentDocumentCount: 0,
  })
  assert.equal(ok(await svc.call('GET', '/api/v1/knowledge/config', { token: m.token })).config, p.config)
  const docx = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
  assert.equal(
    ok(
      await svc.call('PATCH', '/api/v1/knowledge/config', {
        token: m.token,
        body: { allowedFileTypes: ['text/plain', docx] },
      }),
    ).config.allowedFileTypes,
    ['text/plain', docx],
  )
})

test('ranges are validated, with details naming each field; nothing changes', async ({ svc }) => {
  const m = await seedMember(svc.call, 'owner')
  const head = await svc.deps.store.headPosition()
  const bad = async (body: object, field: string) => {
    const e = expectError(
      await svc.call('PATCH', '/api/v1/knowledge/config', { token: m.token, body }),
      400,
      'VALIDATION_ERROR',
    )
    assert.ok(
      e.details!.some((d) => d.startsWith(`${field}:`)),
      JSON.stringify(e.details),
    )
  }
  await bad({ ingestion: { chunkSize: 99 } }, 'ingestion.chunkSize')
  await bad({ ingestion: { chunkSize: 2001 } }, 'ingestion.chunkSize')
  await bad({ ingestion: { chunkOverlap: 501 } }, 'ingestion.chunkOverlap')
  await bad({ ingestion: { chunkSize: 300, chunkOverlap: 300 } }, 'ingestion.chunkOverlap')
  await bad({ search: { defaultLimit: 0 } }, 'search.defaultLimit')
  await bad({ search: { defaultLimit: 51 } }, 'search.defaultLimit')
  await bad({ search: { minScore: 1.5 } }, 'search.minScore')
  await bad({ search: { defaultMode: 'fuzzy' } }, 'search.defaultMode')
  await bad({ allowedFileTypes: ['application/x-msdownload'] }, 'allowedFileTypes.0')
  await bad({ maxFileSize: 10485761 }, 'maxFileSize')
  await bad({ retentionDays: -1 }, 'retentionDays')
  await bad({ enabled: 'yes' }, 'enabled')
  assert.is(await svc.deps.store.headPosition(), head)
  const editor = await seedMember(svc.call, 'editor', m.workspaceId)
  expectError(
    await svc.call('PATCH', '/api/v1/knowledge/config', { token: editor.token, body: { enabled: false } }),
    403,
    'FORBIDDEN',
  )
})

test('maxDocuments is enforced on create (403 QUOTA_EXCEEDED); enabled: false refuses creates (403 FORBIDDEN)', async ({
  svc,
}) => {
  const m = await seedMember(svc.call, 'owner')
  ok(await svc.call('PATCH', '/api/v1/knowledge/config', { token: m.token, body: { maxDocuments: 2 } }))
  const create = () =>
    svc.call('POST', '/api/v1/knowledge', { token: m.token, body: { title: 't', source: 'text', content: 'c.' } })
  ok(await create(), 201)
  ok(await create(), 201)
  expectError(await create(), 403, 'QUOTA_EXCEEDED')
  ok(
    await svc.call('PATCH', '/api/v1/knowledge/config', { token: m.token, body: { maxDocuments: 10, enabled: false } }),
  )
  expectError(await create(), 403, 'FORBIDDEN')
  assert.is(ok(await svc.call('GET', '/api/v1/knowledge/config', { token: m.token })).config.currentDocumentCount, 2)
})

test('ingestion defaults come from the config; autoEmbed false stores chunks without vectors', async ({ svc }) => {
  const m = await seedMember(svc.call, 'owner')
  ok(
    await svc.call('PATCH', '/api/v1/knowledge/config', {
      token: m.token,
      body: { ingestion: { chunkSize: 100, chunkOverlap: 0, autoEmbed: false } },
    }),
  )
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 't', source: 'text', content: 'One sentence here. '.repeat(100) },
    }),
    201,
  )
  const { rows } = await svc.deps.db.pool.query('SELECT token_count FROM kb_chunks WHERE entry_id = $1', [e.id])
  assert.ok(rows.length >= 4)
  assert.ok(rows.every((r: any) => r.token_count <= 100))
  const { rows: passages } = await svc.deps.db.pool.query(
    'SELECT embedding IS NULL AS no_vector, model FROM kb_passages WHERE entry_id = $1',
    [e.id],
  )
  assert.ok(passages.length > 0 && passages.every((r: any) => r.no_vector && r.model === null))
})

test('statistics: totals, bySource, byFolder with (root), recent activity, storage bytes', async ({ svc }) => {
  const m = await seedMember(svc.call, 'owner')
  const f = ok(await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'F' } }), 201)
  const a = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'a', source: 'text', content: 'héllo' },
    }),
    201,
  )
  ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'b', source: 'faq', content: 'abc', folderId: f.id },
    }),
    201,
  )
  ok(await svc.call('PATCH', `/api/v1/knowledge/${a.id}`, { token: m.token, body: { title: 'a2' } }))
  const s = ok(await svc.call('GET', '/api/v1/knowledge/stats', { token: m.token })).stats
  assert.is(s.totalDocuments, 2)
  assert.is(s.totalChunks, 2)
  assert.is(s.storageBytes, Buffer.byteLength('héllo') + 3)
  assert.equal(s.bySource, { faq: 1, manual: 1 })
  assert.equal(s.byFolder, [
    { folderId: null, name: '(root)', count: 1 },
    { folderId: f.id, name: 'F', count: 1 },
  ])
  assert.equal(s.recentActivity, { documentsAdded24h: 2, documentsUpdated24h: 1, searchesLast24h: 0 })
})

test('retention: the sweeper deletes entries older than retentionDays (0 = never) as a system actor', async ({
  svc,
}) => {
  const keep = await seedMember(svc.call, 'owner')
  const expire = await seedMember(svc.call, 'owner')
  ok(await svc.call('PATCH', '/api/v1/knowledge/config', { token: keep.token, body: { retentionDays: 0 } }))
  ok(await svc.call('PATCH', '/api/v1/knowledge/config', { token: expire.token, body: { retentionDays: 30 } }))
  const kept = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: keep.token,
      body: { title: 'k', source: 'text', content: 'k.' },
    }),
    201,
  )
  const gone = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: expire.token,
      body: { title: 'g', source: 'text', content: 'g.' },
    }),
    201,
  )
  const log = pino({ level: 'silent' })
  assert.is(await sweepRetention(svc.deps.db.pool, svc.deps.store, log, new Date(Date.now() + 10 * 86_400_000)), 0)
  await sweepRetention(svc.deps.db.pool, svc.deps.store, log, new Date(Date.now() + 31 * 86_400_000))
  await svc.deps.runner.waitFor(await svc.deps.store.headPosition(), 5000)
  expectError(await svc.call('GET', `/api/v1/knowledge/${gone.id}`, { token: expire.token }), 404, 'NOT_FOUND')
  ok(await svc.call('GET', `/api/v1/knowledge/${kept.id}`, { token: keep.token }))
  const [tomb] = await svc.deps.store.readStream(`entry-${gone.id}`)
  assert.equal(tomb.metadata.actor, { kind: 'system', process: 'retention-sweeper' })
})

test('a deletion cut short by a crash (tombstone appended, content not yet cut) is completed by the sweeper', async ({
  svc,
}) => {
  const m = await seedMember(svc.call, 'owner')
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'half', source: 'text', content: 'half deleted secret' },
    }),
    201,
  )
  // The first half of a delete, as the command appends it, without the cut that follows.
  const head = await svc.deps.store.streamRevision(`entry-${e.id}`)
  const meta = {
    actor: { kind: 'human' as const, userId: m.userId },
    correlationId: 'c',
    causationId: null,
    at: new Date().toISOString(),
    workspaceId: m.workspaceId,
  }
  await svc.deps.store.append(
    `entry-${e.id}`,
    [
      {
        id: crypto.randomUUID(),
        type: 'EntryDeleted',
        data: { entryId: e.id, workspaceId: m.workspaceId, deletedBy: m.userId, at: meta.at },
        metadata: meta,
      },
    ],
    head as number,
  )
  await svc.deps.runner.waitFor(await svc.deps.store.headPosition(), 5000)
  assert.is((await svc.deps.store.readStream(`entry-${e.id}`)).length, 2)
  assert.ok((await completeDeletions(svc.deps.db.pool, svc.deps.store)) >= 1)
  assert.equal(
    (await svc.deps.store.readStream(`entry-${e.id}`)).map((x) => x.type),
    ['EntryDeleted'],
  )
  const leaks = await svc.deps.db.pool.query(
    "SELECT count(*)::int AS n FROM es_events WHERE data::text LIKE '%half deleted secret%'",
  )
  assert.is(leaks.rows[0].n, 0)
})

test.run()
