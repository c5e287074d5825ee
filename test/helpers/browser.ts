import fs from 'node:fs'
import path from 'node:path'
import { type Browser, type Page, chromium } from 'playwright-core'
import { type Test, suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createLogger } from '../../adapters/logger'
import { ensureConsole } from '../../app/console'
import { type Member, type TestService, seedMember, startTestService } from './service'

// The web console in a real browser (Debian's Chromium through playwright-core) against a real
// service on a temporary data directory. Screenshots of each main screen go to test-output/console.
const CHROMIUM = '/usr/bin/chromium'
export const SHOTS = path.join(process.cwd(), 'test-output', 'console')

export interface BrowserContext {
  svc: TestService
  owner: Member
  browser: Browser
  /** What the browser reported as broken: script errors, CSP violations, failed API calls. */
  problems: string[]
}

/** A new tab, signed in with `token`; problems it reports are collected. */
export const signedIn = async (ctx: BrowserContext, token: string, width = 1280) => {
  const page = await ctx.browser.newPage({ viewport: { width, height: 900 } })
  page.on('pageerror', (e) => ctx.problems.push(`page error: ${e.message}`))
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/.test(m.text())) ctx.problems.push(m.text())
  })
  await page.goto(ctx.svc.url)
  await page.getByLabel('Access token').fill(token)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByTestId('role').waitFor()
  return page
}

export const shot = (page: Page, name: string) =>
  page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true })
export const go = (page: Page, hash: string) => page.goto(`${new URL(page.url()).origin}/#${hash}`)

/**
 * A suite of console journeys: a service with an owner, and Chromium, for its tests (`define`),
 * each of which must leave the browser with nothing to report. Skipped, and said so, without Chromium.
 */
export const journeys = (name: string, define: (test: Test<BrowserContext>) => void) => {
  const test = suite<BrowserContext>(name)
  if (!fs.existsSync(CHROMIUM)) {
    test.skip(`every journey (no Chromium at ${CHROMIUM}: apt-get install -y chromium)`, () => undefined)
    return test.run()
  }
  test.before(async (ctx) => {
    assert.ok(await ensureConsole(createLogger('warn')), 'the console is built')
    fs.mkdirSync(SHOTS, { recursive: true })
    ctx.svc = await startTestService()
    ctx.owner = await seedMember(ctx.svc.call, 'owner')
    ctx.problems = []
    ctx.browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    })
  })
  test.after(async (ctx) => {
    await ctx.browser?.close()
    await ctx.svc?.stop()
  })
  test.after.each((ctx) => {
    assert.equal(ctx.problems.splice(0), [], 'the browser reported no error')
  })
  define(test)
  test.run()
}
