// An S3-protocol server for the tests (s3rver, a devDependency), and a proxy in front of it that
// answers 503 when told to: the S3 store's contract and fault cases run on any machine, no network.
import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** Credentials s3rver knows (its one account); any others it refuses. */
export const S3RVER_KEYS = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' }

// s3rver signs its list continuation tokens with DES, which Node 20's OpenSSL 3 keeps in its legacy
// provider: it runs in a child process started with that provider (a list past 1,000 keys fails
// without it). The child ends when its stdin closes, so a test that dies leaves no server behind.
const SERVER = `
const S3rver = require('s3rver')
const buckets = JSON.parse(process.env.S3RVER_BUCKETS)
new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: process.env.S3RVER_DIR,
  configureBuckets: buckets.map((name) => ({ name })) })
  .run().then((a) => console.log(JSON.stringify({ port: a.port })), (e) => { console.error(e); process.exit(1) })
process.stdin.on('end', () => process.exit(0)).resume()
`

export interface S3Server {
  /** http://127.0.0.1:<port> */
  endpoint: string
  port: number
  /** The settings an S3 store needs to reach this server (path-style, its credentials). */
  env: Record<string, string>
  stop(): Promise<void>
}

/** s3rver on a free loopback port, with the given buckets, in a temporary directory removed on stop. */
export const startS3rver = async (buckets: string[]): Promise<S3Server> => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kb-s3rver-'))
  const child: ChildProcess = spawn(process.execPath, ['--openssl-legacy-provider', '-e', SERVER], {
    cwd: path.join(path.dirname(fileURLToPath(import.meta.url)), '..'),
    env: { PATH: process.env.PATH, S3RVER_DIR: dir, S3RVER_BUCKETS: JSON.stringify(buckets) },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const port = await new Promise<number>((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split('\n').find((l) => l.startsWith('{'))
      if (line) resolve(JSON.parse(line).port)
    })
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}) before it listened`)))
  })
  const endpoint = `http://127.0.0.1:${port}`
  return {
    endpoint,
    port,
    env: s3Env(endpoint),
    stop: async () => {
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.stdin!.end()
      await exited
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** What the S3 store reads from its environment to reach a server at `endpoint`. */
export const s3Env = (endpoint: string) => ({
  S3_ENDPOINT: endpoint,
  S3_FORCE_PATH_STYLE: 'true',
  AWS_REGION: 'us-east-1',
  ...S3RVER_KEYS,
})

export interface FaultProxy {
  endpoint: string
  /** The next `n` GetObject requests are answered 503 (each S3 SDK attempt is one). */
  failGetObjects(n: number): void
  /** Every request is answered 503 while true: storage down. */
  down: boolean
  /** GetObject requests seen, and those answered 503. */
  counts: { getObject: number; refused: number }
  close(): Promise<void>
}

const UNAVAILABLE =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>ServiceUnavailable</Code>' +
  '<Message>Please reduce your request rate.</Message></Error>'

/** An HTTP proxy on a free loopback port in front of an S3 server (path-style requests), injecting 503s. */
export const startFaultProxy = async (target: { port: number }): Promise<FaultProxy> => {
  let failing = 0
  const counts = { getObject: 0, refused: 0 }
  const proxy: FaultProxy = {
    endpoint: '',
    failGetObjects: (n) => {
      failing = n
    },
    down: false,
    counts,
    close: async () => {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
  }
  const server = http.createServer((req, res) => {
    const { pathname, searchParams } = new URL(req.url ?? '/', 'http://proxy')
    // Path-style GetObject: GET /bucket/key, with no sub-resource (?list-type, ?location...) but
    // the SDK's own x-id=GetObject.
    const subresources = [...searchParams.keys()].filter((k) => k !== 'x-id')
    const getObject = req.method === 'GET' && /^\/[^/]+\/.+/.test(pathname) && subresources.length === 0
    if (getObject) counts.getObject++
    if (proxy.down || (getObject && failing > 0)) {
      if (getObject && failing > 0) failing--
      counts.refused++
      req.resume()
      res.writeHead(503, { 'content-type': 'application/xml' }).end(UNAVAILABLE)
      return
    }
    const upstream = http.request(
      { host: '127.0.0.1', port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  proxy.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return proxy
}
