// The console's one way to the API: the access token from session storage in the Authorization
// header (never in a URL), the envelope unwrapped, and every failure turned into an ApiError whose
// message is the API's own words.

const TOKEN = 'kb.token'

export const tokenStore = {
  get: () => sessionStorage.getItem(TOKEN),
  set: (token: string) => sessionStorage.setItem(TOKEN, token),
  clear: () => sessionStorage.removeItem(TOKEN),
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: string[] = [],
    readonly data?: unknown,
  ) {
    super(message)
  }
}

/** Listeners told when the API refuses the token (expired, revoked): the session ends. */
const signedOut = new Set<() => void>()
export const onSignedOut = (listener: () => void) => {
  signedOut.add(listener)
  return () => {
    signedOut.delete(listener)
  }
}

export const api = async <T = any>(
  method: string,
  path: string,
  body?: unknown,
  token = tokenStore.get(),
): Promise<T> => {
  const form = body instanceof FormData
  let res: Response
  try {
    res = await fetch(path, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined && !form ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : form ? body : JSON.stringify(body),
    })
  } catch {
    throw new ApiError(0, 'NETWORK', 'The service could not be reached. Check your connection and try again.')
  }
  const json = await res.json().catch(() => undefined)
  if (json?.success) return json.data as T
  const error = json?.error ?? {}
  if (res.status === 401) for (const listener of signedOut) listener()
  throw new ApiError(
    res.status,
    error.code ?? 'HTTP_ERROR',
    error.message ?? `The service answered ${res.status} ${res.statusText}.`,
    error.details ?? [],
    error,
  )
}

/** A query string from the set values of an object. */
export const qs = (params: Record<string, string | number | boolean | undefined | null>) => {
  const s = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') s.set(k, String(v))
  const text = s.toString()
  return text ? `?${text}` : ''
}
