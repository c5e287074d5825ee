import * as E from 'fp-ts/Either'
import type { EventStore } from '../../adapters/eventstore/port'
import type { DomainError } from '../../domain/shared'
import type { AsOf } from '../../queries/asOf'
import type { Engines, RankDeps } from '../../queries/search/ranking'
import {
  type Mode,
  type SearchRequest,
  type SearchResult,
  findKnowledge,
  searchSettings,
} from '../../queries/search/search'
import { rerankResults } from '../../queries/search/rerank'
import type { ReceiptKeys } from '../../adapters/receiptKeys'
import type { Reranker } from '../../adapters/reranker'
import type { CitationLog } from './citations'
import { type ReceiptClaim, signReceipt } from './receiptToken'
import { type CommandContext } from '../handle'
import { searches } from './aggregates'

/**
 * An answer's receipt: a signed token of what was served (./receiptToken.ts), or a public
 * pack answer's hash; and the read models' position it answered from.
 */
export interface Receipt {
  id: string
  position: number
}

export interface SearchDeps extends RankDeps {
  store: EventStore
  /** The model that reorders a search's best results, where one is served and a workspace turned it on. */
  reranker?: Reranker
  citations: CitationLog
  receiptKeys: ReceiptKeys
}

/** Signs what an answer served with the current receipt key: the receipt, and the id its search's record takes. */
export const issueReceipt = async (
  keys: ReceiptKeys,
  claim: Omit<ReceiptClaim, 'keyId' | 'issuedAt'>,
): Promise<{ receipt: Receipt; searchId: string }> => {
  const key = await keys.signing()
  const { token, searchId } = signReceipt({ ...claim, keyId: key.id, issuedAt: new Date() }, key.secret)
  return { receipt: { id: token, position: claim.position }, searchId }
}

/**
 * A search over entries (queries/search/search.ts finds the results). Its answer carries a signed receipt
 * and waits for nothing else: its record, one SearchServed event (one citation for each entry
 * served, and the query, mode and who behind the receipt), is appended after the answer
 * (commands/search/citations.ts).
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
      results: Array<Omit<SearchResult, 'revision'>>
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
  const { rerank } = settings
  // Reranked, the best `candidates` results are found, and the model's order decides which are served.
  const limit = rerank.enabled ? Math.max(settings.limit, rerank.candidates) : settings.limit
  const found = await findKnowledge(deps, workspaceId, req, { ...settings, limit })
  if (E.isLeft(found)) return found
  const { position, mode } = found.right
  let { results, engines } = found.right
  if (rerank.enabled) {
    const reranked = await rerankResults(deps.reranker, rerank, req.query, results, settings.limit)
    results = reranked.results
    engines = { ...engines, rerank: reranked.engine }
  }
  // A record and a receipt keep the revision: it finds the served text in the log.
  const served = results.map((r) => ({
    entryId: r.id,
    version: r.revision,
    chunkIndex: r.chunkIndex,
    sha256: r.sha256,
  }))
  const { receipt, searchId } = await issueReceipt(deps.receiptKeys, {
    kind: 'knowledge',
    workspaceId,
    position,
    ...(req.asOf ? { asOf: req.asOf.position } : {}),
    results: served.map((r) => ({ id: r.entryId, version: r.version, chunkIndex: r.chunkIndex, sha256: r.sha256 })),
  })
  void deps.citations.record(() =>
    searches.on(deps.store, searchId).handle(
      {
        type: 'RecordSearch',
        data: {
          searchId,
          workspaceId,
          mode,
          resultCount: results.length,
          entryIds: results.map((r) => r.id),
          query: req.query,
          askedMode: settings.mode,
          ...(Object.values(req.filters).some((v) => v !== undefined) ? { filters: req.filters } : {}),
          minScore: settings.minScore,
          position,
          served,
          receipt: receipt.id,
          ...(req.asOf ? { asOf: req.asOf.position } : {}),
        },
      },
      { ...ctx, workspaceId },
      { fresh: true },
    ),
  )
  const { position: _, ...answer } = found.right
  // The revision stays in the record and the receipt; a result shows the entry's version.
  const shown = results.map(({ revision: _, ...r }) => r)
  return E.right({ ...answer, results: shown, engines, receipt, ...(req.asOf ? { asOf: req.asOf } : {}) })
}
