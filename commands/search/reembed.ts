import { randomUUID } from 'node:crypto'
import * as E from 'fp-ts/Either'
import type { Queryable } from '../../adapters/db'
import { embeddingInput, ensureEmbedded } from '../../adapters/embeddingCache'
import { subjectOf } from '../../ingestion/headings'
import type { Embedder } from '../../adapters/embedders/port'
import type { EventStore } from '../../adapters/eventstore/port'
import { type DomainError, fail } from '../../domain/shared'
import { workspaceExists } from '../accounts'
import { embeddedPassages, workspacesWithEmbeddings } from '../../queries/search/passages'
import { reembeds } from './aggregates'

const BATCH = 256

export interface ReembedReport {
  workspaceId: string
  model: string
  /** Vectors made: one per passage the model reads whole (or per chunk). */
  vectors: number
  position: number
}

/**
 * Re-embeds a workspace's passages with the configured model: the new vectors are built beside the
 * old ones (in the embedding cache) while search goes on, then one EmbeddingsRebuilt event makes
 * the chunks projection swap them all in one statement (the history's in parts). Search compares only
 * vectors of the current model, so it never mixes two.
 */
export const reembedWorkspace = async (
  store: EventStore,
  db: Queryable,
  embedder: Embedder,
  workspaceId: string,
): Promise<ReembedReport> => {
  const rows = await embeddedPassages(db, workspaceId)
  for (let i = 0; i < rows.length; i += BATCH)
    await ensureEmbedded(
      db,
      embedder,
      rows.slice(i, i + BATCH).map((r) => embeddingInput(subjectOf(r.title, r.heading_path ?? ''), r.content)),
    )
  const ctx = {
    actor: { kind: 'system' as const, process: 'reembed' },
    at: new Date().toISOString(),
    correlationId: randomUUID(),
    workspaceId,
  }
  const done = await reembeds
    .on(store, workspaceId)
    .handle({ type: 'RebuildEmbeddings', data: { workspaceId, model: embedder.model, chunkCount: rows.length } }, ctx)
  if (done._tag === 'Left') throw new Error(done.left.message)
  return { workspaceId, model: embedder.model, vectors: rows.length, position: done.right.position }
}

/** Every workspace that has embedded chunks, or the one asked for. */
export const reembedAll = async (
  store: EventStore,
  db: Queryable,
  embedder: Embedder,
  workspaceId?: string,
): Promise<E.Either<DomainError, ReembedReport[]>> => {
  if (workspaceId && !(await workspaceExists(store, workspaceId)))
    return fail('NOT_FOUND', `workspace ${workspaceId} not found`)
  const ids = workspaceId ? [workspaceId] : await workspacesWithEmbeddings(db)
  const reports: ReembedReport[] = []
  for (const id of ids) reports.push(await reembedWorkspace(store, db, embedder, id))
  return E.right(reports)
}
