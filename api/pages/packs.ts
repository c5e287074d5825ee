import { randomUUID } from 'node:crypto'
import type Router from '@koa/router'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import type { Context } from 'koa'
import MarkdownIt from 'markdown-it'
import { takeHit } from '../../adapters/rateLimit'
import { loadKbConfig } from '../../commands/knowledge'
import type { CommandContext } from '../../commands/handle'
import { type PinnedPage, collectionBySlug, pinnedPages } from '../../queries/pages/packs'
import { fail } from '../../domain/shared'
import { readJson } from '../body'
import * as c from '../codecs'
import type { Deps } from '../deps'
import { ApiError } from '../errors'
import { type McpTool, NO_MCP_STREAM, mcpServer, mcpTool } from '../mcp'
import { inputProblems } from '../validation'
import { PAGE_TITLE_MAX } from './shapes'
import { rangeArguments, rangeFields, rangeNotes, rangeOptional, readRange } from '../tools/ranges'

// Public packs: a collection's verified pages, each at its pinned version, served without login as
// a web page and as a read-only MCP endpoint. A page past its pin is served at the pin; a page never
// verified is never served.

// Raw HTML in page content is escaped (html: false); links are checked by markdown-it's
// validateLink, which refuses javascript:, vbscript:, file: and most data: URLs.
const markdown = new MarkdownIt({ html: false, linkify: false, typographer: false })
const escape = markdown.utils.escapeHtml

/** No script ever runs on a pack page, whatever its content says. */
const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src https: data:; base-uri 'none'; form-action 'none'; " +
  "frame-ancestors 'none'"

export interface Pack {
  slug: string
  name: string
  description: string
  collectionId: string
  workspaceId: string
}

/** The pack under a slug, if it is published and its workspace's verification is on. */
const findPack = async (deps: Deps, slug: string): Promise<Pack | undefined> => {
  const r = await collectionBySlug(deps.db.pool, slug)
  if (!r || !(await loadKbConfig(deps.store, r.workspace_id)).verification.enabled) return undefined
  return { slug: r.slug, name: r.name, description: r.description, collectionId: r.id, workspaceId: r.workspace_id }
}

const html = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
nav a{display:block}article{border-top:1px solid #ddd;margin-top:2rem}.meta{color:#666;font-size:.9rem}
pre{overflow:auto;background:#f6f6f6;padding:.5rem}</style>
</head><body>${body}</body></html>`

const renderPack = (pack: Pack, pages: PinnedPage[]) =>
  html(
    pack.name,
    `<header><h1>${escape(pack.name)}</h1>${pack.description ? `<p>${escape(pack.description)}</p>` : ''}
<p class="meta">${pages.length} verified page${pages.length === 1 ? '' : 's'}.
Read-only MCP endpoint: <code>/packs/${escape(pack.slug)}/mcp</code></p></header>
<nav>${pages.map((p) => `<a href="#page-${escape(p.id)}">${escape(p.title)}</a>`).join('')}</nav>
${pages
  .map(
    (p) => `<article id="page-${escape(p.id)}"><h2>${escape(p.title)}</h2>
<p class="meta">Verified version ${p.version}, ${p.verified_at.toISOString().slice(0, 10)}</p>
${markdown.render(p.content)}</article>`,
  )
  .join('\n')}`,
  )

const d = c.described

const PackPageArguments = c.exact({ pageId: c.id, title: c.line(1, PAGE_TITLE_MAX), ...rangeArguments })

const PackPageRead = c.object(
  {
    pageId: d(t.string, 'The page id'),
    title: d(t.string, 'The page title'),
    version: d(t.number, 'The verified version served'),
    citation: d(t.string, 'How to cite it to the user: "<title> · v<version>"'),
    ...rangeFields,
  },
  rangeOptional,
)

/**
 * A pack's search of its pages, which the search capability provides (pages' module in app/capabilities hands
 * it to mountPacks): the tool, for the pack, whose searches are recorded by `command`'s actor.
 */
export type PackSearch = (deps: Deps, pack: Pack, command: () => CommandContext) => McpTool

const packTools = (deps: Deps, pack: Pack, search: PackSearch): McpTool[] => {
  const command = () => ({
    actor: { kind: 'system' as const, process: `pack:${pack.slug}` },
    at: new Date().toISOString(),
    correlationId: randomUUID(),
  })
  return [
    search(deps, pack, command),
    mcpTool({
      name: 'page_read',
      description:
        `Read a verified page of the pack "${pack.name}" by title or pageId, at its verified version (a section ` +
        'or a range of a long one), with the citation to quote.',
      arguments: PackPageArguments,
      argumentNotes: {
        pageId: 'The page id, as page_search gave it',
        title: 'The page title, in any case',
        ...rangeNotes,
      },
      output: PackPageRead,
      run: async (a) => {
        if (!a.pageId && !a.title)
          return fail('VALIDATION_ERROR', 'name the page by pageId or title', ['arguments: give pageId or title'])
        const [p] = await pinnedPages(deps.db.pool, pack.collectionId, a)
        if (!p) return fail('NOT_FOUND', 'no such verified page in this pack')
        const part = readRange(p.content, a)
        if (E.isLeft(part)) return fail('VALIDATION_ERROR', 'the section is not in this page', [part.left])
        return E.right({
          pageId: p.id,
          title: p.title,
          version: p.version,
          citation: `${p.title} · v${p.version}`,
          ...part.right,
        })
      },
    }),
  ]
}

/** A pack's MCP requests are small: a search or a read. */
const PACK_JSON_LIMIT = '64kb'

/**
 * Anonymous requests per client address (the socket's, never a header a client could set),
 * counted in the database, so that the limit holds across every API process: over it, 429 with
 * Retry-After, before anything is read or looked up.
 */
const addressLimiter = (deps: Deps, perMinute: number) => async (ctx: Context, next: () => Promise<unknown>) => {
  const verdict = await takeHit(deps.db, `pack-address:${ctx.request.ip || 'unknown'}`, perMinute, 60)
  if (!verdict.allowed)
    throw new ApiError(
      'RATE_LIMITED',
      `at most ${perMinute} requests a minute per address to public packs; retry in ${verdict.retryAfterSeconds} s`,
      undefined,
      { 'Retry-After': String(verdict.retryAfterSeconds) },
    )
  await next()
}

export const mountPacks = (router: Router, deps: Deps, search: PackSearch) => {
  const limited = addressLimiter(deps, deps.config.packs.requestsPerMinute)
  router.get('/packs/:slug', limited, async (ctx: Context) => {
    const pack = await findPack(deps, String(ctx.params.slug))
    ctx.set('Content-Security-Policy', CSP)
    ctx.set('X-Content-Type-Options', 'nosniff')
    ctx.type = 'text/html; charset=utf-8'
    if (!pack) {
      ctx.status = 404
      ctx.body = html('Not found', '<h1>No such pack</h1>')
      return
    }
    ctx.body = renderPack(pack, await pinnedPages(deps.db.pool, pack.collectionId))
  })
  // Stateless: each request gets its own server and transport; nothing to authenticate, nothing written but citations.
  router.post('/packs/:slug/mcp', limited, async (ctx: Context) => {
    const pack = await findPack(deps, String(ctx.params.slug))
    if (!pack) throw new ApiError('NOT_FOUND', 'no such pack')
    await readJson(ctx, PACK_JSON_LIMIT)
    const problems = inputProblems((ctx.request as { body?: unknown }).body, '', [])
    if (problems.length) throw new ApiError('VALIDATION_ERROR', 'the request is not valid', problems)
    const server = mcpServer(deps, `pack:${pack.slug}`, packTools(deps, pack, search), false, () => 'public-pack')
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    ctx.res.on('close', () => {
      void transport.close()
      void server.close()
    })
    await server.connect(transport)
    ctx.respond = false
    await transport.handleRequest(ctx.req, ctx.res, (ctx.request as { body?: unknown }).body)
  })
}

const slugParam = [
  {
    name: 'slug',
    in: 'path',
    required: true,
    schema: { type: 'string', pattern: '^[a-z0-9](?:[a-z0-9-]{0,58}[a-z0-9])?$' },
  },
]

/** The packs' endpoints in the OpenAPI document (they are mounted outside the route table). */
export const packsOpenApi = {
  '/packs/{slug}': {
    get: {
      operationId: 'getPack',
      summary: "A public pack's verified pages (HTML, no login)",
      tags: ['packs'],
      security: [],
      parameters: slugParam,
      responses: { default: { description: 'text/html' } },
    },
  },
  '/packs/{slug}/mcp': {
    post: {
      operationId: 'postPackMcp',
      summary: "A public pack's read-only MCP endpoint (page_search, page_read)",
      description: NO_MCP_STREAM,
      tags: ['packs'],
      security: [],
      parameters: slugParam,
      responses: { default: { description: 'JSON-RPC' } },
    },
  },
}
