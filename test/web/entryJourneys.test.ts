import * as assert from 'uvu/assert'
import { MAX_TEXT_CHARS } from '../../ingestion/parsers'
import { go, journeys, shot, signedIn } from '../helpers/browser'
import { upload, waitForTask } from '../helpers/ingestion'
import { ok } from '../helpers/service'
import { until } from '../helpers/until'

// An entry's screen: what it says when its processing failed, and what it offers only for content.
journeys('web console: the entry screen in Chromium', (test) => {
  const failed =
    'a failed entry shows why, with neither a freshness badge nor Verify; its reason replaces "No content yet."'
  test(failed, async (ctx) => {
    const { svc, owner } = ctx
    const bytes = Buffer.from('word '.repeat(MAX_TEXT_CHARS / 4))
    const created = ok(await upload(svc.url, owner.token, { source: 'file' }, { bytes, name: 'census.txt' }), 201)
    const task = await waitForTask(svc.call, owner.token, created.taskId)
    assert.is(task.status, 'failed')
    const page = await signedIn(ctx, owner.token)
    await go(page, `/entries/${created.id}`)
    const alert = page.getByTestId('entry-failure')
    await alert.waitFor()
    const said = (await alert.textContent()) ?? ''
    assert.match(said, 'Processing failed')
    assert.match(said, `the extracted text is ${bytes.length - 1} characters, over the limit of 500000`)
    assert.match(said, created.taskId)
    assert.is(await page.getByRole('alert').filter({ hasText: 'over the limit of 500000' }).count(), 1)
    assert.is(await page.getByRole('button', { name: 'Verify' }).count(), 0, 'no Verify')
    assert.is(await page.getByText('current', { exact: true }).count(), 0, 'no freshness badge')
    assert.is(await page.getByText('No content yet.').count(), 0)
    await page.getByText('Nothing was stored: the extracted text is').waitFor()
    // The entry can still be deleted.
    await page.getByRole('button', { name: 'Delete' }).waitFor()
    await shot(page, 'entry-failed')
    await page.close()
  })

  test('an entry with content shows its freshness and Verify, and is cited "1 time", then "2 times"', async (ctx) => {
    const { svc, owner } = ctx
    const entry = ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: owner.token,
        body: { title: 'Quokkas', content: 'Quokkas are small wallabies of Rottnest Island.', source: 'text' },
      }),
      201,
    )
    const search = () =>
      svc.call('POST', '/api/v1/knowledge/search', {
        token: owner.token,
        body: { query: 'quokkas rottnest', mode: 'text', minScore: 0 },
      })
    const cited = async () =>
      ok(await svc.call('GET', `/api/v1/knowledge/${entry.id}?settle=true`, { token: owner.token })).citedCount
    ok(await search())
    await until('one citation', async () => (await cited()) === 1)
    const page = await signedIn(ctx, owner.token)
    await go(page, `/entries/${entry.id}`)
    await page.getByText('1 time', { exact: true }).waitFor()
    await page.getByRole('button', { name: 'Verify' }).waitFor()
    await page.getByText('current', { exact: true }).waitFor()
    assert.is(await page.getByTestId('entry-failure').count(), 0)
    ok(await search())
    await until('two citations', async () => (await cited()) === 2)
    await page.reload()
    await page.getByText('2 times', { exact: true }).waitFor()
    await page.close()
  })
})
