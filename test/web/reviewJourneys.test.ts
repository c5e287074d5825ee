import type { Page } from 'playwright-core'
import * as assert from 'uvu/assert'
import { newKey, tool } from '../helpers/agents'
import { go, journeys, shot, signedIn } from '../helpers/browser'
import { ok, seedMember } from '../helpers/service'

/** Whether two boxes on screen overlap. */
const overlap = (a: Box, b: Box) =>
  a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height
type Box = { x: number; y: number; width: number; height: number }

/** A success notification: its title and sentence, and whether it covers the header's controls. */
const notified = async (page: Page, title: string) => {
  const note = page.locator('.mantine-Notification-root').filter({ has: page.getByText(title, { exact: true }) })
  await note.waitFor()
  const box = (await note.boundingBox()) as Box
  const covered = []
  for (const control of [
    page.getByRole('button', { name: 'Sign out' }),
    page.getByRole('combobox', { name: 'Workspace' }),
  ])
    if (overlap(box, (await control.boundingBox()) as Box)) covered.push(await control.textContent())
  return { text: (await note.locator('.mantine-Notification-description').textContent()) ?? '', covered }
}

// The review queue's history, and what the console says once a decision or a revert is made.
journeys('web console: decisions and their notifications in Chromium', (test) => {
  test('decided proposals stay listed, approved and rejected, with who decided and when', async (ctx) => {
    const { svc } = ctx
    const owner = await seedMember(svc.call, 'owner')
    const held = ok(
      await svc.call('POST', '/api/v1/collections', {
        token: owner.token,
        body: { name: 'Field notes', writePolicy: 'hold_for_review' },
      }),
      201,
    )
    const key = (await newKey(svc.call, owner.workspaceId, 'field-bot')).api_key
    for (const [title, content] of [
      ['Bilby ears', 'Large ears shed heat.'],
      ['Quokka smile', 'Quokkas always smile.'],
    ])
      ok(await tool(svc.call, key, 'page_write', { title, content, collectionId: held.id }))
    const page = await signedIn(ctx, owner.token)
    await go(page, '/review')
    const bilby = page.getByTestId('proposal').filter({ hasText: 'Bilby ears' })
    await bilby.getByRole('button', { name: 'Approve' }).click()
    await bilby.waitFor({ state: 'detached' })
    await page
      .getByTestId('proposal')
      .filter({ hasText: 'Quokka smile' })
      .getByRole('button', { name: 'Reject' })
      .click()
    await page.getByRole('dialog').getByLabel('Reason (the agent reads it)').fill('Not always: only in photographs.')
    await page.getByRole('dialog').getByRole('button', { name: 'Reject' }).click()
    // Said once, as a sentence, out of the way of the header.
    const rejected = await notified(page, 'Rejected')
    assert.not.match(rejected.text, /Reject/)
    assert.match(rejected.text, /“Quokka smile” by agent field-bot was not published/)
    assert.equal(rejected.covered, [])
    await page.getByText('Nothing waits for review.').waitFor()
    await page.getByRole('tab', { name: 'Decided' }).click()
    const rows = page.getByTestId('decided')
    await rows.nth(1).waitFor()
    const text = await rows.allTextContents()
    // The latest decision first.
    assert.match(text[0], /Quokka smile.*agent field-bot.*rejected.*Not always: only in photographs\..*Test User/)
    assert.match(text[1], /Bilby ears.*agent field-bot.*approved.*published as version 1.*Test User/)
    assert.equal(await page.getByTestId('decided-by').allTextContents(), ['Test User', 'Test User'])
    await shot(page, 'review-decided')
    await page.close()
  })

  test('a revert says which version the page is at now, once, below the header', async (ctx) => {
    const { svc, owner } = ctx
    const made = ok(
      await svc.call('POST', '/api/v1/pages', {
        token: owner.token,
        body: { title: 'Wombat cubes', content: 'Square.' },
      }),
      201,
    )
    ok(
      await svc.call('PATCH', `/api/v1/pages/${made.id}`, {
        token: owner.token,
        body: { content: 'Cube-shaped, to mark territory.', expectedVersion: 1 },
      }),
    )
    const page = await signedIn(ctx, owner.token)
    await go(page, `/pages/${made.id}`)
    await page.getByRole('tab', { name: 'History' }).click()
    await page.getByRole('button', { name: 'Revert to v1' }).click()
    await page.getByRole('dialog').getByRole('button', { name: 'Revert' }).click()
    const reverted = await notified(page, 'Reverted')
    assert.is(reverted.text, '“Wombat cubes” is at version 3.')
    assert.equal(reverted.covered, [])
    await shot(page, 'page-reverted')
    await page.close()
  })
})
