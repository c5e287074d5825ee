import fs from 'node:fs'
import { until } from '../helpers/until'
import { createRequire } from 'node:module'
import path from 'node:path'
import { type Browser, type Page, chromium } from 'playwright-core'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createLogger } from '../../adapters/logger'
import { ensureConsole } from '../../app/console'
import { newKey, tool, turnVerificationOn } from '../helpers/agents'
import { ADMIN, type Member, type TestService, ok, seedMember, startTestService } from '../helpers/service'

// The web console in a real browser (Debian's Chromium through playwright-core) against a real
// service on a temporary data directory. Screenshots of each main screen go to test-output/console.
const CHROMIUM = '/usr/bin/chromium'
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js')
const SHOTS = path.join(process.cwd(), 'test-output', 'console')

interface Ctx {
  svc: TestService
  owner: Member
  browser: Browser
  /** What the browser reported as broken: script errors, CSP violations, failed API calls. */
  problems: string[]
}
const test = suite<Ctx>('web console: whole journeys in Chromium')

/** A new tab, signed in with `token`; problems it reports are collected. */
const signedIn = async (ctx: Ctx, token: string, width = 1280) => {
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

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true })
const go = (page: Page, hash: string) => page.goto(`${new URL(page.url()).origin}/#${hash}`)

if (!fs.existsSync(CHROMIUM)) {
  test.skip(`every journey (no Chromium at ${CHROMIUM}: apt-get install -y chromium)`, () => undefined)
} else {
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

  test('sign in shows the user, workspace and role; the token stays out of URLs; sign out clears it', async (ctx) => {
    const page = await ctx.browser.newPage({ viewport: { width: 1280, height: 900 } })
    const urls: string[] = []
    page.on('request', (r) => urls.push(r.url()))
    await page.goto(ctx.svc.url)
    await shot(page, 'sign-in')
    await page.getByLabel('Access token').fill('kbt_not_a_token')
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByRole('alert').filter({ hasText: 'Sign-in failed' }).waitFor()
    await page.getByLabel('Access token').fill(ctx.owner.token)
    await page.getByRole('button', { name: 'Sign in' }).click()
    assert.is(await page.getByTestId('role').textContent(), 'owner')
    assert.is(await page.evaluate(() => sessionStorage.getItem('kb.token')), ctx.owner.token)
    assert.is(await page.evaluate(() => localStorage.length), 0)
    assert.ok(urls.every((u) => !u.includes(ctx.owner.token)))
    // The Content-Security-Policy allows no inline script and nothing from elsewhere.
    const res = await page.request.get(ctx.svc.url)
    assert.match(res.headers()['content-security-policy'], /script-src 'self';/)
    await page.getByRole('button', { name: 'Sign out' }).click()
    await page.getByLabel('Access token').waitFor()
    assert.is(await page.evaluate(() => sessionStorage.getItem('kb.token')), null)
    await page.close()
  })

  test('upload a file, watch it complete, then find it by retrieval testing', async (ctx) => {
    const page = await signedIn(ctx, ctx.owner.token)
    await shot(page, 'knowledge-empty')
    await page.locator('input[type=file]').setInputFiles({
      name: 'platypus.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from('# Platypus\n\nThe platypus lays eggs and hunts by electroreception in rivers.\n'),
    })
    await page.locator('[data-testid=task][data-status=completed]').waitFor({ timeout: 30_000 })
    await page.getByTestId('entry-row').filter({ hasText: 'platypus' }).waitFor()
    await shot(page, 'knowledge')
    await page.getByRole('link', { name: /platypus/ }).click()
    await page.getByText('Chunk 1').waitFor()
    await shot(page, 'entry')
    await go(page, '/retrieval')
    await page.getByLabel('Query').fill('which animal uses electroreception')
    await page.getByLabel('Min score').fill('0')
    await page.getByRole('button', { name: 'Search' }).click()
    const result = page.getByTestId('result').first()
    await result.waitFor()
    assert.match((await result.textContent()) ?? '', /platypus/i)
    assert.match((await page.getByTestId('highlight').first().textContent()) ?? '', /electroreception/)
    await shot(page, 'retrieval')
    // The query is kept in the session's history.
    await page.reload()
    await page.getByRole('button', { name: /which animal uses electroreception/ }).waitFor()
    await page.close()
  })

  test('the console follows the events: a held write shows in the badge, and a task, without polling', async (ctx) => {
    const { svc } = ctx
    // A workspace of its own: the held write it leaves is no other journey's. Its editor, who does not
    // manage the workspace, follows the events of its knowledge all the same.
    const owner = await seedMember(svc.call, 'owner')
    const editor = await seedMember(svc.call, 'editor', owner.workspaceId)
    const page = await signedIn(ctx, editor.token)
    const asked: string[] = []
    page.on('request', (r) => asked.push(new URL(r.url()).pathname))
    // Signed in (the token is kept for the tab): opened again, every request of the console is seen.
    await page.reload()
    await page.getByTestId('role').waitFor()
    await page.waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0)
    await until('the event stream opened', () => asked.includes('/api/v1/events/stream'))
    // Written by an agent outside the browser: the badge follows without a reload or a click.
    const held = ok(
      await svc.call('POST', '/api/v1/collections', {
        token: owner.token,
        body: { name: 'Followed', writePolicy: 'hold_for_review' },
      }),
      201,
    )
    const key = (await newKey(svc.call, owner.workspaceId, 'follow-bot')).api_key
    ok(await tool(svc.call, key, 'page_write', { title: 'Followed page', content: 'Held.', collectionId: held.id }))
    await page.getByTestId('review-count').waitFor({ timeout: 10_000 })
    // A task's progress: read again when its events arrive, a handful of times, not twice a second.
    await page.getByLabel('Web page URL').fill('http://kb-console-test.invalid/page')
    await page.getByRole('button', { name: 'Ingest' }).click()
    await page
      .locator('[data-testid=task]:is([data-status=completed],[data-status=failed])')
      .waitFor({ timeout: 30_000 })
    const reads = asked.filter((p) => p.startsWith('/api/v1/knowledge/tasks/')).length
    await new Promise((r) => setTimeout(r, 1500))
    assert.is(asked.filter((p) => p.startsWith('/api/v1/knowledge/tasks/')).length, reads, 'no reads once it ended')
    assert.ok(reads >= 1 && reads <= 8, `${reads} reads of the task`)
    await page.close()
  })

  test('an agent writes into a held collection; a person approves; the page shows the agent', async (ctx) => {
    const { svc, owner } = ctx
    const held = ok(
      await svc.call('POST', '/api/v1/collections', {
        token: owner.token,
        body: { name: 'Reviewed', writePolicy: 'hold_for_review' },
      }),
      201,
    )
    const key = (await newKey(svc.call, owner.workspaceId, 'docs-bot')).api_key
    ok(await tool(svc.call, key, 'page_write', { title: 'Echidna diet', content: 'Ants.', collectionId: held.id }))
    const page = await signedIn(ctx, owner.token)
    await page.getByTestId('review-count').waitFor()
    assert.is(await page.getByTestId('review-count').textContent(), '1')
    await go(page, '/review')
    await page.getByTestId('proposal').waitFor()
    await shot(page, 'review-queue')
    await page.getByRole('button', { name: 'Approve' }).click()
    await page.getByText('Nothing waits for review.').waitFor()
    // The menu's count goes at once.
    await page.getByTestId('review-count').waitFor({ state: 'detached' })
    await go(page, '/pages')
    await page.getByRole('link', { name: 'Echidna diet' }).click()
    await page.getByRole('tab', { name: 'History' }).click()
    assert.match((await page.getByTestId('version-author').first().textContent()) ?? '', /agent docs-bot/)
    await page.close()
  })

  test('approving over a page that moved on asks for an explicit confirm', async (ctx) => {
    const { svc, owner } = ctx
    const held = ok(
      await svc.call('POST', '/api/v1/collections', {
        token: owner.token,
        body: { name: 'Held twice', writePolicy: 'hold_for_review' },
      }),
      201,
    )
    const made = ok(
      await svc.call('POST', '/api/v1/pages', {
        token: owner.token,
        body: { title: 'Wombat burrows', content: 'Deep.', collectionId: held.id },
      }),
      201,
    )
    const key = (await newKey(svc.call, owner.workspaceId, 'burrow-bot')).api_key
    ok(await tool(svc.call, key, 'page_write', { title: 'Wombat burrows', content: 'Deep and long.' }))
    ok(
      await svc.call('PATCH', `/api/v1/pages/${made.id}`, {
        token: owner.token,
        body: { content: 'Deep, with many entrances.', expectedVersion: 1 },
      }),
    )
    const page = await signedIn(ctx, owner.token)
    await go(page, '/review')
    await page.getByRole('button', { name: 'Approve' }).click()
    await page.getByTestId('approve-conflict').waitFor()
    await shot(page, 'review-conflict')
    await page.getByRole('button', { name: 'Publish anyway' }).click()
    await page.getByText('Nothing waits for review.').waitFor()
    // The agent's write was an append to the version it read: published over the newer one.
    const now = ok(await svc.call('GET', `/api/v1/pages/${made.id}`, { token: owner.token }))
    assert.equal([now.version, now.content.includes('Deep and long.')], [3, true])
    await page.close()
  })

  test('revert a page, compare versions, and see the new version', async (ctx) => {
    const { svc, owner } = ctx
    const made = ok(
      await svc.call('POST', '/api/v1/pages', { token: owner.token, body: { title: 'Koala sleep', content: 'Long.' } }),
      201,
    )
    ok(
      await svc.call('PATCH', `/api/v1/pages/${made.id}`, {
        token: owner.token,
        body: { content: 'About twenty hours a day.', expectedVersion: 1 },
      }),
    )
    const page = await signedIn(ctx, owner.token)
    await go(page, `/pages/${made.id}`)
    assert.is(await page.getByTestId('page-version').textContent(), 'v2')
    await page.getByRole('tab', { name: 'Compare versions' }).click()
    await page.getByTestId('diff-side-by-side').waitFor()
    assert.match((await page.getByTestId('diff-side-by-side').textContent()) ?? '', /twenty hours/)
    await shot(page, 'page-diff')
    await page.getByText('Unified', { exact: true }).click()
    await page.getByTestId('diff-line-by-line').waitFor()
    await page.getByRole('tab', { name: 'History' }).click()
    await shot(page, 'page-history')
    await page.getByRole('button', { name: 'Revert to v1' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Revert' }).click()
    await page.getByTestId('page-version').filter({ hasText: 'v3' }).waitFor()
    assert.is(ok(await svc.call('GET', `/api/v1/pages/${made.id}`, { token: owner.token })).content, 'Long.')
    await page.close()
  })

  test('an edit that conflicts shows the newer version to merge by hand', async (ctx) => {
    const { svc, owner } = ctx
    const made = ok(
      await svc.call('POST', '/api/v1/pages', {
        token: owner.token,
        body: { title: 'Tasmanian devil', content: 'Loud.' },
      }),
      201,
    )
    const page = await signedIn(ctx, owner.token)
    await go(page, `/pages/${made.id}`)
    await page.getByRole('button', { name: 'Edit' }).click()
    ok(
      await svc.call('PATCH', `/api/v1/pages/${made.id}`, {
        token: owner.token,
        body: { content: 'Loud at night.', expectedVersion: 1 },
      }),
    )
    await page.getByLabel('Your text (Markdown)').fill('Loud, and a scavenger.')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByTestId('conflict').waitFor()
    assert.is(await page.getByTestId('newer').textContent(), 'Loud at night.')
    await shot(page, 'page-conflict')
    await page.getByLabel('Your text (Markdown)').fill('Loud at night, and a scavenger.')
    await page.getByRole('button', { name: 'Save' }).click()
    await page.getByTestId('page-version').filter({ hasText: 'v3' }).waitFor()
    await page.close()
  })

  test('verify a page, let an agent change it, and see the changed-since-verified banner', async (ctx) => {
    const { svc, owner } = ctx
    await turnVerificationOn(svc.call, owner.token)
    const made = ok(
      await svc.call('POST', '/api/v1/pages', { token: owner.token, body: { title: 'Quoll range', content: 'East.' } }),
      201,
    )
    const page = await signedIn(ctx, owner.token)
    await go(page, `/pages/${made.id}`)
    await page.getByRole('button', { name: 'Verify this version' }).click()
    await page.locator('[data-testid=verification][data-state=verified]').waitFor()
    const key = (await newKey(svc.call, owner.workspaceId, 'range-bot')).api_key
    ok(await tool(svc.call, key, 'page_write', { title: 'Quoll range', content: 'East and south-east.' }))
    await page.reload()
    await page.locator('[data-testid=verification][data-state=changed_since_verified]').waitFor()
    assert.match((await page.getByTestId('since-verified').textContent()) ?? '', /agent range-bot/)
    await shot(page, 'page-verification')
    await page.close()
  })

  test('a viewer sees no write controls, and the API still refuses its writes', async (ctx) => {
    const { svc, owner } = ctx
    const viewer = await seedMember(svc.call, 'viewer', owner.workspaceId)
    const made = ok(
      await svc.call('POST', '/api/v1/pages', { token: owner.token, body: { title: 'Read only', content: 'Look.' } }),
      201,
    )
    const page = await signedIn(ctx, viewer.token)
    assert.is(await page.getByTestId('role').textContent(), 'viewer')
    assert.is(await page.locator('input[type=file]').count(), 0)
    assert.is(await page.getByRole('button', { name: 'Ingest' }).count(), 0)
    await go(page, `/pages/${made.id}`)
    await page.getByTestId('rendered').waitFor()
    assert.is(await page.getByRole('button', { name: 'Edit' }).count(), 0)
    await go(page, '/settings')
    await page.getByText('Only owners and admins change these settings.').waitFor()
    assert.is(await page.getByRole('button', { name: 'Save settings' }).count(), 0)
    await shot(page, 'viewer')
    const refused = await svc.call('PATCH', `/api/v1/pages/${made.id}`, {
      token: viewer.token,
      body: { content: 'Changed.', expectedVersion: 1 },
    })
    assert.is(refused.status, 403)
    await page.close()
  })

  test('a page with hostile HTML renders inert', async (ctx) => {
    const { svc, owner } = ctx
    const hostile = [
      '# Hostile',
      '<script>window.pwned = 1</script>',
      '<img src="x" onerror="window.pwned = 2">',
      '[click me](javascript:window.pwned=3)',
      '<a href="javascript:window.pwned=4">raw link</a>',
    ].join('\n\n')
    const made = ok(
      await svc.call('POST', '/api/v1/pages', { token: owner.token, body: { title: 'Hostile', content: hostile } }),
      201,
    )
    const page = await signedIn(ctx, owner.token)
    await go(page, `/pages/${made.id}`)
    const rendered = page.getByTestId('rendered')
    await rendered.waitFor()
    await page
      .getByText('click me')
      .click()
      .catch(() => undefined)
    await page.waitForTimeout(300)
    assert.is(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned), undefined)
    assert.is(await rendered.locator('script, img[onerror], a[href^="javascript"]').count(), 0)
    await shot(page, 'page-hostile')
    await page.close()
  })

  test('the other screens: collections and a pack, audit, settings with the API messages, and /docs', async (ctx) => {
    const page = await signedIn(ctx, ctx.owner.token)
    await go(page, '/collections')
    await page.getByTestId('collection').first().waitFor()
    const reviewed = page.getByTestId('collection').filter({ hasText: 'Reviewed' })
    await reviewed.getByLabel('Pack slug').fill('reviewed-docs')
    await reviewed.getByRole('button', { name: 'Publish as a public pack' }).click()
    await reviewed.getByTestId('pack-link').waitFor()
    assert.match((await reviewed.getByTestId('pack-link').getAttribute('href')) ?? '', /\/packs\/reviewed-docs$/)
    await shot(page, 'collections')
    await go(page, '/audit')
    await page.getByTestId('audit-row').first().waitFor()
    await shot(page, 'audit')
    // From a page to its events.
    await go(page, '/pages')
    await page.getByRole('link', { name: 'Koala sleep' }).click()
    await page.getByRole('link', { name: 'Events' }).click()
    await page.getByTestId('audit-row').first().waitFor()
    const streams = await page.getByTestId('audit-row').locator('td:nth-child(5)').allTextContents()
    assert.ok(streams.length >= 3 && streams.every((s) => s.startsWith('page-')), streams.join())
    await go(page, '/settings')
    await page.getByLabel('Default limit').fill('500')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page
      .getByText(/search\.defaultLimit|must be/)
      .first()
      .waitFor()
    await shot(page, 'settings')
    await page.goto(`${ctx.svc.url}/docs`)
    await page.locator('.swagger-ui .info').waitFor({ timeout: 20_000 })
    await page.screenshot({ path: path.join(SHOTS, 'api-reference.png') })
    // Narrow screens work too: the menu folds behind a button.
    await page.setViewportSize({ width: 400, height: 800 })
    await go(page, '/')
    await page.getByRole('button', { name: 'Menu' }).click()
    await page.getByRole('link', { name: 'Retrieval testing' }).click()
    await page.getByLabel('Query').waitFor()
    await shot(page, 'narrow')
    // Signing out stays within reach.
    const box = await page.getByRole('button', { name: 'Sign out' }).boundingBox()
    assert.ok(box && box.x >= 0 && box.x + box.width <= 400, JSON.stringify(box))
    await page.close()
  })

  test('every main screen passes axe-core (nothing serious or critical); signing in works by keyboard', async (ctx) => {
    // axe is injected into the page, which the console's CSP would refuse: this one context bypasses it.
    const context = await ctx.browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } })
    const page = await context.newPage()
    await page.goto(ctx.svc.url)
    // By keyboard: once the form is shown, Tab reaches the token field first; Enter signs in.
    const field = page.getByLabel('Access token')
    await field.waitFor()
    await page.keyboard.press('Tab')
    assert.ok(await field.evaluate((el) => el === document.activeElement), 'Tab focuses the token field')
    await page.keyboard.type(ctx.owner.token)
    await page.keyboard.press('Enter')
    await page.getByTestId('role').waitFor()
    const pageId = ok(await ctx.svc.call('GET', '/api/v1/pages?search=Koala', { token: ctx.owner.token })).items[0].id
    const found: string[] = []
    for (const screen of [
      '/',
      '/retrieval',
      '/pages',
      `/pages/${pageId}`,
      '/review',
      '/collections',
      '/audit',
      '/settings',
    ]) {
      await go(page, screen)
      await page.locator('main h2').first().waitFor()
      // Loaded: no loader left (the console keeps the event stream open, so the network is never idle).
      await page.waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0)
      await page.addScriptTag({ path: AXE })
      const violations = await page.evaluate(async () => {
        const result = await (window as any).axe.run(document, { resultTypes: ['violations'] })
        return result.violations
          .filter((v: any) => v.impact === 'serious' || v.impact === 'critical')
          .map((v: any) => `${v.id}: ${v.nodes.map((n: any) => n.target.join(' ')).join(', ')}`)
      })
      found.push(...violations.map((v: string) => `${screen} ${v}`))
    }
    await context.close()
    assert.equal(found, [])
  })

  test('switching workspace changes what is shown', async (ctx) => {
    const { svc, owner } = ctx
    const other = await seedMember(svc.call, 'owner')
    ok(
      await svc.call('POST', `/api/v1/admin/workspaces/${other.workspaceId}/members`, {
        token: ADMIN,
        body: { userId: owner.userId, role: 'editor' },
      }),
    )
    const page = await signedIn(ctx, owner.token)
    await page.getByTestId('entry-row').first().waitFor()
    await page.getByRole('combobox', { name: 'Workspace' }).click()
    await page.getByRole('option').nth(1).waitFor()
    assert.is(await page.getByRole('option').count(), 2)
    await page.getByRole('listbox', { name: 'Workspace' }).locator('[role=option][aria-selected=false]').click()
    await page.getByTestId('role').filter({ hasText: 'editor' }).waitFor()
    await page.getByTestId('empty').waitFor()
    await page.close()
  })
}

test.run()
