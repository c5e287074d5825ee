import { randomUUID } from 'node:crypto'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createLogger } from '../../adapters/logger'
import { RabbitQueue } from '../../adapters/queue/rabbitmq'
import { freshPostgres, serverUrl } from '../../testkit/db'
import { newKey, tool } from '../helpers/agents'
import { upload, waitForTask } from '../helpers/ingestion'
import { until } from '../helpers/until'
import { startSite } from '../helpers/site'
import { dump } from '../../testkit/rows'
import { PostgresEventStore } from '../../adapters/eventstore/postgres'
import { hashingEmbedder } from '../../adapters/embedders/hashing'
import { tsvectorIndex } from '../../adapters/textIndex/tsvector'
import { projectors as createProjectors } from '../../app/capabilities'
import { rebuildProjector } from '../../projections/rebuild'
import { type Proc, freePort, start } from '../helpers/process'
import { client, ok, seedMember } from '../helpers/service'

// Process roles on one database and one broker: two API processes, two workers, two processes of the
// projector role (one holds the projectors, the other waits to take over) and one scheduler.
const test = suite('process roles: several processes, one database, one broker')
const amqpUrl = process.env.TEST_AMQP_URL ?? ''
const server = serverUrl ?? ''

const health = async (p: Proc) => (await (await fetch(`${p.base}/health`)).json()).data

if (!server || !amqpUrl) {
  test.skip('process roles (TEST_DATABASE_URL or TEST_AMQP_URL unset)', () => undefined)
} else {
  test('2 api, 2 worker, 2 projector, 1 scheduler: one flow, a dead worker and a dead projector replaced', async () => {
    const db = await freshPostgres(server)
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-topology-'))
    const queue = `kb.topology.${randomUUID()}`
    const procs: Proc[] = []
    const site = await startSite()
    // Each process on a "machine" of its own: a DATA_DIR it shares with no other, so an upload
    // through one API process reaches a worker through the database alone.
    const run = async (role: string, n: number) => {
      const proc = await start(path.join(dataDir, `machine-${n}`), await freePort(), {
        DATABASE_URL: db.url!,
        AMQP_URL: amqpUrl,
        AMQP_QUEUE: queue,
        KB_ROLE: role,
        KB_ALLOW_PRIVATE_URLS: 'true',
      })
      procs.push(proc)
      return proc
    }
    try {
      const projector = await run('projector', 0)
      // The second worker starts later: it takes over a task from the first.
      const [standby, scheduler, w1, a1, a2] = await Promise.all([
        run('projector', 1),
        run('scheduler', 2),
        run('worker', 3),
        run('api', 5),
        run('api', 6),
      ])
      assert.equal((await health(projector)).leases, { projections: 'held' })
      assert.ok((await health(projector)).projectors.length >= 5)
      assert.equal((await health(standby)).leases, { projections: 'waiting' })
      assert.equal((await health(standby)).projectors, [])
      assert.equal((await health(scheduler)).leases, { scheduler: 'held' })
      assert.equal([(await health(w1)).roles, (await health(a2)).roles], [['worker'], ['api']])
      // Only the API processes serve the API.
      assert.is((await fetch(`${w1.base}/api/v1/openapi.json`)).status, 404)

      const [call1, call2] = [client(a1.base), client(a2.base)]
      const owner = await seedMember(call1, 'owner')
      // A write through one API process is read through the other in the next request.
      const entry = ok(
        await call1('POST', '/api/v1/knowledge', {
          token: owner.token,
          body: { source: 'text', title: 'Okapi', content: 'The okapi is a giraffid of the Congo rainforest.' },
        }),
        201,
      )
      assert.is(ok(await call2('GET', `/api/v1/knowledge/${entry.id}`, { token: owner.token })).title, 'Okapi')
      // A file uploaded through one, processed by a worker (on another machine: the file reaches it
      // through the database), followed and searched through the other.
      const file = Buffer.from('# Tapirs\n\nTapirs use their prehensile snout to grab leaves and fruit.\n')
      const res = await upload(a2.base, owner.token, { source: 'file' }, { bytes: file, name: 'tapirs.md' })
      assert.is(res.status, 201, JSON.stringify(res.body))
      const task = await waitForTask(call1, owner.token, res.body.data.taskId, 60_000)
      assert.is(task.status, 'completed', JSON.stringify(task))
      const found = ok(
        await call2('POST', '/api/v1/knowledge/search', {
          token: owner.token,
          body: { query: 'prehensile snout', mode: 'text' },
        }),
      )
      assert.equal(
        found.results.map((r: any) => r.title),
        ['Tapirs'],
      )
      // The worker holding a task dies: the broker gives its job to the other worker, which finishes it.
      site.pages.set('/slow', {
        delayMs: 4000,
        body: '<html><head><title>Slow</title></head><body><p>Pangolins roll into a scaly ball.</p></body></html>',
      })
      const slow = ok(
        await call1('POST', '/api/v1/knowledge', {
          token: owner.token,
          body: { source: 'url', title: 'Pangolins', url: `${site.url}/slow` },
        }),
        201,
      )
      await until('the first worker fetches the page', async () => site.hits.includes('/slow'), 30_000)
      const w2 = await run('worker', 4)
      w1.child.kill('SIGKILL')
      await w1.exited
      const resumed = await waitForTask(call2, owner.token, slow.taskId, 90_000)
      assert.is(resumed.status, 'completed', JSON.stringify(resumed))
      assert.equal((await health(w2)).roles, ['worker'])
      const key = (await newKey(call1, owner.workspaceId, 'agent')).api_key
      const page = ok(await tool(call1, key, 'page_write', { title: 'Field notes', content: 'Okapis are shy.' }))
      assert.is(ok(await tool(call2, key, 'page_read', { pageId: page.pageId })).content, 'Okapis are shy.')
      // An agent behind a balancer that sticks to no process: each of its MCP requests goes to the
      // other API process in turn, for a whole flow.
      const served: string[] = []
      const alternating = (input: string | URL | Request, init?: RequestInit) => {
        const url = new URL(input instanceof Request ? input.url : input.toString())
        const base = [a1.base, a2.base][served.length % 2]
        served.push(base)
        return fetch(new URL(url.pathname + url.search, base), init)
      }
      const agent = new Client({ name: 'roaming-agent', version: '1.0.0' })
      await agent.connect(
        new StreamableHTTPClientTransport(new URL(`${a1.base}/mcp`), {
          requestInit: { headers: { 'x-api-key': key } },
          fetch: alternating,
        }),
      )
      const call = async (name: string, args: Record<string, unknown>) => {
        const r = await agent.callTool({ name, arguments: args })
        assert.not.ok(r.isError, `${name}: ${JSON.stringify(r.content)}`)
        return r.structuredContent as any
      }
      assert.ok((await agent.listTools()).tools.some((t) => t.name === 'page_write'))
      const seen = await call('kb_search', { query: 'okapi giraffid', mode: 'text', minScore: 0 })
      assert.is(seen.results[0].title, 'Okapi')
      const notes = await call('page_write', { title: 'Roaming notes', content: 'Okapis live in the Congo.' })
      assert.is((await call('page_read', { pageId: notes.pageId })).content, 'Okapis live in the Congo.')
      const versions = ok(await call1('GET', `/api/v1/pages/${notes.pageId}/versions`, { token: owner.token }))
      assert.equal(versions.versions[0].author.client, 'roaming-agent')
      await call(notes.undo.tool, notes.undo.arguments)
      const gone = await agent.callTool({ name: 'page_read', arguments: { pageId: notes.pageId } })
      assert.ok(gone.isError, 'undone: the page it made is gone')
      await agent.close()
      assert.ok(served.includes(a1.base) && served.includes(a2.base) && served.length >= 8, served.join(' '))

      // The projector dies: the process waiting for its lease takes over, from the checkpoints.
      projector.child.kill('SIGKILL')
      await projector.exited
      // Within 10 s (until fails past it).
      await until(
        'the standby holds the projections',
        async () => {
          const h = await health(standby)
          return h.leases.projections === 'held' && h.projectors.length > 0
        },
        10_000,
      )
      const after = await call2('POST', '/api/v1/knowledge', {
        token: owner.token,
        body: { source: 'text', title: 'Aye-aye', content: 'The aye-aye taps on wood to find grubs.' },
      })
      assert.is(after.status, 201)
      assert.is(after.headers.get('x-read-models-lag'), null, 'read-your-writes holds after the takeover')
      const list = ok(await call1('GET', '/api/v1/knowledge?includeContent=false', { token: owner.token }))
      assert.equal(list.items.map((e: any) => e.title).sort(), ['Aye-aye', 'Okapi', 'Pangolins', 'Tapirs'])
      // What the two projector processes built, one after the other, equals a rebuild from the log.
      for (const p of procs) if (p !== standby) p.child.kill('SIGKILL')
      standby.child.kill('SIGTERM')
      await Promise.all(procs.map((p) => p.exited))
      const store = await PostgresEventStore.open(db)
      try {
        for (const p of createProjectors({ embedder: hashingEmbedder(), vectors: false, textIndex: tsvectorIndex() })) {
          const live = await dump(db, p)
          await rebuildProjector(db, store, p, createLogger('silent'))
          assert.equal(await dump(db, p), live, p.name)
        }
      } finally {
        await store.close()
      }
    } finally {
      for (const p of procs) p.child.kill('SIGKILL')
      await Promise.all(procs.map((p) => p.exited))
      await db.close()
      const cleanup = await RabbitQueue.connect(amqpUrl, createLogger('silent'), queue)
      await cleanup.deleteQueues()
      await cleanup.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
      await site.close()
    }
  })
}

test.run()
