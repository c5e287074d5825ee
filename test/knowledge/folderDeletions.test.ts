import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import * as folders from '../../commands/knowledge/folders'
import { finishFolderDeletions } from '../../workers/knowledge/retention'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService; m: Member }>('API: folders (deletions)')
test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'editor')
})
test.after(async ({ svc }) => svc.stop())

test('deleting a folder moves its entries to root before the answer', async ({ svc, m }) => {
  const f = ok(await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'Doomed' } }), 201)
  const e = ok(
    await svc.call('POST', '/api/v1/knowledge', {
      token: m.token,
      body: { title: 'inside', source: 'text', content: 'c.', folderId: f.id },
    }),
    201,
  )
  const d = ok(await svc.call('DELETE', `/api/v1/knowledge/folders/${f.id}`, { token: m.token }))
  assert.equal(d, { deleted: true, id: f.id, movedToRoot: 1 })
  assert.not.ok('folderId' in ok(await svc.call('GET', `/api/v1/knowledge/${e.id}`, { token: m.token })))
  expectError(await svc.call('GET', `/api/v1/knowledge/folders/${f.id}`, { token: m.token }), 404, 'NOT_FOUND')
  expectError(await svc.call('DELETE', `/api/v1/knowledge/folders/${f.id}`, { token: m.token }), 404, 'NOT_FOUND')
  ok(await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: 'doomed' } }), 201)
})

test('entries written into a folder while it is deleted end at root, never in the deleted folder', async ({
  svc,
  m,
}) => {
  for (const delay of [0, 2, 5, 10]) {
    const f = ok(
      await svc.call('POST', '/api/v1/knowledge/folders', { token: m.token, body: { name: `Racing ${delay}` } }),
      201,
    )
    const kept = ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: m.token,
        body: { title: 'kept', source: 'text', content: 'c.' },
      }),
      201,
    )
    const writes = [
      ...[0, 1, 2].map((i) =>
        svc.call('POST', '/api/v1/knowledge', {
          token: m.token,
          body: { title: `racer ${i}`, source: 'text', content: 'c.', folderId: f.id },
        }),
      ),
      svc.call('POST', `/api/v1/knowledge/${kept.id}/move`, { token: m.token, body: { folderId: f.id } }),
    ]
    await new Promise((r) => setTimeout(r, delay))
    ok(await svc.call('DELETE', `/api/v1/knowledge/folders/${f.id}`, { token: m.token }))
    for (const r of await Promise.all(writes)) assert.ok([200, 201, 404].includes(r.status), JSON.stringify(r.body))
    const { rows } = await svc.deps.db.pool.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM kb_entries WHERE folder_id = $1',
      [f.id],
    )
    assert.is(rows[0].n, 0, `entries left in the deleted folder (delay ${delay} ms)`)
  }
})

test('a deletion stopped before its sweep (a crash): the retention sweeper moves the entries left to root', async ({
  svc,
  m,
}) => {
  const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
  const f = ok(await call('POST', '/api/v1/knowledge/folders', { name: 'Interrupted' }), 201)
  const e = ok(
    await call('POST', '/api/v1/knowledge', { title: 'left', source: 'text', content: 'c.', folderId: f.id }),
    201,
  )
  const { store, db, runner } = svc.deps
  const ctx = { actor: { kind: 'human' as const, userId: m.userId }, at: new Date().toISOString(), correlationId: 'c' }
  const crash = new Error('the process stopped after the deletion was appended')
  await folders
    .deleteFolder(store, db.pool, () => Promise.reject(crash), ctx, m.workspaceId, f.id)
    .then(
      () => assert.unreachable('the deletion went on past the crash'),
      (error) => assert.is(error, crash),
    )
  await runner.waitFor(await store.headPosition(), 10_000)
  assert.is(ok(await call('GET', `/api/v1/knowledge/${e.id}`)).folderId, f.id, 'left in the deleted folder')
  assert.is(await finishFolderDeletions(db.pool, store), 1)
  await runner.waitFor(await store.headPosition(), 10_000)
  assert.is(ok(await call('GET', `/api/v1/knowledge/${e.id}`)).folderId ?? null, null, 'at root')
  assert.is(await finishFolderDeletions(db.pool, store), 0, 'nothing left to move')
})

test.run()
