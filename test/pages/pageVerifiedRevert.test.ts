import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { turnVerificationOn } from '../helpers/agents'
import { ADMIN, type Member, type TestService, ok, seedMember, startTestService } from '../helpers/service'

interface Ctx {
  svc: TestService
  m: Member
}
const test = suite<Ctx>('API: a page whose latest content is its verified content reads verified')

test.before(async (ctx) => {
  ctx.svc = await startTestService({ PACK_CITATIONS_FLUSH_MS: '600000' })
  ctx.m = await seedMember(ctx.svc.call, 'owner')
  await turnVerificationOn(ctx.svc.call, ctx.m.token)
})
test.after(async ({ svc }) => svc.stop())

const packSearch = async (ctx: Ctx, slug: string, query: string) => {
  const client = new Client({ name: 'outside-agent', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${ctx.svc.url}/packs/${slug}/mcp`)))
  try {
    const found = (await client.callTool({ name: 'page_search', arguments: { query, mode: 'text', minScore: 0 } }))
      .structuredContent as { results: { citation: string; highlight: string }[] }
    return found.results.map((r) => [r.citation, r.highlight])
  } finally {
    await client.close()
  }
}

test(
  'write v1, verify, write v2, revert to v1: verified at v3 with nothing changed since, in the page, the list, ' +
    'the pack and after a rebuild; the next change drifts from v3',
  async (ctx) => {
    const { svc, m } = ctx
    const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
    const collectionId = ok(await call('POST', '/api/v1/collections', { name: 'Field guide' }), 201).id
    const made = ok(
      await call('POST', '/api/v1/pages', {
        title: 'Bilby burrows',
        content: 'Spiral, two metres deep.',
        collectionId,
      }),
      201,
    )
    ok(await call('POST', `/api/v1/pages/${made.id}/verify`))
    ok(await call('PATCH', `/api/v1/pages/${made.id}`, { content: 'Straight, one metre deep.', expectedVersion: 1 }))
    assert.is(ok(await call('GET', `/api/v1/pages/${made.id}`)).verification.state, 'changed_since_verified')

    const reverted = ok(await call('POST', `/api/v1/pages/${made.id}/revert`, { version: 1, expectedVersion: 2 }))
    assert.is(reverted.version, 3)
    const page = ok(await call('GET', `/api/v1/pages/${made.id}`))
    assert.equal([page.version, page.content], [3, 'Spiral, two metres deep.'])
    assert.is(page.verification.state, 'verified')
    assert.is(page.verification.verifiedVersion, 3, 'the pin moves to the version that restored its content')
    assert.is(page.verification.sinceVerified, undefined, 'nothing changed since')
    assert.is(page.verification.verifiedBy.name, 'Test User', 'still the person who verified that content')

    // The list's chips and its filters (the drift report) agree.
    const ids = async (state: string) =>
      ok(await call('GET', `/api/v1/pages?state=${state}`)).items.map((p: { id: string }) => p.id)
    assert.equal(await ids('verified'), [made.id])
    assert.equal(await ids('changed_since_verified'), [])
    // Verifying again has nothing to do.
    assert.is(ok(await call('POST', `/api/v1/pages/${made.id}/verify`)).version, 3)
    // The diff from the pin shows nothing.
    assert.equal(ok(await call('GET', `/api/v1/pages/${made.id}/diff`)).change, { added: 0, removed: 0 })

    // A public pack serves the verified-current page: its content, at v3.
    ok(await call('POST', '/api/v1/packs', { collectionId, slug: 'field-guide' }), 201)
    const html = await (await fetch(`${svc.url}/packs/field-guide`)).text()
    assert.ok(html.includes('Spiral, two metres deep.') && html.includes('Verified version 3'), html)
    assert.equal(await packSearch(ctx, 'field-guide', 'spiral burrows'), [
      ['Bilby burrows · v3', 'Spiral, two metres deep.'],
    ])

    // Rebuilt from the log, the read models say the same.
    for (const name of ['pages', 'page-index'])
      ok(await svc.call('POST', `/api/v1/admin/projections/${name}/rebuild`, { token: ADMIN }))
    const rebuilt = ok(await call('GET', `/api/v1/pages/${made.id}`))
    assert.equal([rebuilt.verification.state, rebuilt.verification.verifiedVersion], ['verified', 3])
    assert.equal(await packSearch(ctx, 'field-guide', 'spiral burrows'), [
      ['Bilby burrows · v3', 'Spiral, two metres deep.'],
    ])

    // The next change drifts from v3.
    ok(await call('PATCH', `/api/v1/pages/${made.id}`, { content: 'Shallow.', expectedVersion: 3 }))
    const drifted = ok(await call('GET', `/api/v1/pages/${made.id}`)).verification
    assert.equal(
      [drifted.state, drifted.verifiedVersion, drifted.sinceVerified.versions],
      ['changed_since_verified', 3, 1],
    )
    assert.ok((await (await fetch(`${svc.url}/packs/field-guide`)).text()).includes('Spiral, two metres deep.'))
  },
)

test('equal to an older verified pin, never re-verified, does not carry it: the pinned one does', async (ctx) => {
  const { svc, m } = ctx
  const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
  const made = ok(await call('POST', '/api/v1/pages', { title: 'Numbat diet', content: 'Termites.' }), 201)
  ok(await call('POST', `/api/v1/pages/${made.id}/verify`))
  ok(await call('PATCH', `/api/v1/pages/${made.id}`, { content: 'Termites and ants.', expectedVersion: 1 }))
  ok(await call('POST', `/api/v1/pages/${made.id}/verify`))
  // v3 restores v1, which a person verified once, but the pin is v2 now: v3 is a change since it.
  ok(await call('POST', `/api/v1/pages/${made.id}/revert`, { version: 1, expectedVersion: 2 }))
  const v = ok(await call('GET', `/api/v1/pages/${made.id}`)).verification
  assert.equal(
    [v.state, v.verifiedVersion, v.sinceVerified.change],
    ['changed_since_verified', 2, { added: 1, removed: 1 }],
  )
})

test.run()
