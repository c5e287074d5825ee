import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import * as assert from 'uvu/assert'
import { newKey } from '../helpers/agents'
import { journeys, shot } from '../helpers/browser'
import { MemoryOAuthClient } from '../helpers/oauthClient'
import { ADMIN, ok } from '../helpers/service'

/** A native client's loopback redirect: the first request's query, and a page that says the sign-in is done. */
const callbackServer = async () => {
  let resolve: (query: URLSearchParams) => void = () => undefined
  const received = new Promise<URLSearchParams>((r) => (resolve = r))
  const server = http.createServer((req, res) => {
    resolve(new URL(req.url ?? '/', 'http://127.0.0.1').searchParams)
    res.writeHead(200, { 'content-type': 'text/html' }).end('<p>Signed in. You can close this tab.</p>')
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`
  return { url, received, close: () => new Promise((r) => server.close(r)) }
}

journeys('web console: an MCP client signs in through OAuth, granted and revoked in Chromium', (test) => {
  test('the SDK client sends the person to the console, who signs in, picks a workspace and allows', async (ctx) => {
    const { svc, owner } = ctx
    ok(
      await svc.call('POST', '/api/v1/knowledge', {
        token: owner.token,
        body: { title: 'Echidnas', content: 'Echidnas lay eggs.', source: 'text' },
      }),
      201,
    )
    await newKey(svc.call, owner.workspaceId, 'build-bot')
    // The owner also views a second workspace: there, reading is all they can grant.
    const side = ok(
      await svc.call('POST', '/api/v1/admin/workspaces', { token: ADMIN, body: { name: 'Side team' } }),
      201,
    )
    ok(
      await svc.call('POST', `/api/v1/admin/workspaces/${side.id}/members`, {
        token: ADMIN,
        body: { userId: owner.userId, role: 'viewer' },
      }),
    )
    const callback = await callbackServer()
    const provider = new MemoryOAuthClient(callback.url, 'Claude Desktop')
    const url = new URL(`${svc.url}/mcp`)
    const first = new StreamableHTTPClientTransport(url, { authProvider: provider })
    const refused = await new Client({ name: 'Claude Desktop', version: '1' }).connect(first).catch((e) => e)
    assert.instance(refused, UnauthorizedError)

    // The browser opens the authorization URL: the console asks for a sign-in first, then for the grant.
    const page = await ctx.browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.on('pageerror', (e) => ctx.problems.push(`page error: ${e.message}`))
    await page.goto(provider.authorizations[0].toString())
    await page.getByLabel('Access token').fill(owner.token)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.getByTestId('client-name').waitFor()
    assert.is(await page.getByTestId('client-name').textContent(), 'Claude Desktop')
    const write = page.getByLabel('Write: write pages and entries, as an agent')
    assert.ok(await write.isChecked())
    await page.getByRole('combobox', { name: 'Workspace to grant' }).click()
    await page.getByRole('option', { name: 'Side team (viewer)' }).click()
    await page.getByText('As a viewer of this workspace you can grant reading only.').waitFor()
    assert.ok(await write.isDisabled())
    await page.getByRole('combobox', { name: 'Workspace to grant' }).click()
    await page.getByRole('option', { name: /\(owner\)$/ }).click()
    await shot(page, 'oauth-consent')
    await page.getByRole('button', { name: 'Allow' }).click()
    const query = await callback.received
    await callback.close()
    assert.is(query.get('state'), 'state-123')

    await first.finishAuth(query.get('code')!)
    const client = new Client({ name: 'Claude Desktop', version: '1' })
    await client.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }))
    const found = await client.callTool({ name: 'kb_search', arguments: { query: 'echidnas eggs', minScore: 0 } })
    assert.is((found.structuredContent as { results: { title: string }[] }).results[0].title, 'Echidnas')

    // Listed under Settings beside the API keys, and revoked there: the client's token stops at once.
    await page.goto(`${svc.url}/#/settings`)
    const row = page.getByTestId('grant-row').filter({ hasText: 'Claude Desktop' })
    await row.getByText('active').waitFor()
    assert.match((await row.textContent()) ?? '', /kb:read, kb:write/)
    await page.getByTestId('key-row').filter({ hasText: 'build-bot' }).waitFor()
    await shot(page, 'settings-agent-access')
    await row.getByRole('button', { name: 'Revoke' }).click()
    await row.getByText('revoked').waitFor()
    const after = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${provider.saved!.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    })
    assert.is(after.status, 401)
    await client.close()
    await page.close()
  })
})
