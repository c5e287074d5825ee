import { notifications } from '@mantine/notifications'
import { type QueryKey, QueryClient, keepPreviousData, useQuery } from '@tanstack/react-query'
import { ApiError } from './api'

/** The console's server state: every read is a query, refetched when a write or an event invalidates it. */
export const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false, staleTime: 0 } },
})

/** What a read gives a screen: its data, whether it is loading, its error in words, and a reload. */
export interface Loaded<T> {
  data?: T
  loading: boolean
  error?: ApiError
  reload: () => void
}

/**
 * A read of the API under `key` (the resource first: 'entries', 'pages', 'tasks'…): the last data
 * stays while a new key or a refetch loads. Writes and events invalidate reads by key.
 */
export const useApi = <T>(
  key: QueryKey,
  read: () => Promise<T>,
  options: { refetchInterval?: number | false } = {},
): Loaded<T> => {
  const query = useQuery({ queryKey: key, queryFn: read, placeholderData: keepPreviousData, ...options })
  return {
    data: query.data,
    loading: query.isFetching,
    error: query.error ? asApiError(query.error) : undefined,
    reload: () => void query.refetch(),
  }
}

/** Marks the reads under these keys stale: the ones on screen load again. */
export const invalidate = (...keys: QueryKey[]) =>
  Promise.all(keys.map((queryKey) => queryClient.invalidateQueries({ queryKey })))

export const asApiError = (error: unknown) =>
  error instanceof ApiError ? error : new ApiError(0, 'ERROR', error instanceof Error ? error.message : String(error))

/**
 * Runs a write; its success invalidates the reads it changes (`changes`), and a failure is shown
 * as a toast in the API's words (and answered undefined).
 */
export const act = async <T>(
  what: string,
  run: () => Promise<T>,
  done?: string,
  changes: QueryKey[] = [],
): Promise<T | undefined> => {
  try {
    const result = await run()
    await invalidate(...changes)
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
