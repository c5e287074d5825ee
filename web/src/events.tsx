import type { QueryKey } from '@tanstack/react-query'
import { createParser } from 'eventsource-parser'
import { type ReactNode, createContext, useContext, useEffect, useState } from 'react'
import { tokenStore } from './api'
import { consoleCapabilities } from './capabilities'
import { useSession } from './session'
import { invalidate } from './useApi'

/** The reads an event of the log changes, by its type: what the capabilities declare. */
const CHANGES = consoleCapabilities.flatMap((c) => c.changes)

/** How long events are gathered before the reads they change load again (a burst is one reload). */
const GATHER_MS = 150
const RECONNECT_MS = 2000

const Following = createContext(false)

/** Whether the console follows the workspace's events: its reads then refresh when the log says so, not by polling. */
export const useFollowing = () => useContext(Following)

/**
 * Follows `GET /api/v1/events/stream` from the head of the log (every member may: those who do not
 * manage the workspace get the events of what they may read) and invalidates the reads each event
 * changes. Reconnects after a drop with the last position seen. While the stream is down or refused,
 * `useFollowing() === false`, and the screens that show live progress poll until it is back.
 */
export const EventsFollower = ({ children }: { children: ReactNode }) => {
  const { me } = useSession()
  const [following, setFollowing] = useState(false)
  const workspace = me?.current_workspace.id
  useEffect(() => {
    if (!workspace) return setFollowing(false)
    const stop = new AbortController()
    let pending = new Set<string>()
    let timer: ReturnType<typeof setTimeout> | undefined
    const changed = (type = '') => {
      for (const [pattern, keys] of CHANGES)
        if (pattern.test(type)) for (const k of keys) pending.add(JSON.stringify(k))
      timer ??= setTimeout(() => {
        const keys = [...pending].map((k) => JSON.parse(k) as QueryKey)
        pending = new Set()
        timer = undefined
        void invalidate(...keys)
      }, GATHER_MS)
    }
    const follow = async () => {
      // From the workspace's last event on; after a drop, from the last one seen.
      let after: number | 'now' = 'now'
      let connected = false
      while (!stop.signal.aborted) {
        try {
          const res = await fetch(`/api/v1/events/stream?after=${after}`, {
            headers: { authorization: `Bearer ${tokenStore.get()}`, accept: 'text/event-stream' },
            signal: stop.signal,
          })
          // Not (or no longer) allowed: the screens that show live progress poll.
          if (res.status === 401 || res.status === 403) return setFollowing(false)
          if (!res.ok || !res.body) throw new Error(`the event stream answered ${res.status}`)
          setFollowing(true)
          // Back before any event was seen: what was written meanwhile is not replayed, so every read loads again.
          if (connected && after === 'now') void invalidate(...CHANGES.flatMap(([, keys]) => keys))
          connected = true
          const parser = createParser({
            onEvent: (event) => {
              if (event.id) after = Number(event.id)
              changed(event.event)
            },
          })
          const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
          for (;;) {
            const { value, done } = await reader.read()
            if (done) break
            parser.feed(value)
          }
        } catch {
          if (stop.signal.aborted) return
        }
        setFollowing(false)
        await new Promise((resolve) => setTimeout(resolve, RECONNECT_MS))
      }
    }
    follow().catch(() => setFollowing(false))
    return () => {
      stop.abort()
      if (timer) clearTimeout(timer)
    }
  }, [workspace])
  return <Following.Provider value={following}>{children}</Following.Provider>
}
