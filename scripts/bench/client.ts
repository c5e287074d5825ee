// What the benchmarks do through the API before they measure: calls in the envelope, and a user
// owning some workspaces, with a token for each.

export type Call = (method: string, path: string, token: string, body?: unknown) => Promise<any>

/** Calls the API at `base`; a failure envelope throws. */
export const apiClient =
  (base: string): Call =>
  async (method, path, token, body) => {
    const res = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const json = (await res.json()) as { success: boolean; data: unknown }
    if (!json.success) throw new Error(JSON.stringify(json))
    return json.data
  }

/** A user owning `count` new workspaces (made with the admin token); an access token for each. */
export const workspaceTokens = async (call: Call, admin: string, count: number) => {
  const user = await call('POST', '/api/v1/admin/users', admin, { email: 'bench@example.com', name: 'Bench' })
  const tokens: string[] = []
  for (let w = 0; w < count; w++) {
    const ws = await call('POST', '/api/v1/admin/workspaces', admin, { name: `Bench ${w}` })
    await call('POST', `/api/v1/admin/workspaces/${ws.id}/members`, admin, { userId: user.id, role: 'owner' })
    tokens.push(
      (await call('POST', '/api/v1/admin/tokens', admin, { userId: user.id, workspaceId: ws.id })).access_token,
    )
  }
  return tokens
}

/** Runs `write(i)` for i in [0, n) from `writers` concurrent loops. */
export const inParallel = async (n: number, writers: number, write: (i: number) => Promise<unknown>) => {
  let next = 0
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < n) await write(next++)
    }),
  )
}
