import { EventEmitter } from 'node:events'
import type { Logger } from 'pino'
import { DependencyUnavailable } from '../adapters/unavailable'
import { ProjectionError } from './projector'

export interface ProjectorStatus {
  name: string
  /**
   * following: another process runs it; this one follows its position (process roles). waiting: a
   * dependency it writes to is down; it tries again at `retryAt`.
   */
  state: 'running' | 'rebuilding' | 'failed' | 'stopped' | 'following' | 'waiting'
  position: number
  error?: { message: string; position: number; type: string }
  retryAt?: string
}

/** The longest wait between tries of a projector whose dependency is down. */
const RETRY_MAX_MS = 60_000

/**
 * Where each projector stands (its state and position), and the waits on it: a request waiting
 * for the read models to reach its write, a listener of a projector's writes. A projector whose
 * dependency is down waits and is tried again with a growing pause; any other failure stops it.
 */
export class ProjectorStates {
  private readonly status = new Map<string, ProjectorStatus>()
  private readonly progress = new EventEmitter()
  /** The current pause of each projector whose dependency is down. */
  private readonly retryMs = new Map<string, number>()

  constructor(private readonly log: Logger) {
    this.progress.setMaxListeners(0)
  }

  set(name: string, state: ProjectorStatus['state'], position: number) {
    this.status.set(name, { name, state, position })
  }

  get(name: string): ProjectorStatus {
    return this.status.get(name)!
  }

  all() {
    return [...this.status.values()]
  }

  /** Tells the waits that positions moved (`written`: the projector that wrote). */
  moved(written?: string) {
    this.progress.emit('progress', written)
  }

  /** A projector applied events up to `position`. */
  advance(name: string, position: number) {
    this.retryMs.delete(name)
    const status = this.get(name)
    if (status.state === 'running') status.error = undefined
    status.position = Math.max(status.position, position)
    this.moved(name)
  }

  /** A projector could not apply its events: it waits for its dependency, or stops. */
  fail(name: string, error: unknown) {
    const status = this.get(name)
    const failure = error instanceof ProjectionError ? error : undefined
    status.error = {
      message: (error as Error).message,
      position: failure?.event.position ?? status.position,
      type: failure?.event.type ?? '',
    }
    if ((failure?.reason ?? error) instanceof DependencyUnavailable) {
      // Nothing was written (the batch's transaction rolled back): the same events again, later.
      const wait = Math.min(RETRY_MAX_MS, (this.retryMs.get(name) ?? 500) * 2)
      this.retryMs.set(name, wait)
      status.state = 'waiting'
      status.retryAt = new Date(Date.now() + wait).toISOString()
      this.log.warn({ projector: name, position: status.error.position, err: error, retryMs: wait }, 'projector waits')
      return
    }
    status.state = 'failed'
    this.log.error(
      { projector: name, position: status.error.position, eventType: status.error.type, err: error },
      'projector stopped',
    )
  }

  /** Projectors whose dependency was down, due for another try. */
  resumeWaiting() {
    for (const s of this.status.values())
      if (s.state === 'waiting' && Date.parse(s.retryAt!) <= Date.now()) {
        s.state = 'running'
        s.retryAt = undefined
      }
  }

  /** Calls `listener` whenever the named projector has written a batch; returns the way to stop. */
  onWritten(name: string, listener: () => void) {
    const filtered = (written?: string) => written === name && listener()
    this.progress.on('progress', filtered)
    return () => void this.progress.off('progress', filtered)
  }

  statuses(): ProjectorStatus[] {
    return this.all().map((s) => ({ ...s }))
  }

  /** Resolves true once every projector has reached `position`, false after `timeoutMs`. */
  waitFor(position: number, timeoutMs: number): Promise<boolean> {
    const reached = () => this.all().every((s) => s.position >= position)
    if (position <= 0 || reached()) return Promise.resolve(true)
    return new Promise((resolve) => {
      const check = () => {
        if (!reached()) return
        cleanup()
        resolve(true)
      }
      const timer = setTimeout(() => (cleanup(), resolve(false)), timeoutMs)
      const cleanup = () => {
        clearTimeout(timer)
        this.progress.off('progress', check)
      }
      this.progress.on('progress', check)
    })
  }
}
