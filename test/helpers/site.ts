// A local web site for URL ingestion tests: each path answers what the test says.
import http from 'node:http'

export type Page = {
  status?: number
  type?: string
  body?: string | Buffer
  headers?: Record<string, string>
  hang?: boolean
  delayMs?: number
  /** The answer waits until this settles (a test lets requests pile up, then releases them). */
  held?: Promise<void>
}

export interface Site {
  url: string
  pages: Map<string, Page | ((req: http.IncomingMessage) => Page)>
  hits: string[]
  /** Requests being answered now, and the most at once. */
  load: { now: number; most: number }
  close(): Promise<void>
}

export const startSite = async (): Promise<Site> => {
  const pages: Site['pages'] = new Map()
  const hits: string[] = []
  const load = { now: 0, most: 0 }
  const server = http.createServer(async (req, res) => {
    hits.push(req.url ?? '')
    load.most = Math.max(load.most, ++load.now)
    res.on('close', () => load.now--)
    const entry = pages.get(req.url ?? '')
    const page = typeof entry === 'function' ? entry(req) : entry
    if (!page) {
      res.writeHead(404, { 'content-type': 'text/plain' })
      return res.end('not found')
    }
    if (page.delayMs) await new Promise((r) => setTimeout(r, page.delayMs))
    if (page.held) await page.held
    res.writeHead(page.status ?? 200, {
      'content-type': page.type ?? 'text/html; charset=utf-8',
      ...(page.headers ?? {}),
    })
    if (page.hang) {
      // Starts the body and never finishes it.
      res.write(typeof page.body === 'string' ? page.body : '<html><body>')
      return
    }
    res.end(page.body ?? '')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    pages,
    hits,
    load,
    close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(() => resolve()))),
  }
}

export const html = (title: string, body: string) =>
  `<!doctype ` +
  `html><html><head><title>${title}</title></head><body><article><h1>${title}</h1>${body}</article></body></html>`
