import { type DeadJobHandler, type Job, type JobHandler, type JobQueue, MAX_DELIVERIES } from './port'

/**
 * The embedded default: jobs live in this process only. Nothing is lost by that: the outbox
 * keeps every unfinished task and publishes them all again when the service starts.
 */
export class MemoryQueue implements JobQueue {
  readonly kind = 'memory'
  readonly durable = false
  private waiting: { job: Job; deliveries: number }[] = []
  private running = 0
  private consumer?: { handler: JobHandler; onDead: DeadJobHandler; prefetch: number }
  private closed = false
  private idle = new Set<() => void>()

  async publish(job: Job) {
    if (this.closed) throw new Error('the queue is closed')
    this.waiting.push({ job, deliveries: 0 })
    this.pump()
  }

  async consume(handler: JobHandler, onDead: DeadJobHandler, prefetch: number) {
    this.consumer = { handler, onDead, prefetch }
    this.pump()
  }

  /** Stops delivering and waits for the jobs in hand. */
  async close() {
    this.closed = true
    while (this.running > 0) await new Promise<void>((resolve) => this.idle.add(resolve))
  }

  private pump() {
    const consumer = this.consumer
    if (!consumer) return
    while (!this.closed && this.running < consumer.prefetch && this.waiting.length) {
      const item = this.waiting.shift()!
      item.deliveries++
      this.running++
      void consumer
        .handler(item.job)
        .catch(async (error: Error) => {
          if (this.closed) return
          if (item.deliveries < MAX_DELIVERIES) this.waiting.push(item)
          else await consumer.onDead(item.job, error.message).catch(() => {})
        })
        .finally(() => {
          this.running--
          for (const resolve of this.idle) resolve()
          this.idle.clear()
          this.pump()
        })
    }
  }
}
