import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { newKey, tool } from '../helpers/agents'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService; owner: Member }>("undo by actor: a window of one actor's writes taken back")
test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.owner = await seedMember(ctx.svc.call, 'owner')
})
test.after(async ({ svc }) => svc.stop())

const tick = () => new Promise((r) => setTimeout(r, 20))

test('a dry run lists the plan with diffs; the undo reverts, deletes, restores and skips the conflict', async ({
  svc,
  owner,
}) => {
  const as = (m: Member) => (method: string, path: string, body?: object) =>
    svc.call(method, path, { token: m.token, body })
  const own = as(owner)
  const mallory = await seedMember(svc.call, 'editor', owner.workspaceId)
  const bad = as(mallory)
  // Before the window: the owner's page and entry.
  const page = ok(await own('POST', '/api/v1/pages', { title: 'Runbook', content: 'Restart the relay.' }), 201)
  const e0 = ok(
    await own('POST', '/api/v1/knowledge', { title: 'Policy', content: 'Original text.', source: 'text' }),
    201,
  )
  await tick()
  const from = new Date().toISOString()
  // In the window, the editor vandalises, adds spam, and makes a page the owner then builds on.
  ok(await bad('PATCH', `/api/v1/knowledge/${e0.id}`, { content: 'Vandalised.' }))
  const spam = ok(await bad('POST', '/api/v1/knowledge', { title: 'Spam', content: 'Buy now.', source: 'text' }), 201)
  ok(await bad('PATCH', `/api/v1/pages/${page.id}`, { content: 'Delete the relay.' }))
  const theirs = ok(await bad('POST', '/api/v1/pages', { title: 'Notes', content: 'Draft.' }), 201)
  await tick()
  const to = new Date().toISOString()
  // After the window, the owner writes on the editor's page: a conflict.
  ok(await own('PATCH', `/api/v1/pages/${theirs.id}`, { content: 'Draft, reviewed.' }))

  const plan = ok(await own('POST', '/api/v1/undo', { actor: mallory.userId, from, to, dryRun: true }))
  const byId = new Map<string, any>(plan.items.map((i: any) => [i.id, i]))
  assert.is(plan.items.length, 4)
  assert.equal([byId.get(e0.id).action, byId.get(spam.id).action], ['restore', 'delete'])
  assert.match(byId.get(e0.id).diff, /-Vandalised\.\n\+Original text\./)
  assert.equal([byId.get(page.id).action, byId.get(page.id).toVersion], ['revert', 1])
  assert.match(byId.get(page.id).diff, /-Delete the relay\.\n\+Restart the relay\./)
  assert.is(byId.get(theirs.id).action, 'delete')
  assert.match(byId.get(theirs.id).conflict, /version 2 was written by someone else/)
  // A dry run changes nothing.
  assert.is(ok(await own('GET', `/api/v1/knowledge/${e0.id}`)).content, 'Vandalised.')

  const done = ok(await own('POST', '/api/v1/undo', { actor: mallory.userId, from, to }))
  assert.match(done.undoId, /^[0-9a-f-]{36}$/)
  const status = new Map(done.items.map((i: any) => [i.id, i.status]))
  assert.equal(
    [status.get(e0.id), status.get(spam.id), status.get(page.id), status.get(theirs.id)],
    ['done', 'done', 'done', 'skipped'],
  )
  assert.is(ok(await own('GET', `/api/v1/knowledge/${e0.id}`)).content, 'Original text.')
  expectError(await own('GET', `/api/v1/knowledge/${spam.id}`), 404, 'NOT_FOUND')
  const reverted = ok(await own('GET', `/api/v1/pages/${page.id}`))
  assert.equal([reverted.version, reverted.content], [3, 'Restart the relay.'])
  assert.is(ok(await own('GET', `/api/v1/pages/${theirs.id}`)).content, 'Draft, reviewed.')
  // One audited operation: its event, and the events it caused carry its id.
  const audit = ok(await own('GET', `/api/v1/audit/events?streamId=undo-${done.undoId}`))
  assert.equal(
    [audit.events[0].type, audit.events[0].data.actor, audit.events[0].data.items.length],
    ['UndoPerformed', mallory.userId, 4],
  )
  const pageEvents = ok(await own('GET', `/api/v1/audit/events?streamId=page-${page.id}&limit=1`)).events
  assert.is(pageEvents[0].metadata.causationId, done.undoId)
  // Forced, the conflict is taken back too.
  const forced = ok(await own('POST', '/api/v1/undo', { actor: mallory.userId, from, to, force: true }))
  assert.is(forced.items.find((i: any) => i.id === theirs.id).status, 'done')
  expectError(await own('GET', `/api/v1/pages/${theirs.id}`), 404, 'NOT_FOUND')
})

test('an undo restores metadata whole: keys the actor added are gone, in the entry, its filters and search', async ({
  svc,
  owner,
}) => {
  const own = (method: string, path: string, body?: object) => svc.call(method, path, { token: owner.token, body })
  const mallory = await seedMember(svc.call, 'editor', owner.workspaceId)
  const e = ok(
    await own('POST', '/api/v1/knowledge', {
      title: 'Refunds',
      content: 'Refunds within thirty days.',
      source: 'text',
      metadata: { category: 'policy', tags: ['billing'] },
    }),
    201,
  )
  await tick()
  const from = new Date().toISOString()
  ok(
    await svc.call('PATCH', `/api/v1/knowledge/${e.id}`, {
      token: mallory.token,
      body: { metadata: { tags: ['spam'], author: 'mallory' } },
    }),
  )
  await tick()
  const to = new Date().toISOString()
  const done = ok(await own('POST', '/api/v1/undo', { actor: mallory.userId, from, to }))
  assert.equal(
    done.items.map((i: any) => [i.id, i.action, i.status]),
    [[e.id, 'restore', 'done']],
  )
  assert.equal(ok(await own('GET', `/api/v1/knowledge/${e.id}`)).metadata, { category: 'policy', tags: ['billing'] })
  assert.equal(ok(await own('GET', '/api/v1/knowledge?tag=spam')).total, 0)
  assert.equal(ok(await own('GET', '/api/v1/knowledge?tag=billing')).total, 1)
  const search = (tag: string) =>
    own('POST', '/api/v1/knowledge/search', { query: 'refunds', mode: 'text', minScore: 0, tag })
  assert.equal(ok(await search('spam')).results, [])
  assert.equal(ok(await search('billing')).results.length, 1)
})

test('an agent by its API key id; owners and admins only; a window that ends before it starts is a 400', async ({
  svc,
  owner,
}) => {
  const key = await newKey(svc.call, owner.workspaceId, 'rogue-agent')
  const from = new Date().toISOString()
  const made = ok(await tool(svc.call, key.api_key, 'page_write', { title: 'Agent page', content: 'Hallucinated.' }))
  await tick()
  const to = new Date().toISOString()
  const call = (body: object, token = owner.token) => svc.call('POST', '/api/v1/undo', { token, body })
  const byKey = ok(await call({ actor: key.id, from, to, dryRun: true }))
  assert.equal(
    byKey.items.map((i: any) => [i.id, i.action]),
    [[made.pageId, 'delete']],
  )
  const byClient = ok(await call({ actor: 'rogue-agent', from, to, dryRun: true }))
  assert.equal(byClient.items.length, 1)
  const viewer = await seedMember(svc.call, 'viewer', owner.workspaceId)
  expectError(await call({ actor: key.id, from, to }, viewer.token), 403, 'FORBIDDEN')
  expectError(await call({ actor: key.id, from: to, to: from }), 400, 'VALIDATION_ERROR')
  expectError(await call({ actor: key.id, from: 'yesterday', to }), 400, 'VALIDATION_ERROR')
})

test.run()
