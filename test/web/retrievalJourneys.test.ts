import * as assert from 'uvu/assert'
import { go, journeys, shot, signedIn } from '../helpers/browser'
import { ok, seedMember } from '../helpers/service'

// Retrieval testing as agents get it: the fields start from the workspace's search defaults and follow
// Settings, and an answer's receipt is checked on screen, result by result.
journeys('web console: retrieval defaults and receipts in Chromium', (test) => {
  test("the retrieval screen starts from the workspace's search defaults, and follows Settings", async (ctx) => {
    const { svc } = ctx
    const owner = await seedMember(svc.call, 'owner')
    const config = ok(await svc.call('GET', '/api/v1/knowledge/config', { token: owner.token })).config
    const page = await signedIn(ctx, owner.token)
    await go(page, '/retrieval')
    const fields = async () => ({
      limit: await page.getByLabel('Limit').inputValue(),
      minScore: await page.getByLabel('Min score').inputValue(),
      mode: await page.locator('input[type=radio]:checked').inputValue(),
    })
    await page.getByLabel('Limit').waitFor()
    assert.equal(await fields(), {
      limit: String(config.search.defaultLimit),
      minScore: String(config.search.minScore),
      mode: config.search.defaultMode,
    })
    await go(page, '/settings')
    await page.getByLabel('Default limit').fill('7')
    await page.getByLabel('Minimum score').fill('0.3')
    await page.getByRole('combobox', { name: 'Default mode' }).click()
    await page.getByRole('option', { name: 'text', exact: true }).click()
    await page.getByRole('button', { name: 'Save settings' }).click()
    await page.getByText('Saved').first().waitFor()
    // The save records what the form changed, no more: the rest keeps following the defaults.
    const [saved] = ok(
      await svc.call('GET', '/api/v1/audit/events?type=KbConfigChanged&limit=1', { token: owner.token }),
    ).events
    assert.equal(saved.data.changes, { search: { defaultLimit: 7, minScore: 0.3, defaultMode: 'text' } })
    await go(page, '/retrieval')
    await page.getByTestId('defaults').filter({ hasText: 'limit 7' }).waitFor()
    assert.equal(await fields(), { limit: '7', minScore: '0.3', mode: 'text' })
    await page.close()
  })

  test("check an answer's receipt: each result current, then changed (with the diff) or deleted", async (ctx) => {
    const { svc } = ctx
    const owner = await seedMember(svc.call, 'owner')
    const add = async (title: string, content: string) =>
      ok(
        await svc.call('POST', '/api/v1/knowledge', { token: owner.token, body: { source: 'text', title, content } }),
        201,
      ).id
    const platypus = await add('Platypus eggs', 'The platypus lays eggs in a burrow by the river.')
    const echidna = await add('Echidna eggs', 'The echidna lays eggs too, and carries one in a pouch.')
    const page = await signedIn(ctx, owner.token)
    await go(page, '/retrieval')
    await page.getByLabel('Query').fill('which animal lays eggs')
    await page.getByLabel('Min score').fill('0')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.getByTestId('result').nth(1).waitFor()
    // The token is long: shown short, whole in its title and in the clipboard's copy.
    const token = page.getByTestId('receipt').locator('[title]').first()
    assert.ok(((await token.getAttribute('title')) ?? '').length > 40)
    assert.ok(((await token.textContent()) ?? '').length <= 24)
    await page.getByRole('button', { name: 'Check this answer' }).click()
    await page.getByTestId('checked').nth(1).waitFor()
    assert.equal(
      await page.getByTestId('checked').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-status'))),
      ['current', 'current'],
    )
    // One changed, one deleted, then checked again.
    ok(
      await svc.call('PATCH', `/api/v1/knowledge/${platypus}`, {
        token: owner.token,
        body: { content: 'The platypus lays two eggs in a burrow by the river, and keeps them warm.' },
      }),
    )
    ok(await svc.call('DELETE', `/api/v1/knowledge/${echidna}`, { token: owner.token }))
    await page.getByRole('button', { name: 'Check again' }).click()
    const changed = page.locator('[data-testid=checked][data-status=changed]')
    await changed.waitFor()
    await page.locator('[data-testid=checked][data-status=deleted]').waitFor()
    assert.match((await changed.textContent()) ?? '', /Platypus eggs/)
    assert.match((await changed.getByTestId('diff-line-by-line').textContent()) ?? '', /keeps them warm/)
    assert.match(
      (await page.locator('[data-testid=checked][data-status=deleted]').textContent()) ?? '',
      /Echidna eggs.*deleted/,
    )
    await shot(page, 'receipt-check')
    await page.close()
  })

  test('a result shows the section its chunk stands in: the headings above it', async (ctx) => {
    const { svc } = ctx
    const owner = await seedMember(svc.call, 'owner')
    const content = [
      '# Tapir keeping',
      '## Feeding',
      'Tapirs eat fruit and leaves, and they browse low shrubs along the river. '.repeat(12),
      '### Winter',
      'In winter they are fed hay and apples from the store.',
    ].join('\n\n')
    const body = { source: 'text', title: 'Tapir keeping', content, chunkingOptions: { chunkSizeTokens: 100 } }
    ok(await svc.call('POST', '/api/v1/knowledge', { token: owner.token, body }), 201)
    const page = await signedIn(ctx, owner.token)
    await go(page, '/retrieval')
    await page.getByLabel('Query').fill('what do tapirs eat in winter')
    await page.getByLabel('Min score').fill('0')
    await page.getByRole('button', { name: 'Search' }).click()
    const path = page.getByTestId('result').first().getByTestId('heading-path')
    await path.waitFor()
    assert.match((await path.textContent()) ?? '', /^Tapir keeping › Feeding/)
    await shot(page, 'retrieval-heading-path')
    await page.close()
  })

  test('filters on metadata keys and times narrow the results; a mistake is explained', async (ctx) => {
    const { svc } = ctx
    const owner = await seedMember(svc.call, 'owner')
    const notes: Array<[string, object]> = [
      ['Kiwi draft', { status: 'draft', year: 2023 }],
      ['Kiwi final', { status: 'final', year: 2024 }],
      ['Kiwi final again', { status: 'final', year: 2025 }],
    ]
    for (const [title, metadata] of notes) {
      const body = { source: 'text', title, content: `The kiwi is a flightless bird: ${title}.`, metadata }
      ok(await svc.call('POST', '/api/v1/knowledge', { token: owner.token, body }), 201)
    }
    const page = await signedIn(ctx, owner.token)
    await go(page, '/retrieval')
    await page.getByLabel('Query').fill('flightless kiwi bird')
    await page.getByLabel('Min score').fill('0')
    const titles = async (count: number) => {
      await page.getByRole('button', { name: 'Search' }).click()
      await page
        .getByTestId('answered')
        .filter({ hasText: `${count} result` })
        .waitFor()
      return (await page.getByTestId('result').locator('a').allTextContents()).sort()
    }
    assert.equal(await titles(3), ['Kiwi draft', 'Kiwi final', 'Kiwi final again'])
    await page.getByRole('button', { name: 'Add filter' }).click()
    await page.getByLabel('Filter 1 key').fill('status')
    await page.getByLabel('Filter 1 value').fill('final')
    await page.getByRole('button', { name: 'Add filter' }).click()
    await page.getByLabel('Filter 2 key').fill('year')
    await page.getByLabel('Filter 2 operator').selectOption('lt')
    await page.getByLabel('Filter 2 value').fill('2025')
    assert.equal(await titles(1), ['Kiwi final'])
    await page.getByRole('button', { name: 'Add filter' }).click()
    await page.getByLabel('Filter 3 key').fill('createdAt')
    await page.getByLabel('Filter 3 value').fill('2000-01-01')
    assert.equal(await titles(1), ['Kiwi final'])
    await shot(page, 'retrieval-filters')
    // A comparison with true is no comparison: the service says which key and operator.
    await page.getByLabel('Filter 2 value').fill('true')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.getByText(/filter\.metadata\.year\.lt/).waitFor()
    await page.getByRole('button', { name: 'Remove filter 2' }).click()
    await page.getByRole('button', { name: 'Remove filter 2' }).click()
    assert.equal(await titles(2), ['Kiwi final', 'Kiwi final again'])
    await page.close()
  })

  test('compare with an earlier moment: what entered, left or moved, and the events behind it', async (ctx) => {
    const { svc } = ctx
    const owner = await seedMember(svc.call, 'owner')
    const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: owner.token, body })
    const add = async (title: string, content: string) =>
      ok(await call('POST', '/api/v1/knowledge', { source: 'text', title, content }), 201).id
    await add('Tuatara', 'The tuatara is a reptile of New Zealand with a third eye.')
    const gecko = await add('Gecko', 'The gecko is a reptile of New Zealand that climbs glass.')
    const asked = { query: 'reptile of New Zealand', mode: 'text', minScore: 0 }
    const from = ok(await call('POST', '/api/v1/knowledge/search', asked)).receipt.position
    ok(await call('PATCH', `/api/v1/knowledge/${gecko}`, { content: 'The gecko climbs glass with its feet.' }))
    await add('Skink', 'The skink is a reptile of New Zealand, and a reptile of many islands: a reptile.')
    const page = await signedIn(ctx, owner.token)
    await go(page, '/retrieval')
    await page.getByLabel('Query').fill(asked.query)
    await page.getByText('text', { exact: true }).click()
    await page.getByLabel('Min score').fill('0')
    await page.getByRole('button', { name: 'Search' }).click()
    await page.getByTestId('result').first().waitFor()
    await page.getByLabel('Compare with the answer as of').fill(`pos:${from}`)
    await page.getByRole('button', { name: 'Compare' }).click()
    await page.getByTestId('comparison').waitFor()
    const moved = async (movement: string) =>
      (await page.locator(`[data-testid=moved][data-movement=${movement}]`).allTextContents()).join(' | ')
    assert.match(await moved('entered'), /Skink.*created/)
    assert.match(await moved('left'), /Gecko.*edited/)
    await shot(page, 'retrieval-compare')
    await page.close()
  })
})
