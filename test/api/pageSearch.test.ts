import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { tool } from '../helpers/agents'
import { type ReviewContext, startWithHeldCollection } from '../helpers/pages'
import { ok } from '../helpers/service'

const test = suite<ReviewContext>('API: page search and its citations')
test.before(startWithHeldCollection)
test.after(async ({ svc }) => svc.stop())

test(
  'page_search: text, vector and hybrid; each result cites "<title> · v<version>" and counts one citation ' +
    'of that version',
  async ({ svc, m, key }) => {
    const w = ok(
      await tool(svc.call, key, 'page_write', {
        title: 'Kubernetes upgrade runbook',
        content: 'Drain each node before upgrading the kubelet.',
      }),
    )
    ok(await tool(svc.call, key, 'page_write', { pageId: w.pageId, content: 'Then uncordon the node.' }))
    ok(await tool(svc.call, key, 'page_write', { title: 'Lunch menu', content: 'Soup on Mondays.' }))
    for (const mode of ['text', 'vector', 'hybrid']) {
      const r = ok(
        await tool(svc.call, key, 'page_search', { query: 'drain node kubelet upgrade', mode, minScore: 0, limit: 5 }),
      )
      assert.is(r.mode, mode)
      assert.is(r.results[0].title, 'Kubernetes upgrade runbook', mode)
      assert.is(r.results[0].citation, 'Kubernetes upgrade runbook · v2')
      assert.is(r.results[0].version, 2)
    }
    const page = ok(await svc.call('GET', `/api/v1/pages/${w.pageId}?settle=true`, { token: m.token }))
    assert.is(page.citedCount, 3)
    const none = ok(await tool(svc.call, key, 'page_search', { query: 'zzqx unheard of', mode: 'text', minScore: 0 }))
    assert.equal(none.results, [])
  },
)

test.run()
