import * as assert from 'uvu/assert'
import { newKey, tool, turnVerificationOn } from '../helpers/agents'
import { go, journeys, shot, signedIn } from '../helpers/browser'
import { ok } from '../helpers/service'

// A page reverted to the content a person verified reads verified again, in the console as in the API.
journeys('web console: reverting a page to its verified content in Chromium', (test) => {
  test('verify, let an agent change it, revert to the verified version: the drift banner goes', async (ctx) => {
    const { svc, owner } = ctx
    await turnVerificationOn(svc.call, owner.token)
    const made = ok(
      await svc.call('POST', '/api/v1/pages', {
        token: owner.token,
        body: { title: 'Platypus venom', content: 'Males have a venomous spur.' },
      }),
      201,
    )
    ok(await svc.call('POST', `/api/v1/pages/${made.id}/verify`, { token: owner.token }))
    const key = (await newKey(svc.call, owner.workspaceId, 'venom-bot')).api_key
    ok(await tool(svc.call, key, 'page_write', { title: 'Platypus venom', content: 'Both sexes have spurs.' }))
    // One serve since the pin: the page and the banner say "cited 1 time".
    const found = ok(await tool(svc.call, key, 'page_search', { query: 'platypus spurs', mode: 'text', minScore: 0 }))
    assert.is(found.results.length, 1)
    const read = ok(await svc.call('GET', `/api/v1/pages/${made.id}?settle=true`, { token: owner.token }))
    assert.equal([read.citedCount, read.verification.sinceVerified.citations], [1, 1])

    const page = await signedIn(ctx, owner.token)
    await go(page, `/pages/${made.id}`)
    await page.locator('[data-testid=verification][data-state=changed_since_verified]').waitFor()
    assert.match((await page.getByTestId('since-verified').textContent()) ?? '', /cited 1 time\.$/)
    await page.getByText('cited 1 time', { exact: false }).first().waitFor()
    assert.ok(await page.getByText(/· cited 1 time$/).isVisible(), 'the page header says "cited 1 time"')
    await shot(page, 'page-changed-before-revert')

    await page.getByRole('tab', { name: 'History' }).click()
    await page.getByRole('button', { name: 'Revert to v1' }).click()
    const dialog = page.getByRole('dialog')
    const asked = await dialog.textContent()
    assert.match(asked ?? '', /A new version 3 will restore the content of version 1\./)
    await dialog.getByRole('button', { name: 'Revert' }).click()
    // While it fades out, the dialog still says what was asked (it read "version ." over the page).
    const fading = await dialog.textContent({ timeout: 100 }).catch(() => asked)
    assert.is(fading, asked)
    await page.getByTestId('page-version').filter({ hasText: 'v3' }).waitFor()
    await page.locator('[data-testid=verification][data-state=verified]').waitFor()
    assert.is(await page.getByTestId('verification').getAttribute('data-state'), 'verified')
    assert.match((await page.getByTestId('verification').textContent()) ?? '', /^Verified \(version 3\)/)
    assert.is(await page.getByTestId('since-verified').count(), 0, 'no "changed since" line')
    assert.is(await page.getByText(/Changed since verified/).count(), 0, 'no drift banner')
    assert.is(await page.getByRole('button', { name: 'Verify this version' }).count(), 0, 'nothing to verify')
    await shot(page, 'page-reverted-to-verified')

    // The pages list's chip agrees.
    await go(page, '/pages')
    const row = page.getByRole('row').filter({ hasText: 'Platypus venom' })
    await row.waitFor()
    assert.match((await row.textContent()) ?? '', /verified/i)
    assert.not.match((await row.textContent()) ?? '', /changed/i)
    await page.close()
  })
})
