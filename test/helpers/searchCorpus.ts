import { type Member, type TestService, ok, seedMember, startTestService } from './service'

/** What the search suites share: the service, an owner, and the ids of the corpus entries by title. */
export interface SearchContext {
  svc: TestService
  m: Member
  ids: Record<string, string>
}

const corpus: Record<string, { content: string; source?: string; metadata?: object }> = {
  vacuum: {
    content:
      'Vacuum reclaims storage occupied by dead tuples. Autovacuum launches workers that vacuum tables automatically.',
    metadata: { category: 'maintenance', tags: ['pg', 'ops'] },
  },
  indexes: {
    content: 'A B-tree index speeds up equality and range queries. Indexes cost writes and storage.',
    source: 'faq',
    metadata: { category: 'performance', tags: ['pg'] },
  },
  wal: {
    content:
      'The write-ahead log records every change before it reaches the data files, so a crash can be replayed. ' +
      'Checkpoints flush the log.',
    metadata: { category: 'maintenance', tags: ['ops'] },
  },
  weather: {
    content: 'It is sunny and warm today with a light breeze from the west and no rain expected.',
    metadata: { category: 'misc' },
  },
  zebra: {
    content: 'The quokkasaurus is a rare term that appears in exactly one entry about tuples.',
    metadata: { category: 'misc' },
  },
  long: {
    content:
      `${'Filler sentence about nothing in particular. '.repeat(60)}Vacuum freezing prevents transaction id ` +
      `wraparound in the tuples. ${'More filler text to pad the entry. '.repeat(60)}`,
    metadata: { category: 'maintenance' },
  },
}

/** The search suites' before-hook: a service, an owner, and the corpus written into its workspace. */
export const startWithCorpus = async (ctx: SearchContext) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
  ctx.ids = {}
  for (const [title, e] of Object.entries(corpus)) {
    const body = {
      title,
      source: e.source ?? 'text',
      content: e.content,
      metadata: e.metadata ?? {},
      chunkingOptions: { chunkSizeTokens: 100, overlapTokens: 10 },
    }
    ctx.ids[title] = ok(await ctx.svc.call('POST', '/api/v1/knowledge', { token: ctx.m.token, body }), 201).id
  }
}

export const search = async (svc: TestService, token: string, body: object) =>
  ok(await svc.call('POST', '/api/v1/knowledge/search', { token, body }))
