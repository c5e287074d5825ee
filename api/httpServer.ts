import http from 'node:http'
import type { Socket } from 'node:net'
import type { Duplex } from 'node:stream'
import type { Logger } from '../adapters/logger'
import { envelopeOf } from './errors'

/** A connection accepted while stopping gets this long to send its request (refused with 503) before it is closed. */
const FIRST_REQUEST_MS = 1000
/** The queue of connections the kernel accepted for the service counts as empty once none came for this long. */
const ACCEPT_QUIET_MS = 100
/** Longest the listener stays open, refusing, while connections keep coming. */
const ACCEPT_DRAIN_MS = 1000
const SWEEP_MS = 50
/**
 * An answer given before its request's body was read (too large, no credentials, no such route)
 * closes the connection; the rest of the body is still read and discarded, up to these bounds,
 * before the socket closes. Closing at once would meet the client's last writes with a reset, and
 * a reset can destroy the answer before the client reads it (RFC 9112 §9.6, a lingering close).
 */
const LINGER_MS = 10_000
const LINGER_BYTES = 64 * 1024 * 1024

interface Connection {
  /** Requests it carried, and whether one is being answered. */
  served: number
  busy: boolean
  acceptedAt: number
  /** The request being (or last) answered. */
  request?: http.IncomingMessage
  /** Its answer is sent and the rest of its body is being discarded before the close. */
  lingering: boolean
}

export interface HttpServer {
  server: http.Server
  listen(port: number, host: string): Promise<{ port: number }>
  /**
   * Stops without resetting a request whose bytes arrived: requests being answered finish (and
   * close their connection), requests that arrive from now on are answered 503 with `Connection:
   * close`, idle keep-alive connections are closed, and the listener closes once the connections
   * the kernel already accepted have been taken. After `graceMs` what is still open is cut;
   * answers the requests that were cut ("METHOD /path").
   */
  stop(graceMs: number): Promise<string[]>
  /** Requests being answered and connections open, for a shutdown that ran out of time to name. */
  open(): { requests: string[]; connections: number }
}

const refuse = (res: http.ServerResponse) => {
  const body = JSON.stringify(
    envelopeOf('SERVICE_UNAVAILABLE', 'the service is stopping; retry on another instance or once it has restarted'),
  )
  res.writeHead(503, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'retry-after': '1',
    connection: 'close',
  })
  res.end(body)
}

/**
 * A request the HTTP parser refused (a malformed request line or header, an invalid chunk): one
 * structured log line and a 400 in the envelope, when the socket can still take it.
 */
const onClientError = (log: Pick<Logger, 'warn'>) => (error: Error & { code?: string }, socket: Duplex) => {
  log.warn({ code: error.code, reason: error.message }, 'malformed HTTP request refused')
  if (!socket.writable || error.code === 'ECONNRESET') return void socket.destroy()
  const body = JSON.stringify(
    envelopeOf('VALIDATION_ERROR', 'the request is not valid HTTP/1.1', [`(request): ${error.code ?? 'parse error'}`]),
  )
  socket.end(
    `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ` +
      `${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  )
}

/** Sends the answer and a FIN, then discards what the client still sends until its body ends or a bound is met. */
const linger = (socket: Socket, req: http.IncomingMessage, connection: Connection) => {
  connection.lingering = true
  socket.end()
  req.resume()
  const from = socket.bytesRead
  const until = Date.now() + LINGER_MS
  const check = setInterval(() => {
    if (req.complete || socket.bytesRead - from > LINGER_BYTES || Date.now() > until) socket.destroy()
  }, SWEEP_MS)
  req.once('end', () => socket.destroy())
  socket.once('close', () => clearInterval(check))
}

export const createHttpServer = (handle: http.RequestListener, log: Pick<Logger, 'warn'>): HttpServer => {
  const connections = new Map<Socket, Connection>()
  const requests = new Map<http.ServerResponse, string>()
  let stopping = false
  let lastAccepted = 0

  /** While stopping, closes every connection that carries no request now and will get none it already sent. */
  const sweep = () => {
    const now = Date.now()
    for (const [socket, c] of connections) {
      if (!c.busy && !c.lingering && (c.served > 0 || now - c.acceptedAt > FIRST_REQUEST_MS)) socket.destroy()
    }
  }

  const server = http.createServer((req, res) => {
    const connection = connections.get(req.socket)
    // A request pipelined behind a refused body, while that body is being discarded: the answer
    // before said Connection: close, so it is not served.
    if (connection?.lingering) return void req.socket.destroy()
    if (connection) {
      connection.busy = true
      connection.served++
      connection.request = req
    }
    requests.set(res, `${req.method} ${req.url}`)
    res.on('close', () => {
      requests.delete(res)
      if (connection) connection.busy = false
      if (stopping) sweep()
    })
    if (stopping) refuse(res)
    else handle(req, res)
  })
  // Idle keep-alive connections outlive a client's own pool timeout (and a load balancer's 60 s),
  // so a request never races the server closing its connection.
  server.on('clientError', onClientError(log))
  server.keepAliveTimeout = 65_000
  server.headersTimeout = 66_000
  server.on('connection', (socket: Socket) => {
    lastAccepted = Date.now()
    const connection: Connection = { served: 0, busy: false, acceptedAt: lastAccepted, lingering: false }
    connections.set(socket, connection)
    socket.on('close', () => connections.delete(socket))
    // Node ends a connection whose answer says `Connection: close` with destroySoon().
    const destroySoon = socket.destroySoon.bind(socket)
    socket.destroySoon = () => {
      const req = connection.request
      if (req && !req.complete) linger(socket, req, connection)
      else destroySoon()
    }
  })

  const until = async (done: () => boolean, ms: number) => {
    const deadline = Date.now() + ms
    while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, SWEEP_MS))
    return done()
  }

  return {
    server,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject)
        server.listen(port, host, () => resolve(server.address() as { port: number }))
      }),
    async stop(graceMs) {
      const started = Date.now()
      stopping = true
      // Answers still being written close their connection when done.
      for (const res of requests.keys()) if (!res.headersSent) res.setHeader('connection', 'close')
      sweep()
      const sweeper = setInterval(sweep, SWEEP_MS)
      try {
        // Connections the kernel accepted before the listener closes would be reset with it.
        await until(() => Date.now() - lastAccepted >= ACCEPT_QUIET_MS, Math.min(ACCEPT_DRAIN_MS, graceMs))
        const closed = new Promise<void>((resolve) => server.close(() => resolve()))
        if (await until(() => connections.size === 0, Math.max(0, graceMs - (Date.now() - started)))) {
          await closed
          return []
        }
        const cut = [...requests.values()]
        server.closeAllConnections()
        for (const socket of connections.keys()) socket.destroy()
        await closed
        return cut
      } finally {
        clearInterval(sweeper)
      }
    },
    open: () => ({ requests: [...requests.values()], connections: connections.size }),
  }
}
