import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { randomUUID } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createLogger } from '../../adapters/logger'
import { RabbitQueue } from '../../adapters/queue/rabbitmq'
import { until } from '../helpers/until'
import { waitForTask } from '../helpers/ingestion'
import { freePort, start } from '../helpers/process'
import { client, ok, seedMember, startTestService } from '../helpers/service'
import { html, startSite } from '../helpers/site'

const test = suite('ingestion survives crashes and a broker outage')

const completions = async (call: ReturnType<typeof client>, token: string, taskId: string) => {
  const events = ok(await call('GET', `/api/v1/audit/events?streamId=task-${taskId}&limit=100`, { token })).events as {
    type: string
    data: any
  }[]
  return events
}

test(
  'a worker killed mid-task: after restart the task completes once and no partial chunks were ever ' + 'searchable',
  async () => {
    const site = await startSite()
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-crash-'))
    const port = await freePort()
    const env = { KB_ALLOW_PRIVATE_URLS: 'true', FETCH_TIMEOUT_MS: '20000' }
    let proc = await start(dataDir, port, env)
    try {
      const call = client(proc.base)
      const owner = await seedMember(call)
      site.pages.set('/slow', {
        body: html('Slow', '<p>Echidnas are egg-laying mammals with spines.</p>'),
        delayMs: 8000,
      })
      const created = ok(
        await call('POST', '/api/v1/knowledge', {
          token: owner.token,
          body: { title: 'Echidnas', source: 'url', url: `${site.url}/slow` },
        }),
        201,
      )
      await until('the download to start', () => site.hits.includes('/slow'))
      const midway = ok(await call('GET', `/api/v1/knowledge/tasks/${created.taskId}`, { token: owner.token }))
      assert.is(midway.status, 'processing')
      const found = ok(
        await call('POST', '/api/v1/knowledge/search', {
          token: owner.token,
          body: { query: 'echidnas egg-laying', mode: 'text', minScore: 0 },
        }),
      )
      assert.is(found.results.length, 0, 'nothing searchable before the task stores its chunks')
      proc.child.kill('SIGKILL')
      await proc.exited
      site.pages.set('/slow', { body: html('Slow', '<p>Echidnas are egg-laying mammals with spines.</p>') })
      proc = await start(dataDir, port, env)
      const again = client(proc.base)
      const task = await waitForTask(again, owner.token, created.taskId)
      assert.is(task.status, 'completed', JSON.stringify(task))
      const events = await completions(again, owner.token, created.taskId)
      assert.is(events.filter((e) => e.type === 'TaskCompleted').length, 1)
      assert.equal(
        events
          .filter((e) => e.type === 'TaskStarted')
          .map((e) => e.data.attempt)
          .sort(),
        [1, 2],
      )
      const entry = ok(await again('GET', `/api/v1/knowledge/${created.id}`, { token: owner.token }))
      assert.is(entry.processingStatus, 'completed')
      const results = ok(
        await again('POST', '/api/v1/knowledge/search', {
          token: owner.token,
          body: { query: 'echidnas egg-laying', mode: 'text', minScore: 0 },
        }),
      ).results
      assert.is(results.length, 1)
      const chunks = ok(await again('GET', '/api/v1/knowledge/stats', { token: owner.token })).stats.totalChunks
      assert.is(chunks, task.result.chunkCount, 'no duplicate chunks')
    } finally {
      proc.child.kill('SIGKILL')
      await proc.exited
      await site.close()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  },
)

const amqpUrl = process.env.TEST_AMQP_URL
const rabbitmqctl = (...args: string[]) => execFileSync('rabbitmqctl', args, { stdio: 'ignore', timeout: 60_000 })

if (amqpUrl) {
  test(
    'RabbitMQ stopped while a job is queued: it is published when the broker is back, and the task ' + 'completes',
    async () => {
      const site = await startSite()
      site.pages.set('/page', { body: html('Broker', '<p>Platypuses detect prey by electroreception.</p>') })
      const queueName = `kb.test.${randomUUID()}`
      const service = await startTestService({
        KB_ALLOW_PRIVATE_URLS: 'true',
        AMQP_URL: amqpUrl,
        AMQP_QUEUE: queueName,
      })
      try {
        const owner = await seedMember(service.call)
        rabbitmqctl('stop_app')
        let created: any
        try {
          created = ok(
            await service.call('POST', '/api/v1/knowledge', {
              token: owner.token,
              body: { title: 'Platypus', source: 'url', url: `${site.url}/page` },
            }),
            201,
          )
          await new Promise((r) => setTimeout(r, 1500))
          const waiting = ok(
            await service.call('GET', `/api/v1/knowledge/tasks/${created.taskId}`, { token: owner.token }),
          )
          assert.is(waiting.status, 'pending', 'the write succeeded; the job waits in the outbox')
          const outbox = await service.deps.db.pool.query('SELECT published_at FROM kb_outbox WHERE task_id = $1', [
            created.taskId,
          ])
          assert.is(outbox.rows[0].published_at, null)
          const health = ok(await service.call('GET', '/health'))
          assert.equal(health.dependencies.jobQueue, { kind: 'rabbitmq', unpublished: 1 })
        } finally {
          rabbitmqctl('start_app')
        }
        const task = await waitForTask(service.call, owner.token, created.taskId, 60_000)
        assert.is(task.status, 'completed', JSON.stringify(task))
      } finally {
        await service.stop()
        const cleanup = await RabbitQueue.connect(amqpUrl, createLogger('silent'), queueName)
        await cleanup.deleteQueues()
        await cleanup.close()
        await site.close()
      }
    },
  )
} else {
  test.skip('RabbitMQ stopped while a job is queued (TEST_AMQP_URL unset)', () => undefined)
}

test.run()
