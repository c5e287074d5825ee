import http from 'node:http'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { hashingEmbedder } from '../../adapters/embedders/hashing'
import { tsvectorIndex } from '../../adapters/textIndex/tsvector'
import { createApp } from '../../api/app'
import type { AnyRoute } from '../../api/route'
import type { Tool } from '../../api/tools'
import { capabilities, projectors, streams, surface } from '../../app/capabilities'
import { streamCatalog } from '../../commands/streams'
import { type TestService, client, ok, seedMember, startTestService } from '../helpers/service'

const test = suite<{ svc: TestService }>('the service is its list of capabilities')
test.before(async (ctx) => {
  ctx.svc = await startTestService()
})
test.after(async ({ svc }) => svc.stop())

const isRoute = (x: unknown): x is AnyRoute =>
  typeof x === 'object' && x !== null && 'method' in x && 'path' in x && 'handler' in x
const isTool = (x: unknown): x is Tool => typeof x === 'object' && x !== null && 'name' in x && 'run' in x

test("each capability's module registers every route list, tool and projector its folders offer", async () => {
  const deps = { embedder: hashingEmbedder(), vectors: false, textIndex: tsvectorIndex() }
  for (const capability of capabilities) {
    const api: Record<string, unknown> = await import(`../../api/${capability.name}`)
    const lists = Object.values(api).filter((v): v is unknown[] => Array.isArray(v))
    const offered = lists.flat()
    const missing = [
      ...offered.filter(isRoute).filter((r) => !capability.routes.includes(r)),
      ...offered.filter(isTool).filter((t) => !capability.tools.includes(t)),
    ].map((x) => ('path' in x ? `${x.method} ${x.path}` : x.name))
    assert.equal(missing, [], capability.name)
    const own: Record<string, unknown> = await import(`../../projections/${capability.name}`)
    const names = capability.projectors(deps).map((p) => p.name)
    const exported = Object.values(own).map((p) =>
      typeof p === 'function' ? (p as (d: typeof deps) => { name: string })(deps).name : (p as { name: string }).name,
    )
    assert.equal(names.sort(), exported.sort(), capability.name)
  }
  // Together: every projector once, every route and tool once.
  const all = projectors(deps).map((p) => p.name)
  assert.is(new Set(all).size, all.length)
  assert.is(new Set(surface.routes).size, surface.routes.length)
  assert.is(new Set(surface.tools.map((t) => t.name)).size, surface.tools.length)
})

test('the stream categories: what members read, what a bare id may name, each category declared once', () => {
  assert.equal(streams.members.sort(), ['collection', 'entry', 'folder', 'kbconfig', 'page', 'proposal', 'task'])
  assert.equal(streams.candidates('42'), [
    'entry-42',
    'task-42',
    'folder-42',
    'page-42',
    'collection-42',
    'proposal-42',
  ])
  assert.equal(streams.candidates('webhookdeliveries-42'), ['webhookdeliveries-42'])
  assert.equal(streams.candidates('reservation-user-email:a@b.c'), ['reservation-user-email:a@b.c'])
  // An id that only looks like a category's start is still a bare id.
  assert.equal(streams.candidates('entryx-1')[0], 'entry-entryx-1')
  assert.throws(
    () => streamCatalog([{ category: 'entry' }, { category: 'page' }, { category: 'entry' }]),
    /declared twice: entry/,
  )
})

test('a route answers the same whatever order the capabilities list their routes in', async ({ svc }) => {
  const member = await seedMember(svc.call)
  const reversed = { ...surface, routes: [...surface.routes].reverse() }
  const server = http.createServer(createApp(svc.deps, reversed).app.callback())
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const call = client(`http://127.0.0.1:${(server.address() as { port: number }).port}`)
    for (const path of ['/api/v1/knowledge/config', '/api/v1/knowledge/stats', '/api/v1/knowledge/folders']) {
      const there = ok(await call('GET', path, { token: member.token }))
      assert.equal(there, ok(await svc.call('GET', path, { token: member.token })), path)
    }
  } finally {
    await new Promise((resolve) => server.close(resolve))
  }
})

test.run()
