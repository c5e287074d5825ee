import type Router from '@koa/router'
import { vectorEngine } from '../../adapters/vectorIndex'
import { databaseHealth } from '../../queries/health'
import { encodeAnswer } from '../answers'
import type { Deps } from '../deps'
import { Health } from './answers'

/** Said of an engine whose adapter's contract suite has not run against its server where the service is tested. */
const UNVERIFIED = { contractSuite: 'not run here' }

/** Readiness and each dependency's state: 200 when ready, 503 otherwise. */
export const mountHealth = (router: Router, deps: Deps) => {
  router.get('/health', async (ctx) => {
    const dependencies: Record<string, unknown> = {}
    let ready = deps.state.ready && deps.state.caughtUp
    try {
      const { unpublishedJobs } = await databaseHealth(deps.db.pool)
      dependencies.database = { status: 'up', kind: deps.db.kind }
      dependencies.jobQueue = { kind: deps.queue.kind, unpublished: unpublishedJobs }
      // Which engines answer searches here: the text index, and pgvector's HNSW or an exact scan of real[].
      dependencies.search = {
        text: deps.textIndex.name,
        vectors: vectorEngine(deps.vectors),
        ...(deps.textIndex.mirror ? UNVERIFIED : {}),
      }
      const { model, dimensions, workers } = deps.embedder
      dependencies.embedder = { model, dimensions, ...(workers ? { workers } : {}) }
    } catch (error) {
      ready = false
      dependencies.database = { status: 'down', kind: deps.db.kind, reason: (error as Error).message }
    }
    const eventStore = deps.process.eventStore
    try {
      dependencies.eventStore = {
        status: 'up',
        kind: eventStore,
        head: await deps.store.headPosition(),
        ...(eventStore === 'eventstoredb' ? UNVERIFIED : {}),
      }
    } catch (error) {
      ready = false
      dependencies.eventStore = { status: 'down', kind: eventStore, reason: (error as Error).message }
    }
    // The file store: down, it fails uploads (503) and holds file tasks back, and nothing else, so
    // the service stays ready and says so here.
    try {
      await deps.blobs.check()
      dependencies.blobStore = { status: 'up', kind: deps.blobs.kind }
    } catch (error) {
      dependencies.blobStore = { status: 'down', kind: deps.blobs.kind, reason: (error as Error).message }
    }
    const projections = deps.runner.statuses()
    if (projections.some((p) => p.state === 'failed')) ready = false
    dependencies.projections = projections.map((p) => ({
      name: p.name,
      state: p.state,
      position: p.position,
      // A projector waiting for a dependency: what it waits for, and its next try.
      ...(p.state === 'waiting' ? { waitingFor: p.error?.message, retryAt: p.retryAt } : {}),
    }))
    const leases = deps.process.leases()
    const data = encodeAnswer(
      Health,
      {
        status: ready ? 'ready' : deps.state.ready && deps.state.caughtUp ? 'degraded' : 'not ready',
        roles: deps.process.roles,
        leases,
        // The projectors this process runs: all of them while it holds their lease, none while it follows.
        projectors: deps.runner.leading() ? projections.map((p) => p.name) : [],
        dependencies,
      },
      deps.config.checkAnswers,
      'GET /health',
    )
    ctx.status = ready ? 200 : 503
    ctx.body = ready
      ? { success: true, data }
      : {
          success: false,
          error: {
            code: 'SERVICE_UNAVAILABLE',
            message: `the service is ${data.status}`,
            details: [JSON.stringify(dependencies)],
          },
        }
  })
}
