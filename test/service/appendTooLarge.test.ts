import { randomUUID } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AppendTooLarge, type EventStore } from '../../adapters/eventstore/port'
import { WorkspaceLimiter, runTask } from '../../workers/knowledge'
import { upload, waitForTask } from '../helpers/ingestion'
import { freshPostgres, serverUrl } from '../../testkit/db'
import { type Member, type TestService, seedMember, startTestService } from '../helpers/service'

// An event store with a size limit (EventStoreDB's maximum append size) refuses the write of a
// document's content (here a few kilobytes against a limit of 2,000 bytes). That is the document's
// doing, not a passing fault: the task fails with the reason at once, rather than the job being
// delivered again to parse and embed the same file until the queue gives up.
const test = suite<{ svc: TestService; m: Member }>('worker: a write over the event store limit')
const amqpUrl = process.env.TEST_AMQP_URL ?? ''
// A service without the worker role (which needs a server and a broker): this test runs the task
// itself, through a store that refuses the entry's content.
const ready = Boolean(serverUrl && amqpUrl)
test.before(async (ctx) => {
  if (!ready) return
  const db = await freshPostgres(serverUrl!)
  const env = {
    KB_ROLE: 'api,projector,scheduler',
    DATABASE_URL: db.url!,
    AMQP_URL: amqpUrl,
    AMQP_QUEUE: `kb.too-large.${randomUUID()}`,
  }
  ctx.svc = await startTestService(env, db)
  ctx.m = await seedMember(ctx.svc.call, 'editor')
})
test.after(async ({ svc }) => svc?.stop())

/** The service's store with a limit of 2,000 bytes an append, as EventStoreDB has one (of 1 MiB by default). */
const limited = (store: EventStore): EventStore =>
  new Proxy(store, {
    get(target, prop) {
      if (prop === 'append')
        return (streamId: string, events: unknown[], ...rest: unknown[]) =>
          JSON.stringify(events).length > 2000
            ? Promise.reject(new AppendTooLarge(streamId, 2000))
            : (target.append as (...args: unknown[]) => unknown).call(target, streamId, events, ...rest)
      const value = Reflect.get(target, prop, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })

const run = ready ? test : test.skip
run('the task fails with the limit as its reason, and the job is not delivered again', async ({ svc, m }) => {
  const text = `# Long\n\n${'A line of the document.\n'.repeat(200)}`
  const created = await upload(svc.url, m.token, { source: 'file' }, { bytes: Buffer.from(text), name: 'long.md' })
  assert.is(created.status, 201, JSON.stringify(created.body))
  const { taskId } = created.body.data
  const { deps } = svc
  const ingest = {
    store: limited(deps.store),
    db: deps.db.pool,
    embedder: deps.embedder,
    blobs: deps.blobs,
    parsers: deps.parsers,
    log: deps.log,
    allowPrivateUrls: deps.config.allowPrivateUrls,
    fetchTimeoutMs: 10_000,
    limiter: new WorkspaceLimiter(10),
  }
  // Resolving acknowledges the job; throwing would have the queue deliver it again.
  await runTask(ingest, { taskId, workspaceId: m.workspaceId })
  const task = await waitForTask(svc.call, m.token, taskId)
  assert.is(task.status, 'failed')
  assert.match(task.error, /over the event store's limit of 2000 bytes/)
})

test.run()
