import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { judgeAddress } from '../../adapters/fetcher/addresses'
import { FetchError, checkUrl, safeFetch } from '../../adapters/fetcher'
import { type Site, startSite } from '../helpers/site'

const test = suite<{ site: Site }>('safe fetcher')
test.before(async (ctx) => {
  ctx.site = await startSite()
})
test.after(({ site }) => site.close())

const refused = (url: string, allowPrivate = false) => {
  try {
    checkUrl(url, allowPrivate)
  } catch (error) {
    assert.instance(error, FetchError)
    return (error as Error).message
  }
  throw new Error(`${url} was not refused`)
}

test('loopback and private addresses are refused in every spelling unless the operator opts in', () => {
  const spellings = [
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0x7f.0.0.1/',
    'http://0177.0.0.1/',
    'http://127.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:7f00:1]/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]/',
    'http://10.0.0.1/',
    'http://172.16.5.4/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://[fc00::1]/',
    'http://[fd12:3456::1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::]/',
    'http://[::ffff:10.0.0.1]/',
    'http://[::127.0.0.1]/',
    'http://[::10.0.0.1]/',
  ]
  for (const url of spellings) {
    assert.match(refused(url), 'refused to fetch', url)
    checkUrl(url, true) // allowed with KB_ALLOW_PRIVATE_URLS
  }
})

test('link-local, multicast, reserved and metadata addresses are refused even when private ones are allowed', () => {
  const spellings = [
    'http://169.254.169.254/',
    'http://0xa9fea9fe/',
    'http://2852039166/',
    'http://169.254.43518/',
    'http://[::ffff:169.254.169.254]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[fe80::1]/',
    'http://224.0.0.1/',
    'http://[ff02::1]/',
    'http://0.0.0.0/',
    'http://0/',
    'http://255.255.255.255/',
    'http://240.0.0.1/',
    'http://[::]/',
    'http://100.100.100.200/',
    'http://[fd00:ec2::254]/',
    'http://[64:ff9b::a9fe:a9fe]/',
    'http://[::169.254.169.254]/',
    'http://168.63.129.16/',
  ]
  for (const url of spellings) assert.match(refused(url, true), 'refused to fetch', url)
  assert.ok(judgeAddress('93.184.216.34', false).ok, 'a public address is fine')
  assert.ok(judgeAddress('2606:2800:220:1:248:1893:25c8:1946', false).ok)
})

test('only http and https, no credentials, no control characters', () => {
  for (const url of [
    'file:///etc/passwd',
    'gopher://example.com/',
    'data:text/plain,hi',
    'ftp://example.com/',
    'javascript:alert(1)',
  ]) {
    assert.match(refused(url, true), 'scheme is not allowed', url)
  }
  assert.match(refused('http://user:pw@example.com/', true), 'credentials')
  assert.match(refused('http://user@example.com/', true), 'credentials')
  assert.match(refused('http://example.com/\r\nHost: evil', true), 'control characters')
  assert.match(refused('http://exa\tmple.com/', true), 'control characters')
})

test('a name is resolved once and refused if it resolves to a refused address (localhost)', async ({ site }) => {
  const port = new URL(site.url).port
  try {
    await safeFetch(`http://localhost:${port}/`, { maxBytes: 1000, timeoutMs: 2000, allowPrivate: false })
    assert.unreachable('localhost should be refused')
  } catch (error) {
    assert.instance(error, FetchError)
    assert.match((error as Error).message, /refused to fetch localhost: it resolves to a loopback address/)
  }
  assert.is(site.hits.length, 0, 'never connected')
  site.pages.set('/ok', { type: 'text/plain', body: 'hello' })
  const fetched = await safeFetch(`http://localhost:${port}/ok`, {
    maxBytes: 1000,
    timeoutMs: 2000,
    allowPrivate: true,
  })
  assert.is(fetched.body.toString(), 'hello')
})

test('every redirect hop is checked, and a declared or streamed body over the cap is refused', async ({ site }) => {
  site.pages.set('/hop', { status: 301, headers: { location: 'http://[::ffff:a9fe:a9fe]/latest/' } })
  try {
    await safeFetch(`${site.url}/hop`, { maxBytes: 1000, timeoutMs: 2000, allowPrivate: true })
    assert.unreachable()
  } catch (error) {
    assert.match((error as Error).message, 'refused to fetch http://[::ffff:a9fe:a9fe]')
  }
  assert.ok(site.hits.includes('/hop'), 'the first hop was fetched, the second refused')
  site.pages.set('/big', { type: 'text/plain', body: 'z'.repeat(5000) })
  try {
    await safeFetch(`${site.url}/big`, { maxBytes: 1000, timeoutMs: 2000, allowPrivate: true })
    assert.unreachable()
  } catch (error) {
    assert.match((error as Error).message, 'over the limit of 1000')
  }
})

test.run()
