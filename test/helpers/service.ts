import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as E from 'fp-ts/Either'
import type { Database } from '../../adapters/db'
import { type Logger, createLogger } from '../../adapters/logger'
import { loadConfig } from '../../app/config'
import { type Service, startService } from '../../app/service'
import { testPglite } from '../../testkit/db'

export const ADMIN = 'test-admin-token-0123456789'

export interface Response {
  status: number
  body: any
  headers: Headers
}

export type Call = (
  method: string,
  path: string,
  options?: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> },
) => Promise<Response>

export const client =
  (base: string): Call =>
  async (method, p, options = {}) => {
    const headers: Record<string, string> = { ...(options.headers ?? {}) }
    if (options.token) headers.authorization = `Bearer ${options.token}`
    let body: string | undefined
    if (options.raw !== undefined) body = options.raw
    else if (options.body !== undefined) body = JSON.stringify(options.body)
    if (body !== undefined) headers['content-type'] ??= 'application/json'
    const res = await fetch(base + p, { method, headers, body })
    const text = await res.text()
    let parsed: unknown = text
    try {
      parsed = JSON.parse(text)
    } catch {}
    return { status: res.status, body: parsed, headers: res.headers }
  }

export interface TestService extends Service {
  call: Call
  dataDir: string
}

/**
 * The whole service on a fresh in-memory PGlite (or the given database), on a free port. With
 * `dataDir` it opens PGlite files there instead and leaves them for a restart.
 */
export const startTestService = async (
  env: Record<string, string> = {},
  db?: Database,
  options: { dataDir?: string; log?: Logger } = {},
): Promise<TestService> => {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kb-test-'))
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    KB_ADMIN_TOKEN: ADMIN,
    KB_CHECK_ANSWERS: 'true',
    EMBEDDER: 'hashing',
    ...env,
  })
  if (E.isLeft(config)) throw new Error(config.left)
  const service = await startService(
    config.right,
    options.log ?? createLogger(process.env.TEST_LOG_LEVEL ?? 'silent'),
    db ?? (options.dataDir ? undefined : await testPglite()),
  )
  return {
    ...service,
    dataDir,
    call: client(service.url),
    stop: async () => {
      await service.stop()
      if (!options.dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export const ok = (r: Response, status = 200) => {
  if (r.status !== status || r.body?.success !== true)
    throw new Error(`expected ${status} success, got ${r.status} ${JSON.stringify(r.body)}`)
  return r.body.data
}

export interface Member {
  userId: string
  workspaceId: string
  token: string
  tokenId: string
}

/** A user with a role in a (new or given) workspace, and an access token for it. */
export const seedMember = async (call: Call, role = 'owner', workspaceId?: string, email?: string): Promise<Member> => {
  const user = ok(
    await call('POST', '/api/v1/admin/users', {
      token: ADMIN,
      body: { email: email ?? `u${Math.random().toString(36).slice(2)}@example.com`, name: 'Test User' },
    }),
    201,
  )
  const ws =
    workspaceId ??
    ok(
      await call('POST', '/api/v1/admin/workspaces', {
        token: ADMIN,
        body: { name: `Workspace ${Math.random().toString(36).slice(2)}` },
      }),
      201,
    ).id
  ok(await call('POST', `/api/v1/admin/workspaces/${ws}/members`, { token: ADMIN, body: { userId: user.id, role } }))
  const token = ok(
    await call('POST', '/api/v1/admin/tokens', { token: ADMIN, body: { userId: user.id, workspaceId: ws } }),
    201,
  )
  return { userId: user.id, workspaceId: ws, token: token.access_token, tokenId: token.id }
}

export const expectError = (r: Response, status: number, code: string) => {
  if (r.status !== status || r.body?.success !== false || r.body?.error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${r.status} ${JSON.stringify(r.body)}`)
  }
  return r.body.error as { code: string; message: string; details?: string[] }
}
