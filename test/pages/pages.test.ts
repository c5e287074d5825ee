import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { newKey, tool } from '../helpers/agents'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService; m: Member; key: string }>('API: pages, versions and page_write')
test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'editor')
  ctx.key = (await newKey(ctx.svc.call, ctx.m.workspaceId, 'claude-code')).api_key
})
test.after(async ({ svc }) => svc.stop())

test(
  'page_write create, append, replace: every write a version by the key’s agent; the receipt names an undo ' +
    'the agent can make',
  async ({ svc, m, key }) => {
    const created = ok(
      await tool(svc.call, key, 'page_write', {
        title: 'Runbook: deploys',
        mode: 'create',
        content: 'Step one.',
        skill: 'docs-as-you-go',
      }),
    )
    assert.equal([created.title, created.version, created.held], ['Runbook: deploys', 1, false])
    assert.match(created.receipt, /version 1/)
    const appended = ok(
      await tool(svc.call, key, 'page_write', { title: 'runbook: DEPLOYS', mode: 'append', content: 'Step two.' }),
    )
    assert.equal([appended.pageId, appended.version], [created.pageId, 2])
    assert.not.match(created.receipt, /\/api\/v1/, 'no route the key cannot call')
    assert.not.match(appended.receipt, /\/api\/v1/, 'no route the key cannot call')
    // The undo each receipt names is one tool call the agent's own key may make, also given as data.
    assert.equal(created.undo, { tool: 'page_delete', arguments: { pageId: created.pageId } })
    assert.match(created.receipt, `To undo: page_delete {"pageId":"${created.pageId}"}`)
    assert.equal(appended.undo, {
      tool: 'page_revert',
      arguments: { pageId: created.pageId, version: 1, expectedVersion: 2 },
    })
    assert.match(
      appended.receipt,
      `To undo: page_revert {"pageId":"${created.pageId}","version":1,"expectedVersion":2}`,
    )
    const undone = ok(await tool(svc.call, key, appended.undo.tool, appended.undo.arguments))
    assert.match(undone.receipt, /as version 3/)
    assert.equal(undone.undo.arguments, { pageId: created.pageId, version: 2, expectedVersion: 3 })
    assert.equal(
      [undone.version, ok(await tool(svc.call, key, 'page_read', { pageId: created.pageId })).content],
      [3, 'Step one.'],
    )
    const replaced = ok(
      await tool(svc.call, key, 'page_write', {
        pageId: created.pageId,
        mode: 'replace',
        content: 'All new.',
        expectedVersion: 3,
      }),
    )
    assert.is(replaced.version, 4)
    const page = ok(await svc.call('GET', `/api/v1/pages/${created.pageId}`, { token: m.token }))
    assert.equal([page.title, page.content, page.version, page.citedCount], ['Runbook: deploys', 'All new.', 4, 0])
    assert.not.ok('verification' in page, 'verification is off: no state at all')
    const history = ok(await svc.call('GET', `/api/v1/pages/${created.pageId}/versions`, { token: m.token })).versions
    assert.equal(
      history.map((v: any) => [v.version, v.mode, v.change.added, v.change.removed]),
      [
        [4, 'replace', 1, 1],
        [3, 'revert', 0, 2],
        [2, 'append', 2, 0],
        [1, 'create', 1, 0],
      ],
    )
    assert.equal(history[3].author, { kind: 'agent', client: 'claude-code', skill: 'docs-as-you-go' })
    assert.equal(history[0].author, { kind: 'agent', client: 'claude-code' })
    const v2 = ok(await svc.call('GET', `/api/v1/pages/${created.pageId}?version=2`, { token: m.token }))
    assert.equal([v2.version, v2.latestVersion, v2.content], [2, 4, 'Step one.\n\nStep two.'])
  },
)

test(
  'an agent undoes only its own writes: page_revert and page_delete refuse what a person or another agent ' + 'wrote',
  async ({ svc, m, key }) => {
    const other = (await newKey(svc.call, m.workspaceId, 'other-agent')).api_key
    // Another key under the same client name is another agent: names are the agent's to choose.
    const namesake = (await newKey(svc.call, m.workspaceId, 'claude-code')).api_key
    // A page the agent made, then taken back with the undo its receipt named.
    const mine = ok(
      await tool(svc.call, key, 'page_write', { title: 'Scratch: mine', mode: 'create', content: 'draft' }),
    )
    expectError(await tool(svc.call, other, mine.undo.tool, mine.undo.arguments), 403, 'FORBIDDEN')
    expectError(await tool(svc.call, namesake, mine.undo.tool, mine.undo.arguments), 403, 'FORBIDDEN')
    const taken = ok(await tool(svc.call, key, mine.undo.tool, mine.undo.arguments))
    assert.equal([taken.pageId, taken.deleted], [mine.pageId, true])
    expectError(await svc.call('GET', `/api/v1/pages/${mine.pageId}`, { token: m.token }), 404, 'NOT_FOUND')
    expectError(await tool(svc.call, key, 'page_delete', { pageId: mine.pageId }), 404, 'NOT_FOUND')
    // The title is free again: the same agent may make the page anew.
    ok(await tool(svc.call, key, 'page_write', { title: 'Scratch: mine', mode: 'create', content: 'again' }))

    // A person's version stands between the agent's write and the version it would restore.
    const shared = ok(await tool(svc.call, key, 'page_write', { title: 'Shared notes', mode: 'create', content: 'a' }))
    const agentEdit = ok(await tool(svc.call, key, 'page_write', { pageId: shared.pageId, content: 'b' }))
    ok(
      await svc.call('PATCH', `/api/v1/pages/${shared.pageId}`, {
        token: m.token,
        body: { content: 'a\n\nb\n\nc', expectedVersion: 2 },
      }),
    )
    const refused = expectError(
      await tool(svc.call, key, 'page_revert', agentEdit.undo.arguments),
      409,
      'VERSION_CONFLICT',
    )
    assert.match(refused.message, /version 3/)
    const notOwn = expectError(
      await tool(svc.call, key, 'page_revert', { pageId: shared.pageId, version: 1 }),
      403,
      'FORBIDDEN',
    )
    assert.match(notOwn.message, /version 3 of this page was not written with your API key/)
    expectError(await tool(svc.call, key, 'page_delete', { pageId: shared.pageId }), 403, 'FORBIDDEN')
    const page = ok(await svc.call('GET', `/api/v1/pages/${shared.pageId}`, { token: m.token }))
    assert.equal([page.version, page.content], [3, 'a\n\nb\n\nc'], 'a refused undo changes nothing')
    // An undo without the version to restore is refused like any tool's bad arguments.
    expectError(await tool(svc.call, key, 'page_revert', { pageId: shared.pageId }), 400, 'VALIDATION_ERROR')
  },
)

test(
  'append creates a missing page; create on a taken title is CONFLICT; replace of a missing page is ' + 'NOT_FOUND',
  async ({ svc, key }) => {
    const made = ok(await tool(svc.call, key, 'page_write', { title: 'Fresh notes', content: 'first' }))
    assert.is(made.version, 1)
    expectError(
      await tool(svc.call, key, 'page_write', { title: 'FRESH NOTES', mode: 'create', content: 'again' }),
      409,
      'CONFLICT',
    )
    expectError(
      await tool(svc.call, key, 'page_write', { title: 'Nowhere', mode: 'replace', content: 'x' }),
      404,
      'NOT_FOUND',
    )
    expectError(await tool(svc.call, key, 'page_write', { pageId: 'no-such-page', content: 'x' }), 404, 'NOT_FOUND')
  },
)

test('appends that create the same new page at once all land on it, one version each', async () => {
  // On disk, where the moment between a page's title reservation and its first version is longest.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-test-'))
  const svc = await startTestService({}, undefined, { dataDir })
  try {
    const m = await seedMember(svc.call, 'editor')
    const key = (await newKey(svc.call, m.workspaceId, 'claude-code')).api_key
    // Ten new titles, four appends each, among other writes (folder creates), all at once; three rounds.
    for (const round of [1, 2, 3]) {
      const writes = Array.from({ length: 40 }, (_, i) => ({ title: `Race ${round}.${i % 10}`, content: `part ${i}` }))
      const [answers] = await Promise.all([
        Promise.all(writes.map((w) => tool(svc.call, key, 'page_write', { ...w, mode: 'append' }))),
        Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            svc.call('POST', '/api/v1/knowledge/folders', {
              token: m.token,
              body: { name: `Race folder ${round}.${i}` },
            }),
          ),
        ),
      ])
      const written = answers.map((a) => ok(a))
      for (let t = 0; t < 10; t++) {
        const mine = written.filter((_, i) => i % 10 === t)
        assert.is(new Set(mine.map((w) => w.pageId)).size, 1)
        assert.equal(
          mine.map((w) => w.version).sort((a, b) => a - b),
          [1, 2, 3, 4],
        )
        const page = ok(await svc.call('GET', `/api/v1/pages/${mine[0].pageId}`, { token: m.token }))
        for (let i = t; i < 40; i += 10) assert.ok(page.content.includes(`part ${i}`), `part ${i}`)
      }
    }
  } finally {
    await svc.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
})

test(
  'a stale expectedVersion is 409 VERSION_CONFLICT naming the current version; two replaces at once: one ' + 'wins',
  async ({ svc, key }) => {
    const p = ok(await tool(svc.call, key, 'page_write', { title: 'Contended', mode: 'create', content: 'v1' }))
    const stale = expectError(
      await tool(svc.call, key, 'page_write', { pageId: p.pageId, mode: 'replace', content: 'x', expectedVersion: 7 }),
      409,
      'VERSION_CONFLICT',
    )
    assert.match(stale.message, /version 1/)
    assert.equal(stale.details, ['currentVersion: 1'])
    const both = await Promise.all(
      ['a', 'b'].map((c) =>
        tool(svc.call, key, 'page_write', { pageId: p.pageId, mode: 'replace', content: c, expectedVersion: 1 }),
      ),
    )
    assert.equal(both.map((r) => r.status).sort(), [200, 409])
    const loser = both.find((r) => r.status === 409)!
    assert.equal(loser.body.error.details, ['currentVersion: 2'])
    expectError(
      await tool(svc.call, key, 'page_write', { pageId: p.pageId, mode: 'append', content: 'x', expectedVersion: 1 }),
      409,
      'VERSION_CONFLICT',
    )
  },
)

test('people create, edit with expectedVersion, diff and revert; history is never rewritten', async ({ svc, m }) => {
  const p = ok(
    await svc.call('POST', '/api/v1/pages', {
      token: m.token,
      body: { title: 'Onboarding', content: 'line a\nline b\n' },
    }),
    201,
  )
  assert.equal(p.author, { kind: 'human', userId: m.userId, name: 'Test User' })
  ok(
    await svc.call('PATCH', `/api/v1/pages/${p.id}`, {
      token: m.token,
      body: { content: 'line a\nline c\n', expectedVersion: 1 },
    }),
  )
  expectError(
    await svc.call('PATCH', `/api/v1/pages/${p.id}`, { token: m.token, body: { content: 'zzz', expectedVersion: 1 } }),
    409,
    'VERSION_CONFLICT',
  )
  const d = ok(await svc.call('GET', `/api/v1/pages/${p.id}/diff?from=1&to=2`, { token: m.token }))
  assert.match(d.diff, /-line b\n\+line c/)
  assert.equal(d.change, { added: 1, removed: 1 })
  const r = ok(await svc.call('POST', `/api/v1/pages/${p.id}/revert`, { token: m.token, body: { version: 1 } }))
  assert.equal([r.version, r.content], [3, 'line a\nline b\n'])
  const versions = ok(await svc.call('GET', `/api/v1/pages/${p.id}/versions`, { token: m.token })).versions
  assert.equal(
    versions.map((v: any) => [v.version, v.mode, v.revertedFrom ?? null]),
    [
      [3, 'revert', 1],
      [2, 'replace', null],
      [1, 'create', null],
    ],
  )
  const v2 = ok(await svc.call('GET', `/api/v1/pages/${p.id}/versions/2`, { token: m.token }))
  assert.is(v2.content, 'line a\nline c\n')
  expectError(
    await svc.call('POST', `/api/v1/pages/${p.id}/revert`, { token: m.token, body: { version: 9 } }),
    400,
    'VALIDATION_ERROR',
  )
})

test('list pages by collection and title, paginated', async ({ svc, m }) => {
  const col = ok(await svc.call('POST', '/api/v1/collections', { token: m.token, body: { name: 'Handbook' } }), 201)
  ok(
    await svc.call('POST', '/api/v1/pages', {
      token: m.token,
      body: { title: 'Handbook: leave', content: 'x', collectionId: col.id },
    }),
    201,
  )
  ok(
    await svc.call('POST', '/api/v1/pages', {
      token: m.token,
      body: { title: 'Handbook: travel', content: 'y', collectionId: col.id },
    }),
    201,
  )
  const listed = ok(await svc.call('GET', `/api/v1/pages?collectionId=${col.id}&limit=1`, { token: m.token }))
  assert.equal([listed.total, listed.items.length, listed.pagination.hasNext], [2, 1, true])
  assert.is(listed.items[0].title, 'Handbook: travel')
  const found = ok(await svc.call('GET', '/api/v1/pages?search=LEAVE', { token: m.token }))
  assert.equal(
    found.items.map((p: any) => p.title),
    ['Handbook: leave'],
  )
  assert.is(ok(await svc.call('GET', `/api/v1/collections/${col.id}`, { token: m.token })).pageCount, 2)
})

test.run()
