import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { newKey, tool } from '../helpers/agents'
import { detailStarts, type EditorContext, startWithEditor, unchanged } from '../helpers/pages'
import { ADMIN, expectError, ok, seedMember } from '../helpers/service'

const test = suite<EditorContext>('API: pages: other workspaces, keys, authors, roles')
test.before(startWithEditor)
test.after(async ({ svc }) => svc.stop())

test('another workspace cannot see or write a page, by id or by title; its own title makes its own page', async ({
  svc,
  key,
}) => {
  const mine = ok(await tool(svc.call, key, 'page_write', { title: 'Secret plans', mode: 'create', content: 'ours' }))
  const other = await seedMember(svc.call, 'owner')
  const otherKey = (await newKey(svc.call, other.workspaceId, 'intruder')).api_key
  await unchanged(svc, async () => {
    expectError(
      await tool(svc.call, otherKey, 'page_write', { pageId: mine.pageId, mode: 'append', content: 'theirs' }),
      404,
      'NOT_FOUND',
    )
    expectError(await tool(svc.call, otherKey, 'page_read', { pageId: mine.pageId }), 404, 'NOT_FOUND')
    expectError(await tool(svc.call, otherKey, 'page_read', { title: 'Secret plans' }), 404, 'NOT_FOUND')
    expectError(await svc.call('GET', `/api/v1/pages/${mine.pageId}`, { token: other.token }), 404, 'NOT_FOUND')
  })
  const theirs = ok(
    await tool(svc.call, otherKey, 'page_write', { title: 'Secret plans', mode: 'append', content: 'theirs' }),
  )
  assert.not.equal(theirs.pageId, mine.pageId)
  assert.is(theirs.version, 1)
  const still = ok(await tool(svc.call, key, 'page_read', { pageId: mine.pageId }))
  assert.equal([still.content, still.version], ['ours', 1])
})

test('a revoked key is INVALID_TOKEN; no key at all is UNAUTHORIZED', async ({ svc, m }) => {
  const k = await newKey(svc.call, m.workspaceId, 'short-lived')
  ok(await svc.call('DELETE', `/api/v1/admin/api-keys/${k.id}`, { token: ADMIN }))
  await unchanged(svc, async () => {
    expectError(await tool(svc.call, k.api_key, 'page_write', { title: 'Revoked', content: 'x' }), 401, 'INVALID_TOKEN')
    expectError(
      await svc.call('POST', '/api/v1/tools/native:page_write/execute', {
        body: { arguments: { title: 'Keyless', content: 'x' } },
      }),
      401,
      'UNAUTHORIZED',
    )
  })
})

test('an agent cannot set its own author: the version is by the key’s agent', async ({ svc, m, key }) => {
  const p = ok(
    await tool(svc.call, key, 'page_write', {
      title: 'Forged',
      content: 'x',
      author: { kind: 'human', userId: 'x', name: 'Boss' },
      client: 'someone-else',
    }),
  )
  const versions = ok(await svc.call('GET', `/api/v1/pages/${p.pageId}/versions`, { token: m.token })).versions
  assert.equal(versions[0].author, { kind: 'agent', client: 'claude-code' })
})

test('an unknown skill is VALIDATION_ERROR; a served skill is kept in the author', async ({ svc, m, key }) => {
  await unchanged(svc, async () => {
    detailStarts(
      expectError(
        await tool(svc.call, key, 'page_write', { title: 'Skilled', content: 'x', skill: 'world-domination' }),
        400,
        'VALIDATION_ERROR',
      ),
      'arguments.skill',
    )
  })
  const p = ok(await tool(svc.call, key, 'page_write', { title: 'Skilled', content: 'x', skill: 'brain-first' }))
  const versions = ok(await svc.call('GET', `/api/v1/pages/${p.pageId}/versions`, { token: m.token })).versions
  assert.equal(versions[0].author, { kind: 'agent', client: 'claude-code', skill: 'brain-first' })
})

test('a viewer cannot create a page but can read one', async ({ svc, m }) => {
  const p = ok(
    await svc.call('POST', '/api/v1/pages', { token: m.token, body: { title: 'For viewers', content: 'read me' } }),
    201,
  )
  const viewer = await seedMember(svc.call, 'viewer', m.workspaceId)
  await unchanged(svc, async () => {
    expectError(
      await svc.call('POST', '/api/v1/pages', { token: viewer.token, body: { title: 'By a viewer', content: 'x' } }),
      403,
      'FORBIDDEN',
    )
  })
  assert.is(ok(await svc.call('GET', `/api/v1/pages/${p.id}`, { token: viewer.token })).content, 'read me')
})

test.run()
