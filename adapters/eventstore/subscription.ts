import { alarm } from '../alarm'
import type { EventStore, RecordedEvent, Subscription } from './port'

const BATCH = 500
const RETRY_MAX_MS = 30_000

/**
 * Catch-up-then-live subscription built from readAll and onAppend: reads batches after the
 * last delivered position, and when it reaches the head waits for an append signal (or the
 * poll interval, for appends the backend cannot signal). A read that fails (a dropped connection)
 * is tried again, after a wait that doubles up to 30 s; the handler's own error ends it.
 */
export const pollingSubscription = (
  store: Pick<EventStore, 'readAll' | 'onAppend'>,
  after: number,
  handler: (event: RecordedEvent) => Promise<void>,
  pollMs = 1000,
): Subscription => {
  let stopped = false
  const appended = alarm()
  const off = store.onAppend(appended.wake)
  const loop = async () => {
    let position = after
    let backoff = 0
    try {
      while (!stopped) {
        // Arm the wake-up before reading so an append between the read and the wait is not missed.
        const waiting = appended.arm(pollMs)
        let events: RecordedEvent[]
        try {
          events = await store.readAll({ after: position, maxCount: BATCH })
          backoff = 0
        } catch {
          // A lost connection: read again from the last event delivered, waiting longer each time.
          backoff = Math.min(RETRY_MAX_MS, Math.max(100, backoff * 2))
          await appended.arm(backoff)
          continue
        }
        for (const event of events) {
          if (stopped) return
          await handler(event)
          position = event.position
        }
        if (events.length < BATCH && !stopped) await waiting
      }
    } finally {
      off()
    }
  }
  const done = loop()
  return {
    done,
    unsubscribe: async () => {
      stopped = true
      appended.wake()
      await done.catch(() => undefined)
    },
  }
}
