import * as assert from 'uvu/assert'
import { newKey, tool } from '../helpers/agents'
import { go, journeys, shot, signedIn } from '../helpers/browser'
import { ADMIN, ok, seedMember } from '../helpers/service'
import { until } from '../helpers/until'

// Signing in, adding knowledge and finding it, following the events, what a viewer may do, hostile
// content, and switching workspace.
journeys('web console: whole journeys in Chromium', (test) => {
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
    await page.getByRole('link', { name: /platypus/i }).click()
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
})
