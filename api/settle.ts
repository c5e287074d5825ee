// Searches' records reach the log after their answers (commands/search/citations.ts): a read asked to
// settle waits for them.
import type { Context } from 'koa'
import type { Deps } from './deps'

/**
 * Appends the searches' records still waiting (commands/search/citations.ts) and waits for the read models
 * to count them, each for at most `maxMs` (the read-your-writes bound unless given).
 */
export const settleCitations = async (
  deps: Pick<Deps, 'citations' | 'runner' | 'config'>,
  maxMs = deps.config.readYourWritesTimeoutMs,
): Promise<boolean> => {
  const { position, complete } = await deps.citations.settle(maxMs)
  const caughtUp = position > 0 ? await deps.runner.waitFor(position, maxMs) : true
  return complete && caughtUp
}

/**
 * `?settle=true` on any GET: the answer counts every search this process answered before it
 * (exact cited counts). Taken out of the query before the route's codec sees it.
 */
export const takeSettle = (ctx: Context, problems: string[]) => {
  const { settle, ...rest } = ctx.query ?? {}
  if (settle === undefined) return false
  ctx.query = rest
  if (settle !== 'true' && settle !== 'false') problems.push('settle: must be true or false')
  return settle === 'true'
}
