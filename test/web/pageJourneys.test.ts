import { createRequire } from 'node:module'
import path from 'node:path'
import * as assert from 'uvu/assert'
import { newKey, tool, turnVerificationOn } from '../helpers/agents'
import { SHOTS, go, journeys, shot, signedIn } from '../helpers/browser'
import { ok } from '../helpers/service'

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js')

// Pages through a person's review (held writes, approvals, reverts, conflicts, verification), then the
// other screens and their accessibility, on the pages those journeys leave.
journeys('web console: pages, review and the other screens in Chromium', (test) => {
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
})
