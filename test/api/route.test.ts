import type { AddressInfo } from 'node:net'
import Router from '@koa/router'
import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import Koa from 'koa'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Deps } from '../../api/deps'
import { mount, readBack, route } from '../../api/route'

// A handler is given the services its route names in `uses`, and nothing else of the service.
// The services here are stand-ins: what is checked is which of them reach the handler.
const services = {
  db: 'the database',
  store: 'the event store',
  blobs: 'the blob store',
  config: { readYourWritesTimeoutMs: 50 },
  runner: { waitFor: async (position: number) => position < 10 },
  citations: { settle: async () => 0 },
} as unknown as Deps

const serve = async () => {
  const router = new Router()
  mount(router, services, [
    route({
      method: 'get',
      path: '/named',
      tag: 't',
      auth: 'none',
      summary: 'answers the services it was given',
      uses: ['db', 'blobs'],
      response: t.array(t.string),
      handler: async (_input, deps) => E.right({ data: Object.keys(deps).sort() }),
    }),
    route({
      method: 'get',
      path: '/nothing',
      tag: 't',
      auth: 'none',
      summary: 'names no services',
      response: t.array(t.string),
      handler: async (_input, deps) => E.right({ data: Object.keys(deps) }),
    }),
    route({
      method: 'post',
      path: '/written/:position',
      tag: 't',
      auth: 'none',
      summary: 'a write whose answer is read once the read models reach it',
      response: t.type({ readAt: t.number }),
      handler: async ({ params }) => {
        const position = Number((params as { position: string }).position)
        return readBack(position, async () => ({ readAt: position }), 201)
      },
    }),
  ])
  const app = new Koa()
  app.use(router.routes())
  const server = app.listen(0)
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { base, close: () => new Promise((r) => server.close(r)) }
}

test('a handler gets only the services its route names', async () => {
  const { base, close } = await serve()
  try {
    const named = await (await fetch(`${base}/named`)).json()
    assert.equal(named.data, ['blobs', 'db'])
    const nothing = await (await fetch(`${base}/nothing`)).json()
    assert.equal(nothing.data, [])
  } finally {
    await close()
  }
})

test("a write's answer is read after the read models reached it, and says when they had not", async () => {
  const { base, close } = await serve()
  try {
    const caught = await fetch(`${base}/written/3`, { method: 'POST' })
    assert.is(caught.status, 201)
    assert.equal((await caught.json()).data, { readAt: 3 })
    assert.is(caught.headers.get('x-read-models-lag'), null)
    const behind = await fetch(`${base}/written/12`, { method: 'POST' })
    assert.is(behind.status, 201)
    assert.equal((await behind.json()).data, { readAt: 12 })
    assert.is(behind.headers.get('x-read-models-lag'), 'true')
  } finally {
    await close()
  }
})

test('a route declares the codec of its answer or the stream it produces, not neither and not both', () => {
  const spec = { method: 'get', path: '/bare', tag: 't', auth: 'none', summary: 's' } as const
  const handler = async () => E.right({ data: 'sent as it is' })
  assert.throws(() => route({ ...spec, handler }), /GET \/bare: declare either/)
  const both = { response: t.string, produces: { type: 'text/plain', description: 'text' } }
  assert.throws(() => route({ ...spec, ...both, handler }), /GET \/bare: declare either/)
  assert.is(route({ ...spec, response: t.string, handler }).path, '/bare')
})

test.run()
