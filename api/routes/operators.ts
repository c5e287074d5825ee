import * as E from 'fp-ts/Either'
import * as answers from './answers'
import * as t from 'io-ts'
import { DEFAULT_MAX_LOST, DEFAULT_REPLAYED, MAX_REPLAYED, rebuildWithReplay } from '../../commands/search'
import { fail } from '../../domain/shared'
import { projectionStatus, rebuild, selectProjectors } from '../../projections/operations'
import * as c from '../codecs'
import { type AnyRoute, route } from '../route'
import { settleCitations } from '../settle'

/** What the kb CLI calls when the service holds the database (PGlite allows one process). */
export const operatorRoutes: AnyRoute[] = [
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
    method: 'get',
    path: '/api/v1/admin/streams/:streamId',
    response: answers.Stream,
    tag: 'operators',
    auth: 'admin',
    summary: "A stream's events (audit)",
    params: t.type({ streamId: c.string(1, 300) }),
    query: t.partial({ fromRevision: c.intFromString(0, Number.MAX_SAFE_INTEGER), limit: c.intFromString(1, 10000) }),
    uses: ['store', 'streams'],
    handler: async ({ params, query }, { store, streams }) => {
      // A bare entry, page or task id reads as that thing's stream.
      for (const streamId of streams.candidates(params.streamId)) {
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
]
