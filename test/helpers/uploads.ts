import { DOCX } from '../../ingestion/sniff'
import { upload } from './ingestion'
import { type Member, type TestService, ok, seedMember, startTestService } from './service'

/** The upload suites' before-hook: a service that gives a parse 20 s, and an owner whose workspace allows DOCX. */
export const startUploads = async (ctx: { service: TestService; owner: Member }) => {
  ctx.service = await startTestService({ PARSE_TIMEOUT_MS: '20000' })
  ctx.owner = await seedMember(ctx.service.call)
  // DOCX is supported once a workspace allows it.
  ok(
    await ctx.service.call('PATCH', '/api/v1/knowledge/config', {
      token: ctx.owner.token,
      body: { allowedFileTypes: ['text/plain', 'text/markdown', 'text/html', 'application/pdf', DOCX] },
    }),
  )
}

/** Uploads a file to the unified endpoint as `m`, titled after its name unless `fields` say otherwise. */
export const send = (
  service: TestService,
  m: Member,
  bytes: Buffer,
  name: string,
  fields: Record<string, string> = {},
  type?: string,
) => upload(service.url, m.token, { title: `Upload ${name}`, source: 'file', ...fields }, { bytes, name, type })
