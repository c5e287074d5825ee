/** A job names a task; everything else the worker reads from the task's stream. */
export interface Job {
  taskId: string
  workspaceId: string
}

/** Resolves: the job is acknowledged. Throws: it is delivered again, up to MAX_DELIVERIES times. */
export type JobHandler = (job: Job) => Promise<void>
/** Called once for a job that failed MAX_DELIVERIES times (it then sits in the dead-letter queue). */
export type DeadJobHandler = (job: Job, reason: string) => Promise<void>

export const MAX_DELIVERIES = 3

export interface JobQueue {
  readonly kind: 'memory' | 'rabbitmq'
  /** Whether queued jobs outlive this process (else the outbox publishes unfinished tasks again at start). */
  readonly durable: boolean
  /** Resolves once the queue holds the job (the broker confirmed it); throws when it cannot. */
  publish(job: Job): Promise<void>
  /** Starts delivering jobs, at most `prefetch` unacknowledged at once. */
  consume(handler: JobHandler, onDead: DeadJobHandler, prefetch: number): Promise<void>
  close(): Promise<void>
}

export const encodeJob = (job: Job) => Buffer.from(JSON.stringify(job))

export const decodeJob = (body: Buffer): Job | undefined => {
  try {
    const value = JSON.parse(body.toString('utf8'))
    return typeof value?.taskId === 'string' && typeof value?.workspaceId === 'string'
      ? { taskId: value.taskId, workspaceId: value.workspaceId }
      : undefined
  } catch {
    return undefined
  }
}
