import fs from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type Router from '@koa/router'
import type { Context } from 'koa'

/** Where the console's build is (web/dist, built by app/console.ts). */
export const CONSOLE_DIST = fileURLToPath(new URL('../web/dist', import.meta.url))

/**
 * The console and the API reference load only what this service serves: no inline script, no
 * other origin. Styles may be inline (the component library sets them at run time).
 */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; " +
  "frame-ancestors 'none'"

/** Swagger UI's own files, from its npm package (the reference page is ours: it loads them). */
const swaggerDir = path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))
const SWAGGER_FILES = new Set(['swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png'])

const DOCS_PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>API reference</title>
  <link rel="icon" href="/docs/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
  <div id="swagger"></div>
  <script src="/docs/swagger-ui-bundle.js"></script>
  <script src="/docs-init.js"></script>
</body>
</html>`

const files = new Map<string, Promise<Buffer | undefined>>()

/** A file, read once (the build does not change under a running service); undefined when absent. */
const cached = (file: string) => {
  let read = files.get(file)
  if (!read) {
    read = fs.readFile(file).catch(() => undefined)
    files.set(file, read)
    // An absent build may appear (a build finishing): look again next time.
    void read.then((b) => b === undefined && files.delete(file))
  }
  return read
}

const secure = (ctx: Context) => {
  ctx.set('Content-Security-Policy', CSP)
  ctx.set('X-Content-Type-Options', 'nosniff')
  ctx.set('Referrer-Policy', 'no-referrer')
}

const serve = async (ctx: Context, file: string, immutable: boolean) => {
  const body = await cached(file)
  if (!body) return false
  secure(ctx)
  ctx.type = path.extname(file)
  ctx.set('Cache-Control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache')
  ctx.body = body
  return true
}

/** A file name as the build names them: nothing that could climb out of its folder. */
const safeName = (name: string) => /^[A-Za-z0-9][A-Za-z0-9._-]{0,200}$/.test(name) && !name.includes('..')

const page = (operationId: string, summary: string, description: string, file = false) => ({
  get: {
    operationId,
    summary,
    tags: ['console'],
    security: [],
    ...(file ? { parameters: [{ name: 'file', in: 'path', required: true, schema: { type: 'string' } }] } : {}),
    responses: { default: { description } },
  },
})

/** The console's and the reference's paths, for the OpenAPI document (no login: they hold no data). */
export const consoleOpenApi = {
  '/': page('getConsole', 'The web console (sign in with an access token)', 'text/html'),
  '/assets/{file}': page('getConsoleAsset', "The console's scripts and styles", 'JavaScript or CSS', true),
  '/favicon.ico': page('getFavicon', "The console's icon (SVG)", 'image/svg+xml'),
  '/docs-init.js': page('getDocsInit', "The API reference page's script", 'JavaScript'),
  '/docs': page('getDocs', 'This document, rendered (Swagger UI)', 'text/html'),
  '/docs/{file}': page('getDocsAsset', "Swagger UI's files", 'JavaScript, CSS or an icon', true),
}

/**
 * The web console at / (its build: index.html, assets, and the API reference's initialiser), and
 * the API reference at /docs (Swagger UI over /api/v1/openapi.json).
 */
export const mountConsole = (router: Router) => {
  router.get('/', async (ctx) => {
    if (await serve(ctx, path.join(CONSOLE_DIST, 'index.html'), false)) return
    secure(ctx)
    ctx.status = 503
    ctx.type = 'text/plain; charset=utf-8'
    ctx.set('Retry-After', '30')
    ctx.body = 'The console is being built (npm start builds it when it is missing). Try again in a moment.\n'
  })
  router.get('/assets/:file', async (ctx) => {
    const name = String(ctx.params.file)
    if (!safeName(name) || !(await serve(ctx, path.join(CONSOLE_DIST, 'assets', name), true))) ctx.status = 404
  })
  // The page names its icon; a browser or a tool that asks for /favicon.ico anyway gets the same one.
  router.get('/favicon.ico', async (ctx) => {
    const assets = await fs.readdir(path.join(CONSOLE_DIST, 'assets')).catch(() => [])
    const icon = assets.find((name) => /^favicon-[\w-]+\.svg$/.test(name))
    if (!icon || !(await serve(ctx, path.join(CONSOLE_DIST, 'assets', icon), false))) ctx.status = 404
  })
  router.get('/docs-init.js', async (ctx) => {
    if (!(await serve(ctx, path.join(CONSOLE_DIST, 'docs-init.js'), false))) ctx.status = 404
  })
  router.get('/docs', (ctx) => {
    secure(ctx)
    ctx.type = 'text/html; charset=utf-8'
    ctx.body = DOCS_PAGE
  })
  router.get('/docs/:file', async (ctx) => {
    const name = String(ctx.params.file)
    if (!SWAGGER_FILES.has(name) || !(await serve(ctx, path.join(swaggerDir, name), false))) ctx.status = 404
  })
}
