import * as assert from 'uvu/assert'
import { newKey } from './agents'
import { type Member, type TestService, ok, seedMember, startTestService } from './service'

/** Runs the bad requests and asserts the event store did not move. */
export const unchanged = async (svc: TestService, bad: () => Promise<unknown>) => {
  const head = await svc.deps.store.headPosition()
  await bad()
  assert.is(await svc.deps.store.headPosition(), head, 'a refused request appends no event')
}
export const detailStarts = (e: { details?: string[] }, prefix: string) =>
  assert.ok(
    e.details?.some((d) => d.startsWith(prefix)),
    `a detail starting ${prefix}: ${JSON.stringify(e.details)}`,
  )

/** What the page input suites share: an editor and an agent's key in its workspace. */
export interface EditorContext {
  svc: TestService
  m: Member
  key: string
}

/** The page input suites' before-hook. */
export const startWithEditor = async (ctx: EditorContext) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'editor')
  ctx.key = (await newKey(ctx.svc.call, ctx.m.workspaceId, 'claude-code')).api_key
}

/** What the page review suites share: an owner, an agent's key, and a collection that holds writes for review. */
export interface ReviewContext {
  svc: TestService
  m: Member
  key: string
  held: string
}

/** The page review suites' before-hook. */
export const startWithHeldCollection = async (ctx: ReviewContext) => {
  ctx.svc = await startTestService()
  ctx.m = await seedMember(ctx.svc.call, 'owner')
  ctx.key = (await newKey(ctx.svc.call, ctx.m.workspaceId, 'claude-code')).api_key
  ctx.held = ok(
    await ctx.svc.call('POST', '/api/v1/collections', {
      token: ctx.m.token,
      body: { name: 'Policies', writePolicy: 'hold_for_review' },
    }),
    201,
  ).id
}
