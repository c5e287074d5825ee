import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { waitForTask } from '../helpers/ingestion'
import { until } from '../helpers/until'
import { type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'
import { type Site, html } from '../helpers/site'
import { createUrl, startUrlEntries } from '../helpers/urls'

const test = suite<{ service: TestService; site: Site; owner: Member }>(
  'API: URL entries, crawling and processing tasks (entries and their tasks)',
)

test.before(startUrlEntries)
test.after(async ({ service, site }) => (await service.stop(), await site.close()))

test('a URL entry answers pending with a task, which runs the steps and fills the entry', async ({
  service,
  site,
  owner,
}) => {
  site.pages.set('/llamas', {
    body: html(
      'Llamas',
      '<p>The llama is a domesticated South American camelid.</p><p>Llamas are social animals and live with others ' +
        'as a herd.</p>',
    ),
  })
  const created = ok(await createUrl(service, owner.token, `${site.url}/llamas`), 201)
  assert.is(created.source, 'webpage')
  assert.ok(['pending', 'processing'].includes(created.processingStatus))
  assert.ok(created.processingProgress < 100)
  assert.type(created.taskId, 'string')
  assert.is(created.syncConfig.enabled, false)
  const task = await waitForTask(service.call, owner.token, created.taskId)
  assert.is(task.status, 'completed', JSON.stringify(task))
  assert.is(task.progress, 100)
  assert.is(task.documentId, created.id)
  assert.ok(task.result.chunkCount >= 1)
  assert.ok(task.result.wordCount >= 15)
  assert.ok(task.result.characterCount > 50)
  assert.type(task.result.processingTimeMs, 'number')
  assert.ok(task.startedAt && task.completedAt && task.createdAt)
  const entry = ok(await service.call('GET', `/api/v1/knowledge/${created.id}`, { token: owner.token }))
  assert.is(entry.processingStatus, 'completed')
  assert.is(entry.processingProgress, 100)
  assert.match(entry.content, 'domesticated South American camelid')
  assert.ok(entry.tokenCount > 10)
  assert.match(entry.searchableText, 'llama')
  assert.ok(entry.syncConfig.lastSyncAt)
  const found = ok(
    await service.call('POST', '/api/v1/knowledge/search', {
      token: owner.token,
      body: { query: 'camelid herd', mode: 'text', minScore: 0 },
    }),
  )
  assert.ok(
    found.results.some((r: any) => r.id === created.id),
    JSON.stringify(found),
  )
  // Each step was an event of the task's stream, in order.
  const steps = ok(
    await service.call('GET', `/api/v1/audit/events?streamId=task-${created.taskId}&limit=50`, { token: owner.token }),
  )
  const types = steps.events.map((e: any) => e.data?.step ?? e.type).reverse()
  assert.equal(types, [
    'TaskQueued',
    'TaskStarted',
    'Downloading',
    'Parsing',
    'Chunking',
    'Generating embeddings',
    'Storing',
    'TaskCompleted',
  ])
})

test("a long page's embedding step moves its progress as its passages are embedded, group by group", async ({
  service,
  site,
  owner,
}) => {
  // About 400 passages of 40 words: seven groups of the test model's 64.
  const paragraphs = Array.from(
    { length: 400 },
    (_, i) =>
      `<p>Alpacas of herd ${i} graze the high plains of the Andes, where shepherds shear them each spring ` +
      `for fibre that is soft, warm and light; herd ${i} gives about three kilograms a year, sold in the markets ` +
      'of Cusco and Puno to weavers of shawls.</p>',
  )
  site.pages.set('/alpacas', { body: html('Alpacas', paragraphs.join('')) })
  const created = ok(await createUrl(service, owner.token, `${site.url}/alpacas`), 201)
  assert.is((await waitForTask(service.call, owner.token, created.taskId)).status, 'completed')
  const events = ok(
    await service.call('GET', `/api/v1/audit/events?streamId=task-${created.taskId}&limit=100`, {
      token: owner.token,
    }),
  ).events.reverse()
  const embedding = events
    .filter((e: any) => e.data?.step === 'Generating embeddings')
    .map((e: any) => e.data.progress as number)
  assert.ok(embedding.length >= 5, `progress told as groups were embedded: ${embedding}`)
  assert.is(embedding[0], 70)
  embedding.slice(1).forEach((p: number, i: number) => assert.ok(p > embedding[i] && p < 90, `${embedding}`))
  assert.equal(
    events
      .map((e: any) => e.data?.step)
      .filter(Boolean)
      .slice(-1),
    ['Storing'],
  )
})

test("while its task runs, an entry's content cannot be changed (the task would overwrite it); its title can", async ({
  service,
  site,
}) => {
  const m = await seedMember(service.call)
  site.pages.set('/slow-vicuna', { body: html('Vicunas', '<p>Vicunas live high in the Andes.</p>'), delayMs: 1500 })
  const created = ok(await createUrl(service, m.token, `${site.url}/slow-vicuna`), 201)
  const path = `/api/v1/knowledge/${created.id}`
  const refused = expectError(
    await service.call('PATCH', path, { token: m.token, body: { content: 'My own notes on vicunas.' } }),
    409,
    'CONFLICT',
  )
  assert.match(refused.message, created.taskId)
  assert.is(
    ok(await service.call('PATCH', path, { token: m.token, body: { title: 'Vicunas of the Andes' } })).title,
    'Vicunas of the Andes',
  )
  assert.is((await waitForTask(service.call, m.token, created.taskId)).status, 'completed')
  const entry = ok(await service.call('GET', path, { token: m.token }))
  assert.match(entry.content, 'high in the Andes')
  assert.is(entry.title, 'Vicunas of the Andes')
  // Once the task has finished, the content is the client's to change.
  assert.is(
    ok(await service.call('PATCH', path, { token: m.token, body: { content: 'My own notes on vicunas.' } })).content,
    'My own notes on vicunas.',
  )
})

test('deleting an entry while its task runs fails the task at once with the reason', async ({ service, site }) => {
  const m = await seedMember(service.call)
  site.pages.set('/slow-kiwi', { body: html('Kiwis', '<p>Kiwis are nocturnal.</p>'), delayMs: 3000 })
  const created = ok(await createUrl(service, m.token, `${site.url}/slow-kiwi`), 201)
  ok(await service.call('DELETE', `/api/v1/knowledge/${created.id}`, { token: m.token }))
  // The worker is still waiting for the page: the delete itself failed the task.
  const t = ok(await service.call('GET', `/api/v1/knowledge/tasks/${created.taskId}`, { token: m.token }))
  assert.equal([t.status, t.error], ['failed', 'the entry was deleted before it was processed'])
  await new Promise((r) => setTimeout(r, 3500))
  assert.is(
    ok(await service.call('GET', `/api/v1/knowledge/tasks/${created.taskId}`, { token: m.token })).status,
    'failed',
    'and stays failed once the worker has the page',
  )
})

test('tasks: list with status filter and limit, one by id, other workspaces see none of them', async ({
  service,
  site,
  owner,
}) => {
  site.pages.set('/missing-soon', { status: 404, body: 'gone' })
  const failed = ok(await createUrl(service, owner.token, `${site.url}/missing-soon`), 201)
  await waitForTask(service.call, owner.token, failed.taskId)
  const all = ok(await service.call('GET', '/api/v1/knowledge/tasks', { token: owner.token }))
  assert.ok(all.total >= 2)
  assert.is(all.tasks[0].id, failed.taskId, 'newest first')
  const onlyFailed = ok(
    await service.call('GET', '/api/v1/knowledge/tasks?status=failed&limit=1', { token: owner.token }),
  )
  assert.is(onlyFailed.tasks.length, 1)
  assert.ok(onlyFailed.tasks.every((t: any) => t.status === 'failed'))
  expectError(
    await service.call('GET', '/api/v1/knowledge/tasks?status=done', { token: owner.token }),
    400,
    'VALIDATION_ERROR',
  )
  expectError(
    await service.call('GET', '/api/v1/knowledge/tasks?limit=0', { token: owner.token }),
    400,
    'VALIDATION_ERROR',
  )
  expectError(
    await service.call('GET', '/api/v1/knowledge/tasks?page=0', { token: owner.token }),
    400,
    'VALIDATION_ERROR',
  )
  // limit is items per page: page 2 holds the next ones.
  const first = ok(await service.call('GET', '/api/v1/knowledge/tasks?limit=1', { token: owner.token }))
  const second = ok(await service.call('GET', '/api/v1/knowledge/tasks?limit=1&page=2', { token: owner.token }))
  assert.equal(
    [first.tasks[0].id, second.tasks[0].id],
    all.tasks.slice(0, 2).map((x: any) => x.id),
  )
  assert.is(second.total, all.total)
  const stranger = await seedMember(service.call)
  expectError(
    await service.call('GET', `/api/v1/knowledge/tasks/${failed.taskId}`, { token: stranger.token }),
    404,
    'NOT_FOUND',
  )
  assert.is(ok(await service.call('GET', '/api/v1/knowledge/tasks', { token: stranger.token })).total, 0)
})

test('at most 10 tasks of a workspace run at once; the rest wait as pending', async ({ site }) => {
  // A service of its own whose fetches wait as long as the site holds its answers.
  const service = await startTestService({ KB_ALLOW_PRIVATE_URLS: 'true', FETCH_TIMEOUT_MS: '60000' })
  try {
    const member = await seedMember(service.call)
    let release = () => {}
    const held = new Promise<void>((resolve) => (release = resolve))
    for (let i = 0; i < 13; i++)
      site.pages.set(`/busy?n=${i}`, { body: html('Busy', `<p>Page ${i} takes its time.</p>`), held })
    site.load.most = 0
    const created = []
    for (let i = 0; i < 13; i++)
      created.push(ok(await createUrl(service, member.token, `${site.url}/busy?n=${i}`), 201))
    const statuses = async () =>
      ok(await service.call('GET', '/api/v1/knowledge/tasks?limit=100', { token: member.token })).tasks.map(
        (t: any) => t.status,
      )
    await until('10 tasks fetching', () => site.load.now === 10)
    // Nothing more starts while the ten wait for their pages.
    await new Promise((r) => setTimeout(r, 300))
    const listed = await statuses()
    assert.is(site.load.now, 10)
    assert.equal(
      [listed.filter((s: string) => s === 'processing').length, listed.filter((s: string) => s === 'pending').length],
      [10, 3],
      JSON.stringify(listed),
    )
    release()
    for (const c of created) {
      const task = await waitForTask(service.call, member.token, c.taskId)
      assert.is(task.status, 'completed', JSON.stringify(task))
    }
    assert.is(site.load.most, 10)
  } finally {
    await service.stop()
  }
})

test.run()
