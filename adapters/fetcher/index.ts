import dns from 'node:dns'
import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import { parseContentType } from '../contentType'
import { judgeAddress } from './addresses'

export const USER_AGENT = 'kb-service/0.1 (knowledge-base ingestion; honours robots.txt)'
export const MAX_REDIRECTS = 5

/** An expected failure of a fetch: its message is what the task's error says. */
export class FetchError extends Error {}

export interface FetchOptions {
  maxBytes: number
  /** Total time for every hop and the whole body. */
  timeoutMs: number
  allowPrivate: boolean
}

export interface Fetched {
  /** The URL the body came from, after redirects. */
  url: string
  contentType: string
  /** The Content-Type's charset parameter, when the server names one. */
  charset?: string
  body: Buffer
}

/**
 * A URL a fetch may start from or be redirected to: http(s), no credentials, no control
 * characters, and a host that is a public address (or, literal or not, resolves to one: the
 * lookup below checks the names).
 */
export const checkUrl = (raw: string, allowPrivate: boolean, base?: string): URL => {
  if (raw.length > 2048) throw new FetchError('the URL is longer than 2048 characters')
  // Checked on the raw text: the URL parser silently drops tabs and newlines.
  if (/[\u0000-\u0020\u007f-\u009f]/.test(raw)) throw new FetchError('the URL contains control characters or spaces')
  let url: URL
  try {
    url = new URL(raw, base)
  } catch {
    throw new FetchError(`${JSON.stringify(raw.slice(0, 200))} is not a valid URL`)
  }
  // What is stored and fetched is the encoded form: 1,000 accented letters are 6,000 characters.
  if (url.href.length > 2048)
    throw new FetchError(`the URL is longer than 2048 characters once encoded (${url.href.length})`)
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new FetchError(`the ${url.protocol} scheme is not allowed; only http and https`)
  if (url.username || url.password) throw new FetchError('URLs with credentials (user:password@) are not allowed')
  const host = url.hostname.replace(/^\[|\]$/g, '')
  // The parser has already turned decimal, hex, octal and short IPv4 spellings into dotted form.
  if (/^[\d.]+$/.test(host) || host.includes(':')) {
    const verdict = judgeAddress(host, allowPrivate)
    if (!verdict.ok) throw new FetchError(`refused to fetch ${url.origin}: ${verdict.reason}`)
  }
  return url
}

/** Resolves once, refuses the name if any of its addresses is refused, connects to the one checked. */
const guardedLookup =
  (allowPrivate: boolean): LookupFunction =>
  (hostname, options, callback) => {
    dns.lookup(hostname, { all: true, family: options.family }, (error, addresses) => {
      if (error) return callback(error, '', 0)
      for (const a of addresses) {
        const verdict = judgeAddress(a.address, allowPrivate)
        if (!verdict.ok)
          return callback(
            new FetchError(
              `refused to fetch ${hostname}: it resolves to ${verdict.reason.replace(/^\S+ is /, '')} (${a.address})`,
            ),
            '',
            0,
          )
      }
      if (addresses.length === 0) return callback(new FetchError(`${hostname} has no address`), '', 0)
      const chosen = addresses[0]
      if ((options as { all?: boolean }).all)
        (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, [chosen])
      else callback(null, chosen.address, chosen.family)
    })
  }

const request = (url: URL, options: FetchOptions, signal: AbortSignal) =>
  new Promise<http.IncomingMessage>((resolve, reject) => {
    const get = url.protocol === 'https:' ? https.get : http.get
    const req = get(url, {
      lookup: guardedLookup(options.allowPrivate),
      signal,
      headers: {
        'user-agent': USER_AGENT,
        accept: 'text/html,application/xhtml+xml,application/pdf,text/markdown,text/plain;q=0.9,*/*;q=0.5',
      },
    })
    req.on('response', resolve)
    req.on('error', reject)
  })

const readCapped = (res: http.IncomingMessage, maxBytes: number, signal: AbortSignal) =>
  new Promise<Buffer>((resolve, reject) => {
    const declared = Number(res.headers['content-length'])
    if (Number.isFinite(declared) && declared > maxBytes) {
      res.destroy()
      return reject(new FetchError(`the response is ${declared} bytes, over the limit of ${maxBytes}`))
    }
    const parts: Buffer[] = []
    let size = 0
    const onAbort = () => res.destroy(new FetchError('the fetch took too long'))
    signal.addEventListener('abort', onAbort, { once: true })
    res.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) res.destroy(new FetchError(`the response is over the limit of ${maxBytes} bytes`))
      else parts.push(chunk)
    })
    res.on('end', () => (signal.removeEventListener('abort', onAbort), resolve(Buffer.concat(parts))))
    res.on('error', (e) => (signal.removeEventListener('abort', onAbort), reject(e)))
  })

/**
 * The one way the service fetches from the network: every hop's URL and connected address
 * checked, at most 5 redirects, the body capped in bytes and the whole fetch in time.
 */
export const safeFetch = async (raw: string, options: FetchOptions): Promise<Fetched> => {
  const signal = AbortSignal.timeout(options.timeoutMs)
  let url = checkUrl(raw, options.allowPrivate)
  try {
    for (let hop = 0; hop <= MAX_REDIRECTS; hop++) {
      const res = await request(url, options, signal)
      const status = res.statusCode ?? 0
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume()
        url = checkUrl(res.headers.location, options.allowPrivate, url.href)
        continue
      }
      if (status < 200 || status >= 300) {
        res.resume()
        throw new FetchError(`${url.href} answered HTTP ${status}`)
      }
      const body = await readCapped(res, options.maxBytes, signal)
      const { type, charset } = parseContentType(String(res.headers['content-type'] ?? ''))
      return { url: url.href, contentType: type, ...(charset ? { charset } : {}), body }
    }
    throw new FetchError(`more than ${MAX_REDIRECTS} redirects`)
  } catch (error) {
    if (signal.aborted) throw new FetchError(`the fetch of ${url.href} took longer than ${options.timeoutMs} ms`)
    if (error instanceof FetchError) throw error
    throw new FetchError(`the fetch of ${url.href} failed: ${(error as Error).message}`)
  }
}

/**
 * A POST through the same guards as a fetch (the URL and the connected address checked, the whole
 * exchange capped in time); follows no redirect (a 3xx is the answer). Answers the status code; the
 * response body is read and dropped, up to 64 KiB.
 */
export const safePost = async (
  raw: string,
  body: string,
  headers: Record<string, string>,
  options: Omit<FetchOptions, 'maxBytes'>,
): Promise<number> => {
  const signal = AbortSignal.timeout(options.timeoutMs)
  const url = checkUrl(raw, options.allowPrivate)
  try {
    const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
      const send = url.protocol === 'https:' ? https.request : http.request
      const req = send(url, {
        method: 'POST',
        lookup: guardedLookup(options.allowPrivate),
        signal,
        headers: { 'user-agent': USER_AGENT, 'content-length': String(Buffer.byteLength(body)), ...headers },
      })
      req.on('response', resolve)
      req.on('error', reject)
      req.end(body)
    })
    await readCapped(res, 64 * 1024, signal).catch(() => undefined)
    return res.statusCode ?? 0
  } catch (error) {
    if (signal.aborted) throw new FetchError(`${url.origin} did not answer within ${options.timeoutMs} ms`)
    if (error instanceof FetchError) throw error
    throw new FetchError(`the request to ${url.origin} failed: ${(error as Error).message}`)
  }
}
