// The contract every JobQueue adapter passes (run by *.test.ts files per adapter).
import { randomUUID } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { type Job, type JobQueue, MAX_DELIVERIES } from '../../adapters/queue/port'
import { until } from '../helpers/until'

const job = (): Job => ({ taskId: randomUUID(), workspaceId: 'ws-1' })

/** `open` gives a fresh, empty queue each time (a new name on the broker). */
export const queueContract = (name: string, open: () => Promise<JobQueue>) => {
  const test = suite(`job queue contract: ${name}`)

  test('a published job is delivered once and acknowledged', async () => {
    const queue = await open()
    const seen: string[] = []
    await queue.consume(
      async (j) => void seen.push(j.taskId),
      async () => assert.unreachable('no job should die'),
      4,
    )
    const jobs = [job(), job(), job()]
    for (const j of jobs) await queue.publish(j)
    await until('three deliveries', () => seen.length === 3)
    await new Promise((r) => setTimeout(r, 300))
    assert.equal([...seen].sort(), jobs.map((j) => j.taskId).sort())
    await queue.close()
  })

  test('a job whose handler throws is delivered again, and succeeds on a later delivery', async () => {
    const queue = await open()
    let deliveries = 0
    let done = false
    await queue.consume(
      async () => {
        deliveries++
        if (deliveries < MAX_DELIVERIES) throw new Error('transient')
        done = true
      },
      async () => assert.unreachable('the job should not die'),
      1,
    )
    await queue.publish(job())
    await until('the third delivery', () => done)
    assert.is(deliveries, MAX_DELIVERIES)
    await queue.close()
  })

  test(`a job failing ${MAX_DELIVERIES} times is dead-lettered once, with the last reason`, async () => {
    const queue = await open()
    let deliveries = 0
    const dead: { job: Job; reason: string }[] = []
    await queue.consume(
      async () => {
        deliveries++
        throw new Error(`broken #${deliveries}`)
      },
      async (j, reason) => void dead.push({ job: j, reason }),
      1,
    )
    const j = job()
    await queue.publish(j)
    await until('the dead letter', () => dead.length === 1)
    await new Promise((r) => setTimeout(r, 500))
    assert.is(deliveries, MAX_DELIVERIES)
    assert.is(dead.length, 1)
    assert.is(dead[0].job.taskId, j.taskId)
    assert.match(dead[0].reason, `broken #${MAX_DELIVERIES}`)
    await queue.close()
  })

  test('no more than prefetch jobs are in hand at once', async () => {
    const queue = await open()
    let running = 0
    let most = 0
    let finished = 0
    await queue.consume(
      async () => {
        running++
        most = Math.max(most, running)
        await new Promise((r) => setTimeout(r, 60))
        running--
        finished++
      },
      async () => undefined,
      2,
    )
    for (let i = 0; i < 8; i++) await queue.publish(job())
    await until('eight jobs', () => finished === 8)
    assert.is(most, 2)
    await queue.close()
  })

  return test
}
