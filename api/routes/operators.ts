import * as E from 'fp-ts/Either'
import * as answers from './answers'
import * as t from 'io-ts'
import { DEFAULT_MAX_LOST, DEFAULT_REPLAYED, MAX_REPLAYED, rebuildWithReplay, reembedAll } from '../../commands/search'
import { streamCandidates } from '../../commands/streams'
import { fail } from '../../domain/shared'
import { projectionStatus, rebuild, selectProjectors } from '../../projections/operations'
import * as c from '../codecs'
import { type AnyRoute, route } from '../route'
import { settleCitations } from '../settle'

/** What the kb CLI calls when the service holds the database (PGlite allows one process). */
export const operatorRoutes: AnyRoute[] = [
  route({
    method: 'post',
    path: '/api/v1/admin/verify-chain',
    response: answers.ChainReport,
    tag: 'operators',
    auth: 'admin',
    summary: "Walk the hash chain of the events (one workspace's, or all) and name the first broken event",
    body: c.exact({ workspaceId: c.string(1, 200) }),
    uses: ['store'],
    handler: async ({ body }, { store }) => {
      if (!store.verifyChain) return fail('SERVICE_UNAVAILABLE', 'the event store in use keeps no hash chain')
      return E.right({ data: await store.verifyChain(body.workspaceId) })
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/admin/projections',
    response: answers.Projections,
    tag: 'operators',
    auth: 'admin',
    summary: "Each projector's position (as reached in memory) and lag",
    uses: ['db', 'store', 'runner'],
    handler: async (_input, { db, store, runner }) => {
      const live = new Map(
        runner
          .statuses()
          .map((s) => [s.name, { state: s.state, position: s.position, ...(s.error ? { error: s.error } : {}) }]),
      )
      return E.right({ data: await projectionStatus(db, store, runner.projectors, live) })
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/admin/projections/:name/rebuild',
    response: answers.Rebuilt,
    tag: 'operators',
    auth: 'admin',
    summary:
      'Rebuild a projection (or all) from position 0 into fresh tables, then swap them in; with replay, the ' +
      "workspaces' last logged queries are asked of both first, and a rebuild that loses too many first results " +
      'is not swapped in (unless forced)',
    params: t.type({ name: c.string(1, 100) }),
    body: c.exact({
      replay: c.described(c.integer(1, MAX_REPLAYED), 'Distinct logged queries of each workspace to replay'),
      maxLost: c.described(
        c.number(0, 1),
        'The share of queries that may lose their first result before the cut-over is refused (default 0.1)',
      ),
      force: c.described(t.boolean, 'Cut over whatever the replay finds'),
      judgments: c.described(
        c.arrayOf(c.object({ query: c.string(1, 2000), judgments: t.record(t.string, c.number(0, 3)) }), 1000),
        'Judged questions (the evaluation format): each judged id names an entry, or a value of its ' +
          'externalReferenceIds; nDCG@10 of both sides is reported',
      ),
    }),
    uses: ['db', 'store', 'runner', 'log', 'embedder', 'textIndex', 'vectors', 'citations', 'config'],
    handler: async ({ params, body, command }, deps) => {
      const { db, store, runner, log, embedder, textIndex, vectors } = deps
      const selected = selectProjectors(runner.projectors, params.name)
      if (!selected)
        return fail('NOT_FOUND', `no projection named ${params.name}`, [
          `name: one of all, ${runner.projectors.map((p) => p.name).join(', ')}`,
        ])
      const replaying = body.replay !== undefined || body.judgments !== undefined
      if (!replaying && (body.maxLost !== undefined || body.force !== undefined))
        return fail('VALIDATION_ERROR', 'maxLost and force decide a replay: ask for one', [
          'replay: required with maxLost or force',
        ])
      if (!replaying) return E.right({ data: { rebuilt: await rebuild(db, store, selected, log) } })
      const options = {
        queries: body.replay ?? DEFAULT_REPLAYED,
        maxLost: body.maxLost ?? DEFAULT_MAX_LOST,
        force: body.force ?? false,
        judgments: body.judgments,
      }
      // The searches this process answered and has not logged yet are logged first, so the replay reads them.
      await settleCitations(deps)
      const searching = { db, store, log, embedder, textIndex, vectors }
      return E.right({ data: await rebuildWithReplay(searching, selected, options, command) })
    },
  }),
  route({
    method: 'post',
    path: '/api/v1/admin/reembed',
    response: answers.Reembedded,
    tag: 'operators',
    auth: 'admin',
    summary:
      'Re-embed chunks with the configured model (one workspace, or all): new vectors built beside the old, then ' +
      'swapped in',
    body: c.exact({ workspaceId: c.id }),
    uses: ['db', 'store', 'embedder'],
    handler: async ({ body }, { store, db, embedder }) => {
      const done = await reembedAll(store, db.pool, embedder, body.workspaceId)
      if (E.isLeft(done)) return done
      const reports = done.right
      return E.right({
        data: { reembedded: reports.map(({ position: _, ...r }) => r) },
        position: Math.max(0, ...reports.map((r) => r.position)),
      })
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/admin/streams/:streamId',
    response: answers.Stream,
    tag: 'operators',
    auth: 'admin',
    summary: "A stream's events (audit)",
    params: t.type({ streamId: c.string(1, 300) }),
    query: t.partial({ fromRevision: c.intFromString(0, Number.MAX_SAFE_INTEGER), limit: c.intFromString(1, 10000) }),
    uses: ['store'],
    handler: async ({ params, query }, { store }) => {
      // A bare entry, page or task id reads as that thing's stream.
      for (const streamId of streamCandidates(params.streamId)) {
        if ((await store.streamRevision(streamId)) === 'no_stream') continue
        const events = await store.readStream(streamId, {
          fromRevision: query.fromRevision ?? 0,
          maxCount: query.limit ?? 1000,
        })
        return E.right({ data: { streamId, events } })
      }
      return fail('NOT_FOUND', `no stream ${params.streamId}`)
    },
  }),
  route({
    method: 'get',
    path: '/api/v1/admin/receipt-keys',
    response: answers.ReceiptKeys,
    tag: 'operators',
    auth: 'admin',
    summary: 'The keys answer receipts are signed with: ids and ages, the signing one last (never the secrets)',
    uses: ['receiptKeys'],
    handler: async (_input, { receiptKeys }) => E.right({ data: { keys: await receiptKeys.list() } }),
  }),
  route({
    method: 'post',
    path: '/api/v1/admin/receipt-keys',
    response: answers.ReceiptKeyAdded,
    tag: 'operators',
    auth: 'admin',
    summary: 'Rotate: a new key signs from now on; receipts signed by the older keys stay checkable',
    uses: ['receiptKeys'],
    handler: async (_input, { receiptKeys }) => {
      const id = await receiptKeys.rotate()
      return E.right({ data: { id, keys: await receiptKeys.list() }, status: 201 })
    },
  }),
  route({
    method: 'delete',
    path: '/api/v1/admin/receipt-keys/:id',
    response: answers.ReceiptKeyRemoved,
    tag: 'operators',
    auth: 'admin',
    summary: 'Remove an older key: the receipts it signed are no longer checkable (the signing key stays)',
    params: t.type({ id: c.string(1, 100) }),
    uses: ['receiptKeys'],
    handler: async ({ params }, { receiptKeys }) => {
      const outcome = await receiptKeys.remove(params.id)
      if (outcome === 'unknown') return fail('NOT_FOUND', `no receipt key ${params.id}`)
      if (outcome === 'signing')
        return fail('CONFLICT', 'the signing key cannot be removed; rotate first', ['id: is the signing key'])
      if (outcome === 'recent')
        return fail(
          'CONFLICT',
          'other processes may still sign with this key for a minute after a rotation; try then',
          ['id: replaced less than a minute ago'],
        )
      return E.right({ data: { removed: true, id: params.id } })
    },
  }),
]
