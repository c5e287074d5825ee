import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { tool } from '../helpers/agents'
import { detailStarts, type EditorContext, startWithEditor, unchanged } from '../helpers/pages'
import { expectError, ok } from '../helpers/service'

const test = suite<EditorContext>('API: pages refuse bad input')
test.before(startWithEditor)
test.after(async ({ svc }) => svc.stop())

test(
  'expectedVersion 0, -1 and 1.5 are VALIDATION_ERROR and change nothing; one far ahead is ' + 'VERSION_CONFLICT',
  async ({ svc, key }) => {
    const p = ok(await tool(svc.call, key, 'page_write', { title: 'Guarded', mode: 'create', content: 'v1' }))
    await unchanged(svc, async () => {
      for (const expectedVersion of [0, -1, 1.5]) {
        const e = expectError(
          await tool(svc.call, key, 'page_write', { pageId: p.pageId, mode: 'replace', content: 'x', expectedVersion }),
          400,
          'VALIDATION_ERROR',
        )
        detailStarts(e, 'arguments.expectedVersion')
      }
      const ahead = expectError(
        await tool(svc.call, key, 'page_write', {
          pageId: p.pageId,
          mode: 'replace',
          content: 'x',
          expectedVersion: 999,
        }),
        409,
        'VERSION_CONFLICT',
      )
      assert.match(ahead.message, /version 1/)
      assert.equal(ahead.details, ['currentVersion: 1'])
    })
  },
)

test('a title of 501 characters is refused and changes nothing; 500 characters is fine', async ({ svc, key }) => {
  await unchanged(svc, async () => {
    const e = expectError(
      await tool(svc.call, key, 'page_write', { title: 't'.repeat(501), content: 'x' }),
      400,
      'VALIDATION_ERROR',
    )
    detailStarts(e, 'arguments.title: ')
  })
  const p = ok(await tool(svc.call, key, 'page_write', { title: 'T'.repeat(500), content: 'x' }))
  assert.equal([p.title.length, p.version], [500, 1])
})

test('empty and whitespace-only content are refused and change nothing', async ({ svc, key }) => {
  await unchanged(svc, async () => {
    for (const content of ['', '  \n\t ']) {
      detailStarts(
        expectError(await tool(svc.call, key, 'page_write', { title: 'Blank', content }), 400, 'VALIDATION_ERROR'),
        'arguments.content',
      )
    }
  })
})

test('an unknown pageId is NOT_FOUND', async ({ svc, key }) => {
  await unchanged(svc, async () => {
    expectError(
      await tool(svc.call, key, 'page_write', {
        pageId: '00000000-0000-4000-8000-000000000000',
        mode: 'append',
        content: 'x',
      }),
      404,
      'NOT_FOUND',
    )
    expectError(
      await tool(svc.call, key, 'page_read', { pageId: '00000000-0000-4000-8000-000000000000' }),
      404,
      'NOT_FOUND',
    )
  })
})

test(
  'a pageId and a title of two different pages, or expectedVersion on a create, are refused and change ' + 'nothing',
  async ({ svc, key }) => {
    const a = ok(await tool(svc.call, key, 'page_write', { title: 'Page A', content: 'a' }))
    ok(await tool(svc.call, key, 'page_write', { title: 'Page B', content: 'b' }))
    await unchanged(svc, async () => {
      for (const name of ['page_write', 'page_read', 'page_history']) {
        const e = expectError(
          await tool(svc.call, key, name, { pageId: a.pageId, title: 'Page B', content: 'x' }),
          400,
          'VALIDATION_ERROR',
        )
        assert.equal(
          e.details,
          ['title: the page of this pageId is titled "Page A"; give pageId or title, or both of the same page'],
          name,
        )
      }
      const c = expectError(
        await tool(svc.call, key, 'page_write', { title: 'Page C', mode: 'create', expectedVersion: 1, content: 'c' }),
        400,
        'VALIDATION_ERROR',
      )
      assert.match(c.details![0], /^expectedVersion:/)
    })
    // Both naming the same page (any case) is fine.
    assert.is(ok(await tool(svc.call, key, 'page_read', { pageId: a.pageId, title: 'page a' })).id, a.pageId)
  },
)

test(
  'verify while verification is off is VALIDATION_ERROR and changes nothing; the page has no verification ' + 'state',
  async ({ svc, m, key }) => {
    const p = ok(await tool(svc.call, key, 'page_write', { title: 'Unverifiable', content: 'x' }))
    await unchanged(svc, async () => {
      expectError(
        await svc.call('POST', `/api/v1/pages/${p.pageId}/verify`, { token: m.token }),
        400,
        'VALIDATION_ERROR',
      )
    })
    const page = ok(await svc.call('GET', `/api/v1/pages/${p.pageId}`, { token: m.token }))
    assert.not.ok('verification' in page)
  },
)

test('create is case- and space-insensitive on titles: "ALPHA " after "Alpha" is CONFLICT', async ({ svc, key }) => {
  ok(await tool(svc.call, key, 'page_write', { title: 'Alpha', mode: 'create', content: 'x' }))
  await unchanged(svc, async () => {
    expectError(
      await tool(svc.call, key, 'page_write', { title: 'ALPHA ', mode: 'create', content: 'y' }),
      409,
      'CONFLICT',
    )
  })
})

test('titles are one line, and one name however their accents were typed (Unicode NFC)', async ({ svc, m, key }) => {
  const composed = ok(
    await tool(svc.call, key, 'page_write', { title: 'R\u00e9sum\u00e9 notes', mode: 'create', content: 'x' }),
  )
  await unchanged(svc, async () => {
    const e = expectError(
      await tool(svc.call, key, 'page_write', { title: 'Re\u0301sume\u0301 notes', mode: 'create', content: 'y' }),
      409,
      'CONFLICT',
    )
    assert.match(e.message, 'already exists')
    for (const title of ['Two\nlines', 'Tab\there', 'Bell\u0007']) {
      const bad = expectError(await tool(svc.call, key, 'page_write', { title, content: 'z' }), 400, 'VALIDATION_ERROR')
      assert.equal(bad.details, ['arguments.title: must be one line of 1-500 characters, without control characters'])
      expectError(
        await svc.call('POST', '/api/v1/pages', { token: m.token, body: { title, content: 'z' } }),
        400,
        'VALIDATION_ERROR',
      )
    }
  })
  // Read and appended to by the other spelling: the same page.
  const read = ok(await tool(svc.call, key, 'page_read', { title: 're\u0301sume\u0301 NOTES' }))
  assert.is(read.id, composed.pageId)
  assert.is(
    ok(await tool(svc.call, key, 'page_write', { title: 'Re\u0301sume\u0301 notes', content: 'more' })).pageId,
    composed.pageId,
  )
})

test('the tools endpoint: a body without arguments is 400, an unknown tool is 404', async ({ svc, key }) => {
  await unchanged(svc, async () => {
    const headers = { 'x-api-key': key }
    expectError(
      await svc.call('POST', '/api/v1/tools/native:page_write/execute', {
        body: { title: 'No args', content: 'x' },
        headers,
      }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await svc.call('POST', '/api/v1/tools/native:nope/execute', { body: { arguments: {} }, headers }),
      404,
      'NOT_FOUND',
    )
  })
})

test('REST refuses an empty PATCH, version 0, revert out of range, a bad diff and an unknown version', async ({
  svc,
  m,
}) => {
  const p = ok(
    await svc.call('POST', '/api/v1/pages', { token: m.token, body: { title: 'Rest edge cases', content: 'one' } }),
    201,
  )
  ok(await svc.call('PATCH', `/api/v1/pages/${p.id}`, { token: m.token, body: { content: 'two', expectedVersion: 1 } }))
  await unchanged(svc, async () => {
    expectError(await svc.call('PATCH', `/api/v1/pages/${p.id}`, { token: m.token, body: {} }), 400, 'VALIDATION_ERROR')
    expectError(
      await svc.call('PATCH', `/api/v1/pages/${p.id}`, { token: m.token, body: { content: 'x', expectedVersion: 0 } }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(
      await svc.call('POST', `/api/v1/pages/${p.id}/revert`, { token: m.token, body: { version: 0 } }),
      400,
      'VALIDATION_ERROR',
    )
    const far = expectError(
      await svc.call('POST', `/api/v1/pages/${p.id}/revert`, { token: m.token, body: { version: 99 } }),
      400,
      'VALIDATION_ERROR',
    )
    assert.match((far.details ?? []).join('\n'), /1 (to|and) 2/)
    expectError(
      await svc.call('GET', `/api/v1/pages/${p.id}/diff?from=abc`, { token: m.token }),
      400,
      'VALIDATION_ERROR',
    )
    expectError(await svc.call('GET', `/api/v1/pages/${p.id}?version=99`, { token: m.token }), 404, 'NOT_FOUND')
  })
})

test.run()
