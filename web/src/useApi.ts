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

/** What a notification of success says: a title, and a sentence about what is now so. */
export interface Done {
  title: string
  message?: string
}

/**
 * The sentence a success says when the caller gave only its title: what the answer names (a page or
 * an entry, and its version), never the verb of the title again.
 */
const sentence = (result: unknown) => {
  const r = (result ?? {}) as { title?: unknown; version?: unknown }
  if (typeof r.title !== 'string') return undefined
  return typeof r.version === 'number' ? `“${r.title}” is at version ${r.version}.` : `“${r.title}”.`
}

/**
 * Runs a write; its success invalidates the reads it changes (`changes`) and, when `done` is given,
 * says so (a title such as "Reverted", and a sentence: the one `done` makes of the answer, or what
 * the answer names), and a failure is shown as a toast in the API's words (and answered undefined).
 */
export const act = async <T>(
  what: string,
  run: () => Promise<T>,
  done?: string | ((result: T) => Done),
  changes: QueryKey[] = [],
): Promise<T | undefined> => {
  try {
    const result = await run()
    await invalidate(...changes)
    if (done) {
      const said = typeof done === 'string' ? { title: done, message: sentence(result) } : done(result)
      notifications.show({ color: 'green', title: said.title, message: said.message ?? '' })
    }
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
