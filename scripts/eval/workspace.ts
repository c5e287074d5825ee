// An evaluation set's documents in a workspace of a running service: ingested through the API into a
// fresh directory (removed after), or with EVAL_DATA_DIR=<dir> kept in <dir>/<set> and opened again
// by the next run, which then ingests nothing (for runs that only change how queries are answered).
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import * as E from 'fp-ts/Either'
import { createLogger } from '../../adapters/logger'
import { loadConfig } from '../../app/config'
import { type Service, startService } from '../../app/service'
import { freshPostgres } from '../../testkit/db'
import { renderPdf } from './pdf'
import type { Doc, EvalSet } from './sets'

export const EMBEDDER = process.env.EVAL_EMBEDDER ?? 'local'
/** A Postgres server to run on (a fresh database per set) instead of the embedded default. */
const SERVER = process.env.EVAL_DATABASE_URL
/** EVAL_CHUNK_TOKENS: chunk size for ingestion; unset, the service's default chunking. */
export const CHUNK = process.env.EVAL_CHUNK_TOKENS ? Number(process.env.EVAL_CHUNK_TOKENS) : undefined
/** Documents created at once, as a client with a few workers would. */
export const IN_FLIGHT = 2
const ADMIN = 'eval-admin-token-0123456789'
/** Where a kept workspace says what it holds: its token and the entry id of each document. */
const KEPT = 'eval-workspace.json'

export interface EvalWorkspace {
  service: Service
  token: string
  workspaceId: string
  /** The document id of each entry id. */
  docOf: Map<string, string>
  ingestSeconds: number
  close(): Promise<void>
}

/** Calls the service's API with a token; answers the envelope's data, and throws on a refusal. */
export const callerOf = (url: string) => async (method: string, p: string, token: string, body?: unknown) => {
  const res = await fetch(url + p, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  })
  const json = (await res.json()) as { success: boolean; data: any }
  if (!json.success) throw new Error(`${p}: ${JSON.stringify(json)}`)
  return json.data
}

/**
 * A JSON POST with no time limit of the client's: a text entry is embedded before it is answered,
 * and one of 480,000 characters can take the local model longer than fetch waits for an answer (300 s).
 */
const postLong = (url: string, token: string, body: unknown) =>
  new Promise<any>((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (res) => {
        const parts: Buffer[] = []
        res.on('data', (b: Buffer) => parts.push(b))
        res.on('end', () => {
          const json = JSON.parse(Buffer.concat(parts).toString('utf8'))
          if (json.success) resolve(json.data)
          else reject(new Error(`POST ${url}: ${JSON.stringify(json)}`))
        })
        res.on('error', reject)
      },
    )
    req.on('error', reject)
    req.end(JSON.stringify(body))
  })

/** A document marked `format: 'pdf'` uploaded as a PDF file (multipart, source file): its entry and task. */
const uploadPdf = async (url: string, token: string, d: Doc, chunking: object) => {
  const form = new FormData()
  form.append('source', 'file')
  form.append('title', d.title)
  for (const [k, v] of Object.entries(chunking)) form.append(k, JSON.stringify(v))
  const bytes = await renderPdf(d.title, d.text)
  const name = `${d.id.replace(/[^\w-]+/g, '-')}.pdf`
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), name)
  const res = await fetch(`${url}/api/v1/knowledge`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  })
  const json = (await res.json()) as { success: boolean; data: { id: string; taskId: string } }
  if (!json.success) throw new Error(`upload of ${d.id}: ${JSON.stringify(json)}`)
  return json.data
}

/** Waits for the tasks of uploaded files, as a client polls them; a failed one stops the evaluation. */
const waitForTasks = async (call: ReturnType<typeof callerOf>, token: string, taskIds: string[]) => {
  for (const id of taskIds) {
    for (;;) {
      const task = await call('GET', `/api/v1/knowledge/tasks/${id}`, token)
      if (task.status === 'failed') throw new Error(`task ${id} failed: ${JSON.stringify(task)}`)
      if (task.status === 'completed') break
      await new Promise((r) => setTimeout(r, 500))
    }
  }
}

export const openEvalWorkspace = async (set: EvalSet, docs: Doc[]): Promise<EvalWorkspace> => {
  const kept = process.env.EVAL_DATA_DIR && !SERVER ? path.join(process.env.EVAL_DATA_DIR, set.name) : undefined
  const dataDir = kept ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kb-eval-'))
  fs.mkdirSync(dataDir, { recursive: true })
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    KB_ADMIN_TOKEN: ADMIN,
    EMBEDDER,
    LOG_LEVEL: 'silent',
  })
  if (E.isLeft(config)) throw new Error(config.left)
  const database = SERVER ? await freshPostgres(SERVER) : undefined
  const service = await startService(config.right, createLogger('silent'), database)
  const close = async () => {
    await service.stop()
    if (!kept) fs.rmSync(dataDir, { recursive: true, force: true })
  }
  const call = callerOf(service.url)
  const keptFile = kept && path.join(kept, KEPT)
  if (keptFile && fs.existsSync(keptFile)) {
    const k = JSON.parse(fs.readFileSync(keptFile, 'utf8'))
    return { service, close, token: k.token, workspaceId: k.workspaceId, docOf: new Map(k.docOf), ingestSeconds: 0 }
  }
  const user = await call('POST', '/api/v1/admin/users', ADMIN, { email: 'eval@example.com', name: 'Eval' })
  const ws = await call('POST', '/api/v1/admin/workspaces', ADMIN, { name: 'Eval' })
  await call('POST', `/api/v1/admin/workspaces/${ws.id}/members`, ADMIN, { userId: user.id, role: 'owner' })
  const { access_token: token } = await call('POST', '/api/v1/admin/tokens', ADMIN, {
    userId: user.id,
    workspaceId: ws.id,
    ttlSeconds: 365 * 86400,
  })
  await call('PATCH', '/api/v1/knowledge/config', token, { maxDocuments: 100_000 })
  const docOf = new Map<string, string>()
  const tasks: string[] = []
  const started = Date.now()
  let next = 0
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < docs.length) {
        const d = docs[next++]
        const chunking = CHUNK
          ? { chunkingOptions: { chunkSizeTokens: CHUNK, overlapTokens: Math.round(CHUNK / 5) } }
          : {}
        const e =
          d.format === 'pdf'
            ? await uploadPdf(service.url, token, d, chunking)
            : await postLong(`${service.url}/api/v1/knowledge`, token, {
                title: d.title,
                source: 'document',
                content: d.text,
                ...chunking,
              })
        if (e.taskId) tasks.push(e.taskId)
        docOf.set(e.id, d.id)
        if (docOf.size % 50 === 0)
          process.stderr.write(
            `ingested ${docOf.size}/${docs.length} (${Math.round((Date.now() - started) / 1000)} s)\n`,
          )
      }
    }),
  )
  await waitForTasks(call, token, tasks)
  const ingestSeconds = (Date.now() - started) / 1000
  if (keptFile) fs.writeFileSync(keptFile, JSON.stringify({ token, workspaceId: ws.id, docOf: [...docOf] }))
  return { service, close, token, workspaceId: ws.id, docOf, ingestSeconds }
}
