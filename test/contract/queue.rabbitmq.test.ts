import { randomUUID } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createLogger } from '../../adapters/logger'
import { RabbitQueue } from '../../adapters/queue/rabbitmq'
import { until } from '../helpers/until'
import { queueContract } from './queue'

export const amqpUrl = process.env.TEST_AMQP_URL
const log = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent')

if (!amqpUrl) {
  const skipped = suite('job queue on RabbitMQ (TEST_AMQP_URL unset)')
  skipped.skip('contract suite', () => undefined)
  skipped.skip('a consumer that dies before its ack: the job is delivered to the next one', () => undefined)
  skipped.run()
} else {
  // Each test's queue is deleted when it closes.
  const temporary = async () => {
    const queue = await RabbitQueue.connect(amqpUrl, log, `kb.test.${randomUUID()}`)
    const close = queue.close.bind(queue)
    queue.close = async () => (await queue.deleteQueues(), await close())
    return queue
  }
  queueContract('RabbitMQ', temporary).run()

  const broker = suite('job queue on RabbitMQ: redelivery')
  broker('a consumer that dies before its ack: the job is delivered to the next one', async () => {
    const name = `kb.test.${randomUUID()}`
    const first = await RabbitQueue.connect(amqpUrl, log, name)
    let started = false
    await first.consume(
      async () => {
        started = true
        await new Promise(() => {}) // never acks
      },
      async () => undefined,
      1,
    )
    await first.publish({ taskId: 't-1', workspaceId: 'w' })
    await until('the first delivery', () => started)
    // The process "dies": its connection drops without an ack.
    await (first as unknown as { model: { close(): Promise<void> } }).model.close()
    const second = await RabbitQueue.connect(amqpUrl, log, name)
    const seen: string[] = []
    await second.consume(
      async (j) => void seen.push(j.taskId),
      async () => undefined,
      1,
    )
    await until('the redelivery', () => seen.length === 1)
    assert.equal(seen, ['t-1'])
    await second.deleteQueues()
    await second.close()
  })
  broker.run()
}
