import { type Member, type TestService, seedMember, startTestService } from './service'
import { type Site, startSite } from './site'

/**
 * The URL suites' before-hook: a local site, a service that may fetch private addresses and gives a fetch 2 s,
 * and an owner.
 */
export const startUrlEntries = async (ctx: { service: TestService; site: Site; owner: Member }) => {
  ctx.site = await startSite()
  ctx.service = await startTestService({ KB_ALLOW_PRIVATE_URLS: 'true', FETCH_TIMEOUT_MS: '2000' })
  ctx.owner = await seedMember(ctx.service.call)
}

/** Creates a URL entry, titled 'A web page', as the holder of `token`. */
export const createUrl = (service: TestService, token: string, url: string, extra: Record<string, unknown> = {}) =>
  service.call('POST', '/api/v1/knowledge', { token, body: { title: 'A web page', source: 'url', url, ...extra } })
