import { execFile } from 'node:child_process'
import { createHash, randomBytes } from 'node:crypto'
import { promisify } from 'node:util'
import { readClaim, signReceipt } from '../../commands/search/receiptToken'
import { until } from '../helpers/until'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { newKey, tool } from '../helpers/agents'
import { ADMIN, type Member, type TestService, expectError, ok, seedMember, startTestService } from '../helpers/service'

const run = promisify(execFile)

const sha = (s: string) => createHash('sha256').update(s).digest('hex')

const test = suite<{ svc: TestService; m: Member }>('answer receipts: what was served, and whether it still holds')
test.before(async (ctx) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
})
test.after(async ({ svc }) => svc.stop())

test('a receipt of a search goes from current to changed (with a diff) to deleted', async ({ svc, m }) => {
  const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
  const e = ok(
    await call('POST', '/api/v1/knowledge', {
      title: 'Wombats',
      content: 'Wombats dig burrows at night.',
      source: 'text',
    }),
    201,
  )
  const answer = ok(
    await call('POST', '/api/v1/knowledge/search', { query: 'wombats burrows', mode: 'text', minScore: 0 }),
  )
  const [hit] = answer.results
  assert.is(hit.id, e.id)
  assert.is(hit.sha256, sha(hit.content))
  assert.is(typeof hit.version, 'number')
  // A signed token; the search's record reaches the log after the answer (asked to settle, it is there).
  assert.match(answer.receipt.id, /^[A-Za-z0-9_-]{80,}$/)
  assert.ok(answer.receipt.position > 0)
  let receipt = ok(await call('GET', `/api/v1/receipts/${answer.receipt.id}?settle=true`))
  const [recorded] = await svc.deps.store.readStream(`search-${receipt.id}`)
  assert.equal([recorded?.type, (recorded?.data as any)?.query], ['SearchServed', 'wombats burrows'])
  assert.equal(
    [receipt.query, receipt.mode, receipt.kind, receipt.position, receipt.recorded],
    ['wombats burrows', 'text', 'knowledge', answer.receipt.position, true],
  )
  assert.equal(receipt.actor, { kind: 'human', userId: m.userId })
  assert.equal(receipt.results, [
    // The receipt keeps the hash's first 16 bytes.
    { entryId: e.id, version: hit.version, chunkIndex: 0, sha256: hit.sha256.slice(0, 32), status: 'current' },
  ])
  // A title change is not a change of what was served.
  ok(await call('PATCH', `/api/v1/knowledge/${e.id}`, { title: 'Wombats (renamed)' }))
  assert.is(ok(await call('GET', `/api/v1/receipts/${answer.receipt.id}`)).results[0].status, 'current')
  ok(await call('PATCH', `/api/v1/knowledge/${e.id}`, { content: 'Wombats dig burrows by day.' }))
  receipt = ok(await call('GET', `/api/v1/receipts/${answer.receipt.id}`))
  const [changed] = receipt.results
  assert.is(changed.status, 'changed')
  assert.ok(changed.currentVersion > hit.version)
  assert.match(changed.diff, /-Wombats dig burrows at night\./)
  assert.match(changed.diff, /\+Wombats dig burrows by day\./)
  ok(await call('DELETE', `/api/v1/knowledge/${e.id}`))
  receipt = ok(await call('GET', `/api/v1/receipts/${answer.receipt.id}`))
  assert.equal(
    receipt.results.map((r: any) => [r.entryId, r.status]),
    [[e.id, 'deleted']],
  )
  // Receipts are events: a rebuild gives the same receipt back.
  ok(await svc.call('POST', '/api/v1/admin/projections/receipts/rebuild', { token: ADMIN }))
  assert.equal(ok(await call('GET', `/api/v1/receipts/${answer.receipt.id}`)), receipt)
})

test('agents get receipts from kb_search and page_search; a page receipt goes stale with a diff', async ({
  svc,
  m,
}) => {
  const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
  ok(
    await call('POST', '/api/v1/knowledge', { title: 'Numbats', content: 'Numbats eat termites.', source: 'text' }),
    201,
  )
  const key = (await newKey(svc.call, m.workspaceId, 'helper-agent')).api_key
  const kb = ok(await tool(svc.call, key, 'kb_search', { query: 'numbats termites', mode: 'text', minScore: 0 }))
  assert.ok(kb.receipt.id && kb.receipt.position > 0)
  assert.is(kb.results[0].sha256.length, 64)
  const byAgent = ok(await call('GET', `/api/v1/receipts/${kb.receipt.id}?settle=true`))
  // Its API key is for owners and admins to see (the access report), not in a receipt every member reads.
  assert.equal(byAgent.actor, { kind: 'agent', client: 'helper-agent' })
  assert.is(byAgent.results[0].status, 'current')

  const page = ok(
    await call('POST', '/api/v1/pages', { title: 'Marsupials', content: 'Quokkas live on Rottnest.' }),
    201,
  )
  const ps = ok(await tool(svc.call, key, 'page_search', { query: 'quokkas rottnest', mode: 'text', minScore: 0 }))
  assert.equal([ps.results[0].pageId, ps.results[0].version], [page.id, 1])
  assert.is(ps.results[0].sha256, sha('Quokkas live on Rottnest.'))
  ok(await call('PATCH', `/api/v1/pages/${page.id}`, { content: 'Quokkas live on Rottnest Island.' }))
  const stale = ok(await call('GET', `/api/v1/receipts/${ps.receipt.id}`))
  assert.equal([stale.kind, stale.results[0].status, stale.results[0].currentVersion], ['pages', 'changed', 2])
  assert.match(stale.results[0].diff, /\+Quokkas live on Rottnest Island\./)
})

test('stale exposure: served results changed or deleted since, by entry or page, newest change first', async ({
  svc,
}) => {
  const m = await seedMember(svc.call, 'owner')
  const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
  const since = new Date(Date.now() - 1000).toISOString()
  const a = ok(
    await call('POST', '/api/v1/knowledge', { title: 'Bilbies', content: 'Bilbies dig spirals.', source: 'text' }),
    201,
  )
  const b = ok(
    await call('POST', '/api/v1/knowledge', { title: 'Dingoes', content: 'Dingoes howl.', source: 'text' }),
    201,
  )
  const p = ok(await call('POST', '/api/v1/pages', { title: 'Koalas', content: 'Koalas sleep a lot.' }), 201)
  const stale = await newKey(svc.call, m.workspaceId, 'stale-agent')
  const key = stale.api_key
  const served = ok(await tool(svc.call, key, 'kb_search', { query: 'bilbies spirals', mode: 'text', minScore: 0 }))
  assert.is(served.results[0].id, a.id)
  ok(await tool(svc.call, key, 'page_search', { query: 'koalas sleep', mode: 'text', minScore: 0 }))
  ok(await call('POST', '/api/v1/knowledge/search', { query: 'dingoes howl', mode: 'text', minScore: 0 }))
  // After the serves: the bilby entry changes, then the koala page is deleted; the dingo entry stays.
  ok(await call('PATCH', `/api/v1/knowledge/${a.id}`, { content: 'Bilbies dig spiral burrows.' }))
  ok(await call('DELETE', `/api/v1/pages/${p.id}`))
  const report = ok(await call('GET', `/api/v1/reports/stale-exposure?since=${encodeURIComponent(since)}&settle=true`))
  assert.equal(
    report.items.map((i: any) => [i.pageId ?? i.entryId, i.status]),
    [
      [p.id, 'deleted'],
      [a.id, 'changed'],
    ],
  )
  const bilby = report.items[1]
  assert.equal(
    bilby.servedTo.map((s: any) => [s.receiptId, s.actor]),
    [[served.receipt.id, { kind: 'agent', client: 'stale-agent', keyId: stale.id }]],
  )
  assert.ok(Date.parse(report.items[0].changedAt) >= Date.parse(bilby.changedAt))
  assert.not.ok(report.items.some((i: any) => i.entryId === b.id))
  assert.is(report.pagination.total, 2)
  const now = encodeURIComponent(new Date().toISOString())
  assert.equal(ok(await call('GET', `/api/v1/reports/stale-exposure?since=${now}`)).items, [])
  const viewer = await seedMember(svc.call, 'viewer', m.workspaceId)
  expectError(
    await svc.call('GET', `/api/v1/reports/stale-exposure?since=${since}`, { token: viewer.token }),
    403,
    'FORBIDDEN',
  )
  expectError(await call('GET', '/api/v1/reports/stale-exposure'), 400, 'VALIDATION_ERROR')
  expectError(await call('GET', '/api/v1/reports/stale-exposure?since=yesterday'), 400, 'VALIDATION_ERROR')
})

test('another workspace: 404; a bad id: 400', async ({ svc, m }) => {
  const answer = ok(
    await svc.call('POST', '/api/v1/knowledge/search', { token: m.token, body: { query: 'anything', minScore: 0 } }),
  )
  const other = await seedMember(svc.call, 'owner')
  expectError(await svc.call('GET', `/api/v1/receipts/${answer.receipt.id}`, { token: other.token }), 404, 'NOT_FOUND')
  expectError(await svc.call('GET', `/api/v1/receipts/${'x'.repeat(300)}`, { token: m.token }), 404, 'NOT_FOUND')
  expectError(
    await svc.call('GET', `/api/v1/receipts/${'x'.repeat(9000)}`, { token: m.token }),
    400,
    'VALIDATION_ERROR',
  )
})

/** An entry and a text search that serves it; answers the search's receipt token. */
const servedReceipt = async (svc: TestService, m: Member, words: string) => {
  const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
  const e = ok(await call('POST', '/api/v1/knowledge', { title: words, content: `${words}.`, source: 'text' }), 201)
  const answer = ok(await call('POST', '/api/v1/knowledge/search', { query: words, mode: 'text', minScore: 0 }))
  assert.is(answer.results[0].id, e.id)
  return { entry: e, token: answer.receipt.id as string }
}

test('a receipt altered anywhere, signed by an unknown key, or of another workspace: 404, nothing told', async ({
  svc,
  m,
}) => {
  const { token } = await servedReceipt(svc, m, 'Kangaroos box')
  const get = (t: string, as = m.token) => svc.call('GET', `/api/v1/receipts/${t}`, { token: as })
  ok(await get(token))
  // Every byte (each field: format, kind, key id, workspace, search id, position, moment, time, each
  // result's id, version, chunk and hash, and the tag) flipped in turn.
  const raw = Buffer.from(token, 'base64url')
  for (let i = 0; i < raw.length; i++) {
    const altered = Buffer.from(raw)
    altered[i] ^= 0x01
    const r = await get(altered.toString('base64url'))
    assert.is(r.status, 404, `byte ${i}: ${JSON.stringify(r.body)}`)
    assert.equal(r.body.error, { code: 'NOT_FOUND', message: 'receipt not found' })
  }
  // A well-formed claim signed by a key this service does not have.
  const claim = { ...readClaim(token)!, workspaceId: m.workspaceId }
  const forged = signReceipt({ ...claim, keyId: 'zzzz' }, randomBytes(32))
  expectError(await get(forged.token), 404, 'NOT_FOUND')
  const stolen = signReceipt(claim, randomBytes(32))
  expectError(await get(stolen.token), 404, 'NOT_FOUND')
  const other = await seedMember(svc.call, 'owner')
  expectError(await get(token, other.token), 404, 'NOT_FOUND')
})

test('a rotated key: new receipts are signed by the new one, older ones stay checkable until their key goes', async ({
  svc,
  m,
}) => {
  const before = await servedReceipt(svc, m, 'Wallabies graze')
  const admin = (method: string, path: string) => svc.call(method, path, { token: ADMIN })
  const oldKey = readClaim(before.token)!.keyId
  const rotated = ok(await admin('POST', '/api/v1/admin/receipt-keys'), 201)
  assert.is.not(rotated.id, oldKey)
  assert.equal(rotated.keys.map((k: any) => [k.id, k.signing]).slice(-2), [
    [oldKey, false],
    [rotated.id, true],
  ])
  const after = await servedReceipt(svc, m, 'Possums climb')
  assert.is(readClaim(after.token)!.keyId, rotated.id)
  const check = (t: string) => svc.call('GET', `/api/v1/receipts/${t}`, { token: m.token })
  assert.is(ok(await check(before.token)).results[0].status, 'current')
  assert.is(ok(await check(after.token)).results[0].status, 'current')
  expectError(await admin('DELETE', `/api/v1/admin/receipt-keys/${rotated.id}`), 409, 'CONFLICT')
  // Other processes may sign with the old key for a minute after a rotation: it stays that long.
  const early = expectError(await admin('DELETE', `/api/v1/admin/receipt-keys/${oldKey}`), 409, 'CONFLICT')
  assert.match(early.message, /a minute after a rotation/)
  await svc.deps.db.pool.query("UPDATE kb_receipt_keys SET created_at = created_at - interval '2 minutes'")
  ok(await admin('DELETE', `/api/v1/admin/receipt-keys/${oldKey}`))
  expectError(await check(before.token), 404, 'NOT_FOUND')
  assert.is(ok(await check(after.token)).results[0].status, 'current')
  expectError(await admin('DELETE', `/api/v1/admin/receipt-keys/${oldKey}`), 404, 'NOT_FOUND')
})

test('the kb CLI lists and rotates the receipt keys through the running service', async ({ svc }) => {
  const kb = (...args: string[]) =>
    run(process.execPath, ['--import', 'tsx', 'scripts/kb.ts', ...args], {
      env: { ...process.env, KB_URL: svc.url, KB_ADMIN_TOKEN: ADMIN, LOG_LEVEL: 'silent' },
    })
  const before = ok(await svc.call('GET', '/api/v1/admin/receipt-keys', { token: ADMIN })).keys
  const listed = await kb('receipt-keys', 'list')
  for (const k of before) assert.match(listed.stdout, new RegExp(`^${k.id}  created ${k.createdAt}`, 'm'))
  const rotated = await kb('receipt-keys', 'rotate')
  const after = ok(await svc.call('GET', '/api/v1/admin/receipt-keys', { token: ADMIN })).keys
  assert.is(after.length, before.length + 1)
  assert.match(rotated.stdout, new RegExp(`^${after.at(-1).id}  created .*  signing$`, 'm'))
  // A refusal of the service: exit 1 with its reason.
  const refused = await kb('receipt-keys', 'remove', after.at(-1).id).then(
    () => ({ code: 0, stderr: '' }),
    (e: { code: number; stderr: string }) => e,
  )
  assert.equal([refused.code, /rotate first/.test(refused.stderr)], [1, true])
})

test('a search answers while the log refuses appends; its receipt checks out, and its record lands later', async ({
  svc,
  m,
}) => {
  const call = (method: string, path: string, body?: object) => svc.call(method, path, { token: m.token, body })
  const e = ok(
    await call('POST', '/api/v1/knowledge', { title: 'Emus', content: 'Emus run fast.', source: 'text' }),
    201,
  )
  const store = svc.deps.store
  const append = store.append
  let refused = 0
  store.append = async () => {
    refused++
    throw new Error('the event store refuses appends (test)')
  }
  let answer: any
  try {
    answer = ok(await call('POST', '/api/v1/knowledge/search', { query: 'emus run', mode: 'text', minScore: 0 }))
    assert.is(answer.results[0].id, e.id)
    const receipt = ok(await call('GET', `/api/v1/receipts/${answer.receipt.id}`))
    assert.equal(
      [receipt.recorded, receipt.query, receipt.results.map((r: any) => r.status)],
      [false, undefined, ['current']],
    )
    await until('the record tried', () => refused > 0)
  } finally {
    store.append = append
  }
  const claim = readClaim(answer.receipt.id)!
  await until('the record appended once the log takes it', async () => {
    const events = await store.readStream(`search-${claim.searchId}`)
    return events.length === 1
  })
  const receipt = ok(await call('GET', `/api/v1/receipts/${answer.receipt.id}?settle=true`))
  assert.equal([receipt.recorded, receipt.query], [true, 'emus run'])
  assert.is(ok(await call('GET', `/api/v1/knowledge/${e.id}?settle=true`)).citedCount, 1)
})

test.run()
