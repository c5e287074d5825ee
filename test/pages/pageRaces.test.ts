import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { tool } from '../helpers/agents'
import { type EditorContext, startWithEditor } from '../helpers/pages'
import { expectError, ok } from '../helpers/service'

const test = suite<EditorContext>('API: pages survive races')
test.before(startWithEditor)
test.after(async ({ svc }) => svc.stop())

test('two replaces with the same expectedVersion at once: one wins, the page has 2 versions', async ({
  svc,
  m,
  key,
}) => {
  const p = ok(await tool(svc.call, key, 'page_write', { title: 'Raced replace', mode: 'create', content: 'v1' }))
  const both = await Promise.all(
    ['a', 'b'].map((content) =>
      tool(svc.call, key, 'page_write', { pageId: p.pageId, mode: 'replace', content, expectedVersion: 1 }),
    ),
  )
  assert.equal(both.map((r) => r.status).sort(), [200, 409])
  expectError(both.find((r) => r.status === 409)!, 409, 'VERSION_CONFLICT')
  const history = ok(await svc.call('GET', `/api/v1/pages/${p.pageId}/versions`, { token: m.token }))
  assert.equal([history.version, history.versions.length], [2, 2])
})

test('twenty appends at once to the same new title make one page with versions 1 to 20', async ({ svc, m, key }) => {
  const all = await Promise.all(
    Array.from({ length: 20 }, (_, i) =>
      tool(svc.call, key, 'page_write', { title: 'Crowded page', mode: 'append', content: `line ${i}` }),
    ),
  )
  assert.equal(
    all.map((r) => r.status),
    Array(20).fill(200),
    JSON.stringify(all.filter((r) => r.status !== 200).map((r) => r.body)),
  )
  const ids = new Set(all.map((r) => r.body.data.pageId))
  assert.is(ids.size, 1)
  assert.equal(
    all.map((r) => r.body.data.version).sort((a, b) => a - b),
    Array.from({ length: 20 }, (_, i) => i + 1),
  )
  const history = ok(await svc.call('GET', `/api/v1/pages/${[...ids][0]}/versions`, { token: m.token }))
  assert.is(history.versions.length, 20)
})

test.run()
