import robotsParser from 'robots-parser'
import { FetchError, type FetchOptions, type Fetched, USER_AGENT, safeFetch } from '../adapters/fetcher'
import { IMAGE_TYPES, sniffBinary, sniffText } from './sniff'
import type { CrawlOptions } from '../domain/knowledge'
import type { ParserPool } from './parserPool'
import { MAX_TEXT_CHARS } from './parsers'

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
  // An empty query reads back as '' from `search`, yet stays in the href as a trailing '?':
  // setting it to what it reads drops that '?' (and only that: 'p??' keeps its query '?').
  url.search = url.search
  return url.href
}

/**
 * Fetches a crawl may make in all, as a multiple of its maxPages: linked pages that fail (missing,
 * refused, slow to time out) are skipped, but each costs a fetch, and a page of dead links must not
 * make one entry fetch without end.
 */
const FETCHES_PER_PAGE = 3
/** After this long a crawl fetches no more linked pages and keeps those it has. */
const CRAWL_MS = 10 * 60_000

/**
 * The type of a fetched body: its magic bytes first (a PDF or DOCX whatever the server calls it,
 * an image or an executable refused); then the server's word for HTML; the content itself,
 * read in the charset the server declares, for the rest.
 */
const typeOf = async (fetched: Fetched) => {
  const unsupported = (reason: string) =>
    new FetchError(
      `${fetched.url} is not a supported document (${fetched.contentType || 'no content type'}: ${reason})`,
    )
  const binary = await sniffBinary(fetched.body, fetched.charset)
  // An image is read by OCR when a member uploads it, not when a page or a link leads to it.
  if (binary?.ok && IMAGE_TYPES.includes(binary.mimeType))
    throw unsupported(`the content is ${binary.mimeType}, an image: upload it as a file to have it read by OCR`)
  if (binary?.ok) return binary.mimeType
  if (binary) throw unsupported(binary.reason)
  if (fetched.contentType === 'text/html' || fetched.contentType === 'application/xhtml+xml') return 'text/html'
  const sniffed = sniffText(fetched.body, new URL(fetched.url).pathname, fetched.charset)
  if (!sniffed.ok) throw unsupported(sniffed.reason)
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
 * breadth first, each normalised URL once (as linked and as redirected to), at most maxPages and
 * at most maxChars of text in all, within FETCHES_PER_PAGE fetches a page and CRAWL_MS, honouring
 * robots.txt. A linked page that fails is skipped; the first page failing fails the crawl.
 * sameDomainOnly keeps to the host the first page was served from too (after its redirects:
 * example.com redirecting to www.example.com crawls www.example.com).
 */
export const crawl = async (
  start: string,
  crawlOptions: CrawlOptions,
  fetchOptions: FetchOptions,
  parsers: ParserPool,
  /** Called once, before the first page is parsed (the task's step moves to Parsing). */
  onParsing: () => Promise<unknown> = async () => undefined,
  maxChars = MAX_TEXT_CHARS,
): Promise<Page[]> => {
  const hosts = new Set([new URL(start).hostname])
  const seen = new Set<string>([normaliseUrl(start)])
  const frontier: { url: string; depth: number }[] = [{ url: start, depth: 0 }]
  const robots = new Map<string, Awaited<ReturnType<typeof robotsFor>>>()
  const pages: Page[] = []
  let fetches = 0
  let chars = 0
  const deadline = Date.now() + CRAWL_MS
  while (
    frontier.length &&
    pages.length < crawlOptions.maxPages &&
    fetches < crawlOptions.maxPages * FETCHES_PER_PAGE &&
    (pages.length === 0 || Date.now() < deadline)
  ) {
    const { url, depth } = frontier.shift()!
    try {
      if (crawlOptions.depth > 0) {
        const origin = new URL(url).origin
        if (!robots.has(origin)) {
          fetches++
          robots.set(origin, await robotsFor(origin, fetchOptions))
        }
        if (robots.get(origin)!.isDisallowed(url, USER_AGENT)) throw new FetchError(`robots.txt disallows ${url}`)
      }
      fetches++
      const fetched = await safeFetch(url, fetchOptions)
      const landed = normaliseUrl(fetched.url)
      if (url !== start && landed !== url && seen.has(landed)) continue
      seen.add(landed)
      if (url === start) hosts.add(new URL(fetched.url).hostname)
      const mimeType = await typeOf(fetched)
      if (pages.length === 0 && url === start) await onParsing()
      const parsed = await parsers.parse({
        mimeType,
        bytes: fetched.body,
        url: fetched.url,
        ...(fetched.charset ? { charset: fetched.charset } : {}),
      })
      // The crawl is one entry, held to the content limit of one (each page headed by its URL, the
      // pages apart by a blank line): it ends before the page that would pass it.
      const size = parsed.text.length + fetched.url.length + 4 + (pages.length > 0 ? 2 : 0)
      if (pages.length > 0 && chars + size > maxChars) break
      chars += size
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
        if (crawlOptions.sameDomainOnly && !hosts.has(new URL(next).hostname)) continue
        seen.add(next)
        frontier.push({ url: next, depth: depth + 1 })
      }
    } catch (error) {
      if (pages.length === 0 && url === start) throw error
    }
  }
  return pages
}
