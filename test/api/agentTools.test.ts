import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { tool } from '../helpers/agents'
import { type Ctx, call, closeAll, connect, described, startWithRelayEntries } from '../helpers/mcpClient'
import { ok } from '../helpers/service'

// What an agent meets through MCP, with the official SDK client: schemas in and out with a
// description on every property, annotations, answers that match their outputSchema and fit a
// context window, errors with a next step, an undo it can run, and skills that name real tools.

const test = suite<Ctx>('MCP: tools an agent uses without reading docs')
test.before(startWithRelayEntries)
test.after(closeAll)

test('every tool: described inputs and outputs, annotations that fit it', async (ctx) => {
  const client = await connect(ctx, '/mcp', ctx.key)
  await described(client)
  const byName = new Map((await client.listTools()).tools.map((t) => [t.name, t.annotations]))
  const reads = [
    'page_search',
    'page_read',
    'page_history',
    'kb_search',
    'kb_compare',
    'kb_get_entry',
    'kb_proposal_status',
  ]
  for (const name of reads) assert.is(byName.get(name)?.readOnlyHint, true, `${name} is read-only`)
  assert.equal(
    [byName.get('page_write')?.readOnlyHint, byName.get('page_delete')?.destructiveHint],
    [false, true],
    'page_write changes data; page_delete destroys it',
  )
})

test("every answer matches its outputSchema; an agent undoes its writes with its receipt's call", async (ctx) => {
  const client = await connect(ctx, '/mcp', ctx.key)
  const outputs = await described(client)
  const deploy = 'Roll the release out one zone at a time. '.repeat(400)
  const long = `# Runbook\nIntro.\n\n## Deploy\n${deploy}\n\n## Rollback\nRevert.`
  const created = await call(client, outputs, 'page_write', { title: 'Ops runbook', mode: 'create', content: long })
  const appended = await call(client, outputs, 'page_write', { pageId: created.pageId, content: 'Call the on-call.' })
  const section = await call(client, outputs, 'page_read', { pageId: created.pageId, section: 'rollback' })
  assert.is(section.content.trim(), '## Rollback\nRevert.\n\nCall the on-call.')
  assert.equal(section.sections, ['Runbook', 'Deploy', 'Rollback'])
  const first = await call(client, outputs, 'page_read', { title: 'ops RUNBOOK', maxChars: 500 })
  assert.equal([first.content.length, first.range.start, first.next], [500, 0, 500])
  const more = await call(client, outputs, 'page_read', { pageId: created.pageId, offset: first.next, maxChars: 500 })
  assert.is(more.range.start, 500)
  await call(client, outputs, 'page_history', { pageId: created.pageId })
  const found = await call(client, outputs, 'page_search', { query: 'rollback zone release', mode: 'text' })
  assert.is(found.results[0].citation, 'Ops runbook · v2')
  // The undo of the append, then of the create, each run as its receipt gave it.
  const reverted = await call(client, outputs, appended.undo.tool, appended.undo.arguments)
  assert.is(reverted.version, 3)
  const back = await call(client, outputs, 'page_read', { pageId: created.pageId, maxChars: 100_000 })
  assert.is(back.content, long)
  // A created page is taken back whole by its creator (the revert above was also its own).
  const scratch = await call(client, outputs, 'page_write', { title: 'Scratch', mode: 'create', content: 'x' })
  const gone = await call(client, outputs, scratch.undo.tool, scratch.undo.arguments)
  assert.is(gone.deleted, true)
  // Entries: the search's id reads the entry, a range of it.
  const hits = await call(client, outputs, 'kb_search', { query: 'relay station readings', mode: 'text' })
  const entry = await call(client, outputs, 'kb_get_entry', { id: hits.results[0].id, maxChars: 300 })
  assert.ok(entry.content.length <= 300 && entry.next === entry.range.end, JSON.stringify(entry.range))
  // A write held for review, followed by its status.
  const held = ok(
    await ctx.svc.call('POST', '/api/v1/collections', {
      token: ctx.m.token,
      body: { name: 'Reviewed', writePolicy: 'hold_for_review' },
    }),
    201,
  )
  const proposal = await call(client, outputs, 'page_write', {
    title: 'Held page',
    content: 'y',
    collectionId: held.id,
  })
  assert.is(proposal.held, true)
  const status = await call(client, outputs, 'kb_proposal_status', { proposalId: proposal.proposalId })
  assert.is(status.status, 'pending')
  // In a held collection, an approved change is taken back by proposing the old version: a person decides.
  const page = ok(
    await ctx.svc.call('POST', '/api/v1/pages', {
      token: ctx.m.token,
      body: { title: 'Reviewed notes', content: 'v1', collectionId: held.id },
    }),
    201,
  )
  const change = await call(client, outputs, 'page_write', { pageId: page.id, content: 'agent line' })
  const approve = async (id: string) =>
    ok(await ctx.svc.call('POST', `/api/v1/proposals/${id}/approve`, { token: ctx.m.token, body: {} }))
  await approve(change.proposalId)
  const approved = await call(client, outputs, 'kb_proposal_status', { proposalId: change.proposalId })
  assert.equal([approved.status, approved.version], ['approved', 2])
  const proposedUndo = await call(client, outputs, approved.undo.tool, approved.undo.arguments)
  assert.equal([proposedUndo.held, proposedUndo.status], [true, 'pending'])
  assert.is(ok(await ctx.svc.call('GET', `/api/v1/pages/${page.id}`, { token: ctx.m.token })).version, 2)
  await approve(proposedUndo.proposalId)
  const restored = ok(await ctx.svc.call('GET', `/api/v1/pages/${page.id}`, { token: ctx.m.token }))
  assert.equal([restored.version, restored.content], [3, 'v1'])
  // An agent's own page, once a person moved it into a held collection, is a person's to delete.
  const own = await call(client, outputs, 'page_write', { title: 'Moved later', mode: 'create', content: 'z' })
  ok(
    await ctx.svc.call('PATCH', `/api/v1/pages/${own.pageId}`, {
      token: ctx.m.token,
      body: { collectionId: held.id },
    }),
  )
  const refused = (await client.callTool({ name: own.undo.tool, arguments: own.undo.arguments })) as any
  assert.equal([refused.isError, JSON.parse(refused.content[0].text).code], [true, 'FORBIDDEN'])
})

test('errors say what to do next and are marked isError', async (ctx) => {
  const client = await connect(ctx, '/mcp', ctx.key)
  const page = ok(await tool(ctx.svc.call, ctx.key, 'page_write', { title: 'Conflicted', content: 'a' }))
  const stale = (await client.callTool({
    name: 'page_write',
    arguments: { pageId: page.pageId, mode: 'replace', content: 'b', expectedVersion: 7 },
  })) as any
  assert.is(stale.isError, true)
  const e = JSON.parse(stale.content[0].text)
  assert.is(e.code, 'VERSION_CONFLICT')
  assert.match(e.nextStep, /page_read \(it is at version 1\)/)
  const missing = JSON.parse(
    ((await client.callTool({ name: 'kb_get_entry', arguments: { id: 'nope' } })) as any).content[0].text,
  )
  assert.equal([missing.code, /kb_search/.test(missing.nextStep)], ['NOT_FOUND', true])
  const section = JSON.parse(
    ((await client.callTool({ name: 'page_read', arguments: { pageId: page.pageId, section: 'Nowhere' } })) as any)
      .content[0].text,
  )
  assert.is(section.code, 'VALIDATION_ERROR')
  assert.match(section.details[0], /no heading "Nowhere"/)
})

test("every skill's prompt names only tools that exist, and says how to cite", async (ctx) => {
  const client = await connect(ctx, '/mcp', ctx.key)
  const names = new Set((await client.listTools()).tools.map((t) => t.name))
  const { prompts } = await client.listPrompts()
  assert.is(prompts.length, 5)
  for (const p of prompts) {
    for (const a of p.arguments ?? []) assert.ok(a.description, `${p.name}: ${a.name} is described`)
    const args = Object.fromEntries((p.arguments ?? []).map((a) => [a.name, 'x']))
    const text = ((await client.getPrompt({ name: p.name, arguments: args })).messages[0].content as any).text
    const named = [...new Set(text.match(/\b(?:page|kb)_[a-z_]+\b/g) ?? [])] as string[]
    assert.ok(named.length >= 1, `${p.name} names its tools`)
    for (const n of named) assert.ok(names.has(n), `${p.name} names ${n}, which is not a tool`)
    if (p.name !== 'decision-log') assert.match(text, /page_search/, `${p.name} searches first`)
    // Every skill, the writing ones included, says how to cite the knowledge it used.
    assert.match(text, '"<title> · v<version>"', `${p.name} says how to cite`)
  }
})

test.run()
