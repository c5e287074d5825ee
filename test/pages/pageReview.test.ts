import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { tool, turnVerificationOn } from '../helpers/agents'
import { type ReviewContext, startWithHeldCollection } from '../helpers/pages'
import { expectError, ok, seedMember } from '../helpers/service'

const test = suite<ReviewContext>('API: pages: verification, held writes and proposals')
test.before(startWithHeldCollection)
test.after(async ({ svc }) => svc.stop())

test(
  'verification: unverified, verified (pin = latest), changed since verified with the banner, re-verify; ' +
    'diff from the pin in one call',
  async ({ svc, m, key }) => {
    const p = ok(await tool(svc.call, key, 'page_write', { title: 'On-call handbook', content: 'Page the primary.\n' }))
    await turnVerificationOn(svc.call, m.token)
    const before = ok(await svc.call('GET', `/api/v1/pages/${p.pageId}`, { token: m.token }))
    assert.equal(before.verification, { state: 'unverified' })
    const v = ok(await svc.call('POST', `/api/v1/pages/${p.pageId}/verify`, { token: m.token }))
    assert.equal(
      [v.verification.state, v.verification.verifiedVersion, v.verification.verifiedBy],
      ['verified', 1, { userId: m.userId, name: 'Test User' }],
    )
    ok(await tool(svc.call, key, 'page_write', { pageId: p.pageId, content: 'Escalate after 15 minutes.' }))
    ok(await tool(svc.call, key, 'page_search', { query: 'escalate primary', mode: 'text', minScore: 0 }))
    // The search's record follows its answer: a read asked to settle counts it.
    const drifted = ok(await svc.call('GET', `/api/v1/pages/${p.pageId}?settle=true`, { token: m.token })).verification
    assert.is(drifted.state, 'changed_since_verified')
    assert.equal(drifted.sinceVerified, {
      versions: 1,
      writers: [{ kind: 'agent', client: 'claude-code' }],
      change: { added: 2, removed: 0 },
      citations: 1,
    })
    const listed = ok(await svc.call('GET', '/api/v1/pages?state=changed_since_verified', { token: m.token }))
    assert.equal(
      listed.items.map((x: any) => x.id),
      [p.pageId],
    )
    const d = ok(await svc.call('GET', `/api/v1/pages/${p.pageId}/diff`, { token: m.token }))
    assert.equal([d.from, d.to], [1, 2])
    assert.match(d.diff, /\+Escalate after 15 minutes\./)
    const again = ok(await svc.call('POST', `/api/v1/pages/${p.pageId}/verify`, { token: m.token })).verification
    assert.equal([again.state, again.verifiedVersion], ['verified', 2])
    // Writes that change nothing write no version, so the page stays verified.
    const content = ok(await svc.call('GET', `/api/v1/pages/${p.pageId}`, { token: m.token })).content
    ok(await svc.call('PATCH', `/api/v1/pages/${p.pageId}`, { token: m.token, body: { content, expectedVersion: 2 } }))
    ok(await svc.call('POST', `/api/v1/pages/${p.pageId}/revert`, { token: m.token, body: { version: 2 } }))
    const same = ok(await tool(svc.call, key, 'page_write', { pageId: p.pageId, mode: 'replace', content }))
    assert.is(same.version, 2)
    assert.match(same.receipt, 'already has this content at version 2; nothing was written')
    const after = ok(await svc.call('GET', `/api/v1/pages/${p.pageId}`, { token: m.token }))
    assert.equal([after.version, after.verification.state], [2, 'verified'])
    assert.is(ok(await svc.call('GET', `/api/v1/pages/${p.pageId}/versions`, { token: m.token })).versions.length, 2)
  },
)

test(
  'an agent write into a held collection is a proposal; the page is untouched; approve publishes it as the ' +
    'agent with the approver',
  async ({ svc, m, key, held }) => {
    const page = ok(
      await svc.call('POST', '/api/v1/pages', {
        token: m.token,
        body: { title: 'Expense policy', content: 'Receipts within 30 days.', collectionId: held },
      }),
      201,
    )
    assert.is(page.version, 1, 'a person’s write is never held')
    const r = ok(
      await tool(svc.call, key, 'page_write', {
        title: 'Expense policy',
        content: 'Taxis need a receipt too.',
        skill: 'meeting-notes',
      }),
    )
    assert.equal([r.held, r.status, r.pageId], [true, 'pending', page.id])
    assert.match(r.receipt, /held for review/)
    assert.is(ok(await svc.call('GET', `/api/v1/pages/${page.id}`, { token: m.token })).version, 1)
    assert.is(ok(await tool(svc.call, key, 'kb_proposal_status', { proposalId: r.proposalId })).status, 'pending')
    const listed = ok(await svc.call('GET', '/api/v1/proposals?status=pending', { token: m.token })).items
    const mine = listed.find((x: any) => x.id === r.proposalId)
    assert.equal([mine.pageTitle, mine.change], ['Expense policy', { added: 2, removed: 0 }])
    assert.match(mine.diff, /\+Taxis need a receipt too\./)
    const approved = ok(
      await svc.call('POST', `/api/v1/proposals/${r.proposalId}/approve`, { token: m.token, body: {} }),
    )
    assert.equal([approved.status, approved.version], ['approved', 2])
    const v = ok(await svc.call('GET', `/api/v1/pages/${page.id}/versions`, { token: m.token })).versions[0]
    assert.equal(
      [v.author, v.approvedBy, v.proposalId],
      [
        { kind: 'agent', client: 'claude-code', skill: 'meeting-notes' },
        { userId: m.userId, name: 'Test User' },
        r.proposalId,
      ],
    )
    const status = ok(await tool(svc.call, key, 'kb_proposal_status', { proposalId: r.proposalId }))
    assert.equal([status.status, status.version], ['approved', 2])
    expectError(
      await svc.call('POST', `/api/v1/proposals/${r.proposalId}/approve`, { token: m.token, body: {} }),
      409,
      'CONFLICT',
    )
    expectError(
      await svc.call('POST', `/api/v1/proposals/${r.proposalId}/reject`, { token: m.token, body: {} }),
      409,
      'CONFLICT',
    )
    assert.is(
      ok(await svc.call('GET', `/api/v1/pages/${page.id}`, { token: m.token })).version,
      2,
      'approving twice made one version',
    )
  },
)

test(
  'reject archives the proposal and leaves the page; a new page proposed into a held collection appears ' +
    'only on approval',
  async ({ svc, m, key, held }) => {
    const made = ok(
      await tool(svc.call, key, 'page_write', {
        title: 'Travel policy',
        content: 'Economy class.',
        collectionId: held,
      }),
    )
    assert.is(made.held, true)
    expectError(await svc.call('GET', `/api/v1/pages/${made.pageId}`, { token: m.token }), 404, 'NOT_FOUND')
    // A new page's diff only adds: no line of the empty page before it is removed.
    const proposed = ok(await svc.call('GET', `/api/v1/proposals/${made.proposalId}`, { token: m.token }))
    assert.match(proposed.diff, /^@@ -0,0 \+1(,1)? @@\n\+Economy class\.$/m)
    assert.not.match(proposed.diff, /^-$/m)
    const second = ok(
      await tool(svc.call, key, 'page_write', {
        title: 'Travel policy',
        content: 'Business class.',
        collectionId: held,
      }),
    )
    const rejected = ok(
      await svc.call('POST', `/api/v1/proposals/${second.proposalId}/reject`, {
        token: m.token,
        body: { reason: 'no' },
      }),
    )
    assert.equal([rejected.status, rejected.reason], ['rejected', 'no'])
    assert.is(ok(await tool(svc.call, key, 'kb_proposal_status', { proposalId: second.proposalId })).status, 'rejected')
    ok(await svc.call('POST', `/api/v1/proposals/${made.proposalId}/approve`, { token: m.token, body: {} }))
    // Newest decision first: the proposal held first and decided last leads the decided ones.
    const decided = ok(await svc.call('GET', '/api/v1/proposals', { token: m.token })).items
    const order = decided.filter((x: any) => [made.proposalId, second.proposalId].includes(x.id)).map((x: any) => x.id)
    assert.equal(order, [made.proposalId, second.proposalId])
    const page = ok(await svc.call('GET', `/api/v1/pages/${made.pageId}`, { token: m.token }))
    assert.equal(
      [page.title, page.content, page.collectionId, page.author.client],
      ['Travel policy', 'Economy class.', held, 'claude-code'],
    )
    // A held write that changes nothing is no proposal: there is nothing to review.
    const pending = ok(await svc.call('GET', '/api/v1/proposals?status=pending', { token: m.token })).total
    const same = ok(
      await tool(svc.call, key, 'page_write', { pageId: made.pageId, mode: 'replace', content: 'Economy class.' }),
    )
    assert.equal([same.held, same.version], [false, 1])
    assert.match(same.receipt, 'nothing was written')
    assert.is(ok(await svc.call('GET', '/api/v1/proposals?status=pending', { token: m.token })).total, pending)
  },
)

test(
  'approving a proposal whose page moved on is VERSION_CONFLICT unless confirmed; a proposal for a page ' +
    'deleted meanwhile is refused',
  async ({ svc, m, key, held }) => {
    const page = ok(
      await svc.call('POST', '/api/v1/pages', {
        token: m.token,
        body: { title: 'Security policy', content: 'MFA everywhere.', collectionId: held },
      }),
      201,
    )
    const p = ok(
      await tool(svc.call, key, 'page_write', { pageId: page.id, mode: 'replace', content: 'MFA optional.' }),
    )
    ok(
      await svc.call('PATCH', `/api/v1/pages/${page.id}`, {
        token: m.token,
        body: { content: 'MFA everywhere, hardware keys for admins.' },
      }),
    )
    const e = expectError(
      await svc.call('POST', `/api/v1/proposals/${p.proposalId}/approve`, { token: m.token, body: {} }),
      409,
      'VERSION_CONFLICT',
    )
    assert.equal(e.details, ['currentVersion: 2', 'baseVersion: 1'])
    assert.is(ok(await svc.call('GET', `/api/v1/pages/${page.id}`, { token: m.token })).version, 2)
    const forced = ok(
      await svc.call('POST', `/api/v1/proposals/${p.proposalId}/approve`, { token: m.token, body: { confirm: true } }),
    )
    assert.is(forced.version, 3)
    const versions = ok(await svc.call('GET', `/api/v1/pages/${page.id}/versions`, { token: m.token })).versions
    assert.equal(
      versions.map((v: any) => v.version),
      [3, 2, 1],
      'the newer version stays in the history',
    )
    const q = ok(await tool(svc.call, key, 'page_write', { pageId: page.id, content: 'Appendix.' }))
    ok(await svc.call('DELETE', `/api/v1/pages/${page.id}`, { token: m.token }))
    expectError(
      await svc.call('POST', `/api/v1/proposals/${q.proposalId}/approve`, { token: m.token, body: {} }),
      409,
      'CONFLICT',
    )
    ok(await svc.call('POST', `/api/v1/proposals/${q.proposalId}/reject`, { token: m.token, body: {} }))
  },
)

test(
  'collections: names unique per workspace; patch the policy; deleting one leaves its pages outside any ' +
    'collection',
  async ({ svc, m, key }) => {
    const c = ok(await svc.call('POST', '/api/v1/collections', { token: m.token, body: { name: 'Scratch' } }), 201)
    assert.is(c.writePolicy, 'open')
    expectError(
      await svc.call('POST', '/api/v1/collections', { token: m.token, body: { name: 'scratch' } }),
      409,
      'CONFLICT',
    )
    expectError(
      await svc.call('POST', '/api/v1/collections', { token: m.token, body: { name: 'X', writePolicy: 'closed' } }),
      400,
      'VALIDATION_ERROR',
    )
    const p = ok(await tool(svc.call, key, 'page_write', { title: 'Scratch page', content: 'x', collectionId: c.id }))
    assert.is(p.held, false)
    ok(
      await svc.call('PATCH', `/api/v1/collections/${c.id}`, {
        token: m.token,
        body: { writePolicy: 'hold_for_review' },
      }),
    )
    // A PATCH that changes nothing records nothing (earlier reads' batched citations appended first).
    await svc.deps.citations.settle()
    const head = await svc.deps.store.headPosition()
    ok(
      await svc.call('PATCH', `/api/v1/collections/${c.id}`, {
        token: m.token,
        body: { name: 'Scratch', description: '', writePolicy: 'hold_for_review' },
      }),
    )
    assert.is(await svc.deps.store.headPosition(), head)
    assert.is(ok(await tool(svc.call, key, 'page_write', { pageId: p.pageId, content: 'y' })).held, true)
    const proposed = ok(
      await tool(svc.call, key, 'page_write', { title: 'Scratch proposal', content: 'z', collectionId: c.id }),
    )
    assert.is(proposed.held, true)
    ok(await svc.call('DELETE', `/api/v1/collections/${c.id}`, { token: m.token }))
    assert.not.ok('collectionId' in ok(await svc.call('GET', `/api/v1/pages/${p.pageId}`, { token: m.token })))
    expectError(await svc.call('GET', `/api/v1/collections/${c.id}`, { token: m.token }), 404, 'NOT_FOUND')
    // A new page proposed into it and approved after the delete is outside any collection too.
    ok(await svc.call('POST', `/api/v1/proposals/${proposed.proposalId}/approve`, { token: m.token, body: {} }))
    assert.not.ok('collectionId' in ok(await svc.call('GET', `/api/v1/pages/${proposed.pageId}`, { token: m.token })))
    const other = await seedMember(svc.call, 'owner')
    expectError(
      await svc.call('PATCH', `/api/v1/collections/${c.id}`, { token: other.token, body: { name: 'mine' } }),
      404,
      'NOT_FOUND',
    )
  },
)

test.run()
