import amqp, { type Channel, type ConfirmChannel, type ConsumeMessage, type RecoveringChannelModel } from 'amqplib'
import type { Logger } from 'pino'
import { type DeadJobHandler, type JobHandler, type JobQueue, MAX_DELIVERIES, decodeJob, encodeJob } from './port'

/**
 * RabbitMQ through amqplib: a durable quorum queue (it counts deliveries, including those of a
 * consumer that died before its ack) dead-lettering to `<name>.dead` after MAX_DELIVERIES;
 * persistent messages with publisher confirms; manual acks; bounded prefetch. The connection
 * recovers by itself; while it is down `publish` throws and the outbox tries again later.
 */
export class RabbitQueue implements JobQueue {
  readonly kind = 'rabbitmq'
  readonly durable = true
  private publisher?: ConfirmChannel
  private consumers: Channel[] = []
  private consumer?: { handler: JobHandler; onDead: DeadJobHandler; prefetch: number }
  /** The last failure of each job this process saw, for the dead-letter reason. */
  private lastErrors = new Map<string, string>()
  private inFlight = 0

  private constructor(
    private model: RecoveringChannelModel,
    private name: string,
    private log: Logger,
  ) {}

  static async connect(url: string, log: Logger, name = 'kb.tasks'): Promise<RabbitQueue> {
    let queue: RabbitQueue | undefined
    const model = await amqp.connect(url, {
      recovery: {
        initialDelay: 200,
        maxDelay: 2000,
        waitForConnect: false,
        setup: async (connection: amqp.ChannelModel) => {
          await queue?.setup(connection)
        },
      },
    })
    queue = new RabbitQueue(model, name, log)
    model.on('disconnect', (error: Error) => {
      queue!.publisher = undefined
      queue!.consumers = []
      log.warn({ err: error.message }, 'RabbitMQ connection lost; reconnecting')
    })
    model.on('error', (error: Error) => log.warn({ err: error.message }, 'RabbitMQ error'))
    await model.waitForConnect()
    return queue
  }

  private async setup(connection: amqp.ChannelModel) {
    const ch = await connection.createConfirmChannel()
    await ch.assertQueue(`${this.name}.dead`, { durable: true })
    await ch.assertQueue(this.name, {
      durable: true,
      arguments: {
        'x-queue-type': 'quorum',
        'x-delivery-limit': MAX_DELIVERIES - 1,
        'x-dead-letter-exchange': '',
        'x-dead-letter-routing-key': `${this.name}.dead`,
      },
    })
    ch.on('error', () => {})
    this.publisher = ch
    if (this.consumer) await this.attach(await connection.createChannel())
    this.log.info({ queue: this.name }, 'RabbitMQ connected')
  }

  async publish(job: Parameters<JobQueue['publish']>[0]) {
    const ch = this.publisher
    if (!ch) throw new Error('RabbitMQ is not connected')
    await new Promise<void>((resolve, reject) =>
      ch.sendToQueue(this.name, encodeJob(job), { persistent: true, contentType: 'application/json' }, (error) =>
        error ? reject(error) : resolve(),
      ),
    )
  }

  async consume(handler: JobHandler, onDead: DeadJobHandler, prefetch: number) {
    this.consumer = { handler, onDead, prefetch }
    // On the live connection now; `setup` attaches again after each reconnection.
    await this.attach(await this.model.createChannel())
  }

  private async attach(ch: Channel) {
    const consumer = this.consumer!
    ch.on('error', () => {})
    await ch.prefetch(consumer.prefetch)
    this.consumers.push(ch)
    await ch.consume(this.name, (msg) => msg && void this.deliver(ch, msg), { noAck: false })
    await ch.consume(`${this.name}.dead`, (msg) => msg && void this.dead(ch, msg), { noAck: false })
  }

  private async deliver(ch: Channel, msg: ConsumeMessage) {
    const job = decodeJob(msg.content)
    if (!job) return ch.ack(msg) // not ours to understand: dropped, never redelivered forever
    this.inFlight++
    try {
      await this.consumer!.handler(job)
      this.lastErrors.delete(job.taskId)
      ch.ack(msg)
    } catch (error) {
      this.lastErrors.set(job.taskId, (error as Error).message)
      try {
        ch.nack(msg, false, true)
      } catch {}
    } finally {
      this.inFlight--
    }
  }

  private async dead(ch: Channel, msg: ConsumeMessage) {
    const job = decodeJob(msg.content)
    try {
      if (job) {
        const last = this.lastErrors.get(job.taskId)
        await this.consumer!.onDead(job, `delivered ${MAX_DELIVERIES} times without success${last ? `: ${last}` : ''}`)
      }
      ch.ack(msg)
    } catch {
      try {
        ch.nack(msg, false, true)
      } catch {}
    }
  }

  /** Removes the queue and its dead-letter queue (tests, and operators retiring a queue name). */
  async deleteQueues() {
    const ch = await this.model.createChannel()
    await ch.deleteQueue(this.name)
    await ch.deleteQueue(`${this.name}.dead`)
    await ch.close()
  }

  async close() {
    for (const ch of this.consumers) await ch.close().catch(() => {})
    while (this.inFlight > 0) await new Promise((r) => setTimeout(r, 20))
    await this.model.close().catch(() => {})
  }
}
