import robotsParser from 'robots-parser'
import { FetchError, type FetchOptions, type Fetched, USER_AGENT, safeFetch } from '../adapters/fetcher'
import { sniffType } from '../adapters/sniff'
import type { CrawlOptions } from '../domain/entry'
import type { ParserPool } from './parserPool'

export interface Page {
  url: string
  text: string
  title?: string
  /** The SHA-256 input: the bytes as fetched. */
  body: Buffer
}

/** One spelling per page: no fragment, lowercase host (the URL parser), no default port, no trailing "?". */
export const normaliseUrl = (raw: string) => {
  const url = new URL(raw)
  url.hash = ''
  if (url.search === '?') url.search = ''
  return url.href
}

/** The type of a fetched body: the server's word for HTML, the content itself for the rest. */
const typeOf = async (fetched: Fetched) => {
  if (fetched.contentType === 'text/html' || fetched.contentType === 'application/xhtml+xml') return 'text/html'
  const sniffed = await sniffType(fetched.body, new URL(fetched.url).pathname)
  if (!sniffed.ok) throw new FetchError(`${fetched.url} is not a supported document (${fetched.contentType || 'no content type'}: ${sniffed.reason})`)
  return sniffed.mimeType
}

const robotsFor = async (origin: string, options: FetchOptions) => {
  const robotsUrl = `${origin}/robots.txt`
  try {
    const fetched = await safeFetch(robotsUrl, { ...options, maxBytes: 512 * 1024 })
    return robotsParser(robotsUrl, fetched.body.toString('utf8'))
  } catch {
    // No robots.txt (or an unreadable one): nothing is disallowed.
    return robotsParser(robotsUrl, '')
  }
}

/**
 * Fetches a page, or crawls from it (depth 1: the page and its direct links; 2: theirs too),
 * breadth first, each normalised URL once, at most maxPages, honouring robots.txt. A linked page
 * that fails is skipped; the first page failing fails the crawl.
 */
export const crawl = async (start: string, crawlOptions: CrawlOptions, fetchOptions: FetchOptions, parsers: ParserPool): Promise<Page[]> => {
  const first = new URL(start)
  const seen = new Set<string>([normaliseUrl(start)])
  const frontier: { url: string; depth: number }[] = [{ url: start, depth: 0 }]
  const robots = new Map<string, Awaited<ReturnType<typeof robotsFor>>>()
  const pages: Page[] = []
  while (frontier.length && pages.length < crawlOptions.maxPages) {
    const { url, depth } = frontier.shift()!
    try {
      if (crawlOptions.depth > 0) {
        const origin = new URL(url).origin
        if (!robots.has(origin)) robots.set(origin, await robotsFor(origin, fetchOptions))
        if (robots.get(origin)!.isDisallowed(url, USER_AGENT)) throw new FetchError(`robots.txt disallows ${url}`)
      }
      const fetched = await safeFetch(url, fetchOptions)
      const mimeType = await typeOf(fetched)
      const parsed = await parsers.parse({ mimeType, bytes: fetched.body, url: fetched.url })
      pages.push({ url: fetched.url, text: parsed.text, title: parsed.title, body: fetched.body })
      if (depth >= crawlOptions.depth) continue
      for (const link of parsed.links) {
        let next: string
        try {
          next = normaliseUrl(link)
        } catch {
          continue
        }
        if (seen.has(next)) continue
        if (crawlOptions.sameDomainOnly && new URL(next).hostname !== first.hostname) continue
        seen.add(next)
        frontier.push({ url: next, depth: depth + 1 })
      }
    } catch (error) {
      if (pages.length === 0 && url === start) throw error
    }
  }
  return pages
}
