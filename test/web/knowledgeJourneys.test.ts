import * as assert from 'uvu/assert'
import { scannedPdf } from '../../testkit/files'
import { go, journeys, shot, signedIn } from '../helpers/browser'
import { ok, seedMember } from '../helpers/service'
import { until } from '../helpers/until'

// The knowledge screen as a newcomer meets it: the console's own files all answer, a text written in
// the console, folders made, renamed and deleted, a failed entry marked, the drop zone's file types
// those of the workspace, and the menu's edge as long as the page.
journeys('web console: knowledge, folders and the first load in Chromium', (test) => {
  test('the first load asks for nothing that is missing: the favicon is served', async (ctx) => {
    const page = await ctx.browser.newPage({ viewport: { width: 1280, height: 900 } })
    const missing: string[] = []
    page.on('response', (r) => r.status() >= 400 && missing.push(`${r.status()} ${new URL(r.url()).pathname}`))
    await page.goto(ctx.svc.url)
    await page.getByLabel('Access token').fill(ctx.owner.token)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByTestId('role').waitFor()
    await page.waitForFunction(() => document.querySelectorAll('[aria-busy="true"]').length === 0)
    await page.waitForTimeout(500)
    assert.equal(missing, [], 'nothing the console asked for is missing')
    // A browser with a window asks for the icon the page names, or for /favicon.ico when it names none
    // (headless Chromium asks for neither): that answers, and is an image.
    const icon = await page.evaluate(
      () => document.querySelector('link[rel~=icon]')?.getAttribute('href') ?? '/favicon.ico',
    )
    const served = await page.request.get(new URL(icon, ctx.svc.url).href)
    assert.is(served.status(), 200, `${icon} answers`)
    assert.match(served.headers()['content-type'], /image\/svg\+xml/)
    // A browser or a tool that asks for /favicon.ico anyway gets the same icon.
    const ico = await page.request.get(new URL('/favicon.ico', ctx.svc.url).href)
    assert.is(ico.status(), 200, '/favicon.ico answers')
    assert.match(ico.headers()['content-type'], /image\/svg\+xml/)
    assert.equal(await ico.body(), await served.body())
    await page.close()
  })

  test('a text entry into a new folder, the folder renamed and deleted: its entries go to no folder', async (ctx) => {
    const { svc } = ctx
    const owner = await seedMember(svc.call, 'owner')
    const page = await signedIn(ctx, owner.token)
    await page.getByRole('button', { name: 'New folder' }).click()
    await page.getByRole('dialog').getByLabel('Name').fill('Marsupials')
    await page.getByRole('dialog').getByRole('button', { name: 'Create folder' }).click()
    await page.getByTestId('folder').filter({ hasText: 'Marsupials' }).waitFor()
    // Into the folder on screen: the text form takes the folder chosen above it.
    await page.getByRole('navigation', { name: 'Folders' }).getByText('Marsupials').click()
    await until('the folder is chosen for new knowledge', async () =>
      /Marsupials/.test(await page.getByRole('combobox', { name: 'Into folder' }).inputValue()),
    )
    await page.getByLabel('Entry title').fill('Numbat diet')
    await page.getByLabel('Content').fill('The numbat eats termites, up to 20,000 a day.')
    await page.getByRole('button', { name: 'Add text' }).click()
    await page.getByText('“Numbat diet” is searchable now.').waitFor()
    await page.getByTestId('entry-row').filter({ hasText: 'Numbat diet' }).waitFor()
    const [entry] = ok(await svc.call('GET', '/api/v1/knowledge', { token: owner.token })).items
    assert.is(entry.title, 'Numbat diet')
    assert.is(entry.source, 'manual')
    const folder = ok(await svc.call('GET', '/api/v1/knowledge/folders', { token: owner.token })).folders[0]
    assert.is(entry.folderId, folder.id)
    // Renamed from its menu.
    await page.getByRole('button', { name: 'Folder Marsupials: actions' }).click()
    await page.getByRole('menuitem', { name: 'Rename' }).waitFor()
    await page.waitForTimeout(300) // the menu's opening transition
    await shot(page, 'folder-menu')
    await page.getByRole('menuitem', { name: 'Rename' }).click()
    await page.getByRole('dialog').getByLabel('Name').fill('Australian marsupials')
    await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click()
    await page.getByTestId('folder').filter({ hasText: 'Australian marsupials' }).waitFor()
    assert.is(
      ok(await svc.call('GET', `/api/v1/knowledge/folders/${folder.id}`, { token: owner.token })).name,
      'Australian marsupials',
    )
    // "In no folder" is a filter: the entry in the folder is not listed there.
    await page.getByTestId('root-count').click()
    await until(
      'the list shows the entries in no folder',
      async () => (await page.getByTestId('entry-row').count()) === 0,
    )
    // Deleted, after a confirmation that says where its entry goes.
    await page.getByRole('button', { name: 'Folder Australian marsupials: actions' }).click()
    await page.getByRole('menuitem', { name: 'Delete' }).click()
    const dialog = page.getByRole('dialog')
    assert.match((await dialog.textContent()) ?? '', /Its 1 entry moves to “In no folder”: no entry is deleted\./)
    await page.waitForTimeout(300) // the dialog's opening transition
    await shot(page, 'folder-delete')
    await dialog.getByRole('button', { name: 'Delete folder' }).click()
    await page.getByTestId('folder').waitFor({ state: 'detached' })
    await page.getByRole('dialog').waitFor({ state: 'detached' })
    await page
      .getByTestId('root-count')
      .filter({ hasText: /In no folder\s*1/ })
      .waitFor()
    // Listed in no folder now, under the filter still chosen.
    await page.getByTestId('entry-row').filter({ hasText: 'Numbat diet' }).waitFor()
    assert.is(ok(await svc.call('GET', `/api/v1/knowledge/${entry.id}`, { token: owner.token })).folderId, undefined)
    await shot(page, 'folders')
    await page.close()
  })

  test('a failed entry is marked FAILED in the list, with its reason as the badge title', async (ctx) => {
    const { svc } = ctx
    const owner = await seedMember(svc.call, 'owner')
    const made = ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: owner.token,
        body: { source: 'url', url: 'http://kb-console-test.invalid/gone', title: 'Dead link' },
      }),
      201,
    )
    let failed: { processingStatus: string; failure?: { reason: string } } = { processingStatus: 'pending' }
    await until(
      'the entry failed',
      async () => {
        failed = ok(await svc.call('GET', `/api/v1/knowledge/${made.id}`, { token: owner.token }))
        return failed.processingStatus === 'failed'
      },
      30_000,
    )
    const page = await signedIn(ctx, owner.token)
    const badge = page.getByTestId('entry-row').filter({ hasText: 'Dead link' }).getByTestId('entry-status')
    await badge.waitFor()
    assert.is(await badge.textContent(), 'FAILED')
    // Why, on hover.
    assert.ok(failed.failure?.reason, 'the API says why')
    assert.is(await badge.getAttribute('title'), failed.failure?.reason)
    await shot(page, 'knowledge-failed')
    await page.close()
  })

  test("the drop zone lists the workspace's own file types", async (ctx) => {
    const { svc } = ctx
    const owner = await seedMember(svc.call, 'owner')
    const page = await signedIn(ctx, owner.token)
    const types = page.getByTestId('allowed-types')
    await types.filter({ hasText: 'PDF' }).waitFor()
    assert.not.match((await types.textContent()) ?? '', /DOCX/, 'DOCX is not allowed by default')
    const docx = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'
    const config = ok(await svc.call('GET', '/api/v1/knowledge/config', { token: owner.token })).config
    ok(
      await svc.call('PATCH', '/api/v1/knowledge/config', {
        token: owner.token,
        body: { allowedFileTypes: [...config.allowedFileTypes, docx] },
      }),
    )
    await page.reload()
    await types.filter({ hasText: 'DOCX' }).waitFor()
    await page.close()
  })

  test('images are allowed in Settings, and a scan that is read with one blank page says so', async (ctx) => {
    const { svc } = ctx
    const owner = await seedMember(svc.call, 'owner')
    const page = await signedIn(ctx, owner.token)
    await go(page, '/settings')
    // Every type the service reads is offered, by the name people know it by.
    const field = page.getByRole('combobox', { name: 'Allowed file types' })
    // The field's box, around the chosen types' pills, opens its list.
    await page.locator('.mantine-MultiSelect-input', { has: field }).click()
    await page.getByRole('option', { name: 'PNG image (OCR)' }).click()
    await shot(page, 'settings-file-types')
    await page.keyboard.press('Escape')
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Saved').first().waitFor()
    const config = ok(await svc.call('GET', '/api/v1/knowledge/config', { token: owner.token })).config
    assert.ok(config.allowedFileTypes.includes('image/png'), JSON.stringify(config.allowedFileTypes))
    await go(page, '/')
    await page.getByTestId('allowed-types').filter({ hasText: 'PNG image (OCR)' }).waitFor()
    await page.locator('input[type=file]').setInputFiles({
      name: 'scan.pdf',
      mimeType: 'application/pdf',
      buffer: await scannedPdf([['Quokkas live on Rottnest Island.'], []]),
    })
    await page.locator('[data-testid=task][data-status=completed]').waitFor({ timeout: 60_000 })
    assert.is(await page.getByTestId('task-warning').textContent(), 'page 2 gave no text: no text was found on it')
    await shot(page, 'knowledge-scan-warning')
    await page.close()
  })

  test("the menu's edge runs the page's whole length, however tall the page", async (ctx) => {
    const { svc } = ctx
    const owner = await seedMember(svc.call, 'owner')
    for (let i = 0; i < 20; i++)
      ok(
        await svc.call('POST', '/api/v1/knowledge', {
          token: owner.token,
          body: { source: 'text', title: `Note ${i}`, content: `Note number ${i}.` },
        }),
        201,
      )
    const page = await signedIn(ctx, owner.token)
    await page.getByTestId('entry-row').nth(19).waitFor()
    const tall = await page.evaluate(() => document.documentElement.scrollHeight)
    assert.ok(tall > 1200, `the page is much taller than the window (${tall})`)
    const x = await page.evaluate(() => {
      const nav = document.querySelector('.mantine-AppShell-navbar') as HTMLElement
      return Math.round(nav.getBoundingClientRect().right) - 1
    })
    // The whole page as one picture (as a screenshot or a print shows it): the edge's column, read
    // back in the page, is grey from below the window's height down to the footer of the page.
    const picture = (await page.screenshot({ fullPage: true })).toString('base64')
    const blank = await page.evaluate(
      async ({ png, x, from, to }) => {
        const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0))
        const image = await createImageBitmap(new Blob([bytes], { type: 'image/png' }))
        const canvas = new OffscreenCanvas(image.width, image.height)
        const g = canvas.getContext('2d') as OffscreenCanvasRenderingContext2D
        g.drawImage(image, 0, 0)
        const column = g.getImageData(x, from, 1, to - from).data
        let white = 0
        for (let i = 0; i < column.length; i += 4)
          if (column[i] > 250 && column[i + 1] > 250 && column[i + 2] > 250) white++
        return white
      },
      { png: picture, x, from: 950, to: tall - 20 },
    )
    assert.is(blank, 0, `the edge at x=${x} is missing for ${blank} of ${tall - 970} pixels below the window`)
    await shot(page, 'knowledge-tall')
    await page.close()
  })
})
