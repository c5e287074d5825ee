import { notifications } from '@mantine/notifications'
import { type DependencyList, useCallback, useEffect, useState } from 'react'
import { ApiError } from './api'

/** What a read gives a screen: its data, whether it is loading, its error in words, and a reload. */
export interface Loaded<T> {
  data?: T
  loading: boolean
  error?: ApiError
  reload: () => void
}

/** Runs `read` when `deps` change (and on reload); keeps the last data while a reload runs. */
export const useApi = <T>(read: () => Promise<T>, deps: DependencyList): Loaded<T> => {
  const [state, setState] = useState<{ data?: T; loading: boolean; error?: ApiError }>({ loading: true })
  const [tick, setTick] = useState(0)
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller names what the read depends on
  useEffect(() => {
    let live = true
    setState((s) => ({ ...s, loading: true, error: undefined }))
    read().then(
      (data) => live && setState({ data, loading: false }),
      (error) => live && setState((s) => ({ ...s, loading: false, error: asApiError(error) })),
    )
    return () => {
      live = false
    }
  }, [...deps, tick])
  const reload = useCallback(() => setTick((t) => t + 1), [])
  return { ...state, reload }
}

export const asApiError = (error: unknown) =>
  error instanceof ApiError ? error : new ApiError(0, 'ERROR', error instanceof Error ? error.message : String(error))

/** Runs an action; a failure is shown as a toast in the API's words (and answered undefined). */
export const act = async <T>(what: string, run: () => Promise<T>, done?: string): Promise<T | undefined> => {
  try {
    const result = await run()
    if (done) notifications.show({ color: 'green', title: done, message: what })
    return result
  } catch (error) {
    const e = asApiError(error)
    notifications.show({
      color: 'red',
      title: `${what} failed`,
      message: [e.message, ...e.details].join(' — '),
      autoClose: 10_000,
    })
    return undefined
  }
}
