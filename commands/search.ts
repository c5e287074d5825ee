import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import type { EventStore } from '../adapters/eventstore/port'
import { search as searchDecider } from '../domain/search'
import { type DomainError, fail } from '../domain/shared'
import type { AsOf } from '../queries/asOf'
import type { Engines, RankDeps } from '../queries/ranking'
import { type Mode, type SearchRequest, type SearchResult, findKnowledge, searchSettings } from '../queries/search'
import type { CitationLog } from './citations'
import { type CommandContext, handle } from './handle'
import { streams } from './streams'

/** An answer's receipt: its record's id (the search id, or a pack answer's hash) and the read models' position. */
export interface Receipt {
  id: string
  position: number
}

export interface SearchDeps extends RankDeps {
  store: EventStore
  citations: CitationLog
}

/**
 * A search over entries (queries/search.ts finds the results), recorded as one SearchServed event,
 * which counts one citation for each entry served and is the answer's receipt (commands/citations.ts).
 */
export const searchKnowledge = async (
  deps: SearchDeps,
  ctx: CommandContext,
  workspaceId: string,
  req: SearchRequest,
): Promise<
  E.Either<
    DomainError,
    {
      results: SearchResult[]
      mode: Mode
      fallback?: string
      engines: Engines
      receipt: Receipt
      asOf?: AsOf
    }
  >
> => {
  // The configuration as the read model holds it (a PATCH's answer waited for it).
  const settings = await searchSettings(deps.db.pool, workspaceId, req)
  const found = await findKnowledge(deps, workspaceId, req, settings)
  if (E.isLeft(found)) return found
  const { results, position, mode } = found.right
  const searchId = randomUUID()
  const recorded = await deps.citations.record(() =>
    handle(
      deps.store,
      streams.search(searchId),
      searchDecider,
      {
        type: 'RecordSearch',
        data: {
          searchId,
          workspaceId,
          mode,
          resultCount: results.length,
          entryIds: results.map((r) => r.id),
          query: req.query,
          position,
          served: results.map((r) => ({
            entryId: r.id,
            version: r.version,
            chunkIndex: r.chunkIndex,
            sha256: r.sha256,
          })),
          ...(req.asOf ? { asOf: req.asOf.position } : {}),
        },
      },
      { ...ctx, workspaceId },
      { fresh: true },
    ),
  )
  // The receipt is handed out once it is in the log.
  if (recorded === 0) return fail('SERVICE_UNAVAILABLE', 'the search could not be recorded; try again')
  const { position: _, ...answer } = found.right
  return E.right({ ...answer, receipt: { id: searchId, position }, ...(req.asOf ? { asOf: req.asOf } : {}) })
}
