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

test('page_search with its defaults returns the page that holds the question, beside pages that do not', async ({
  svc,
  key,
}) => {
  const pages: Record<string, string> = {
    Bilby: 'Bilbies are desert marsupials with long ears.',
    'Sheep stations': 'Merino sheep graze the dry inland stations of New South Wales and Queensland in winter.',
    Opals: "Most of the world's opals are mined around Coober Pedy, where miners live underground.",
    'Marsupial atlas': Array.from({ length: 60 }, (_, i) => `Map ${i}: marsupials, marsupials and marsupials.`).join(
      '\n',
    ),
  }
  for (const [title, content] of Object.entries(pages)) ok(await tool(svc.call, key, 'page_write', { title, content }))
  const r = ok(await tool(svc.call, key, 'page_search', { query: 'marsupials' }))
  assert.ok(
    r.results.some((p: { title: string }) => p.title === 'Bilby'),
    JSON.stringify(r.results.map((p: { title: string; score: number }) => [p.title, p.score])),
  )
})

test.run()
