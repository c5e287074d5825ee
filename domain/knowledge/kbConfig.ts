import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import { type Decider, SearchMode, fail } from '../shared'

export const SUPPORTED_FILE_TYPES = [
  'application/pdf',
  'text/plain',
  'text/html',
  'text/markdown',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  // Images of pages, read by OCR.
  'image/png',
  'image/jpeg',
  'image/tiff',
] as const

export const MAX_FILE_SIZE = 10_485_760

/** A reranking of a search's best results by a served model: off until a workspace turns it on. */
export interface RerankSettings {
  enabled: boolean
  model: string
  /** How many of the best results it reorders (20-50). */
  candidates: number
}
export const DEFAULT_RERANK: RerankSettings = { enabled: false, model: 'bge-reranker-base', candidates: 30 }

export interface KbConfig {
  enabled: boolean
  maxDocuments: number
  retentionDays: number
  freshnessDays: number
  maxFileSize: number
  allowedFileTypes: string[]
  ingestion: { chunkSize: number; chunkOverlap: number; autoEmbed: boolean }
  /** `fusion`: how hybrid orders its results, by calibrated score (`score`) or Reciprocal Rank Fusion (`rrf`). */
  search: {
    defaultMode: SearchMode
    defaultLimit: number
    minScore: number
    fusion: 'score' | 'rrf'
    rerank: RerankSettings
  }
  verification: { enabled: boolean }
}

/**
 * The defaults; DOCX is supported but not allowed until a workspace adds it. Search starts at the
 * search endpoint's own defaults (hybrid, 5 results, minScore 0.5): one set of values, which the
 * configuration shows and every search that leaves them out uses.
 */
export const defaultKbConfig = (): KbConfig => ({
  enabled: true,
  maxDocuments: 1000,
  retentionDays: 365,
  freshnessDays: 90,
  maxFileSize: MAX_FILE_SIZE,
  allowedFileTypes: ['text/plain', 'text/markdown', 'text/html', 'application/pdf'],
  ingestion: { chunkSize: 1000, chunkOverlap: 200, autoEmbed: true },
  search: { defaultMode: 'hybrid', defaultLimit: 5, minScore: 0.5, fusion: 'score', rerank: DEFAULT_RERANK },
  verification: { enabled: false },
})

const Changes = t.partial({
  enabled: t.boolean,
  maxDocuments: t.number,
  retentionDays: t.number,
  freshnessDays: t.number,
  maxFileSize: t.number,
  allowedFileTypes: t.array(t.string),
  ingestion: t.partial({ chunkSize: t.number, chunkOverlap: t.number, autoEmbed: t.boolean }),
  search: t.partial({
    defaultMode: SearchMode,
    defaultLimit: t.number,
    minScore: t.number,
    fusion: t.keyof({ score: null, rrf: null }),
    rerank: t.partial({ enabled: t.boolean, model: t.string, candidates: t.number }),
  }),
  verification: t.partial({ enabled: t.boolean }),
})
export type KbConfigChanges = t.TypeOf<typeof Changes>

export const KbConfigChanged = t.type({
  type: t.literal('KbConfigChanged'),
  data: t.type({ workspaceId: t.string, changes: Changes }),
})
export type KbConfigChanged = t.TypeOf<typeof KbConfigChanged>

export type KbConfigCommand = { type: 'ChangeKbConfig'; data: { workspaceId: string; changes: KbConfigChanges } }

export const applyChanges = (config: KbConfig, c: KbConfigChanges): KbConfig => ({
  ...config,
  ...c,
  ingestion: { ...config.ingestion, ...c.ingestion },
  search: {
    ...config.search,
    ...c.search,
    rerank: { ...DEFAULT_RERANK, ...config.search.rerank, ...c.search?.rerank },
  },
  verification: { ...config.verification, ...c.verification },
})

/** Two sets of changes as one: the later's values over the earlier's, section by section. */
export const mergeChanges = (a: KbConfigChanges, b: KbConfigChanges): KbConfigChanges => ({
  ...a,
  ...b,
  ...(a.ingestion || b.ingestion ? { ingestion: { ...a.ingestion, ...b.ingestion } } : {}),
  ...(a.search || b.search
    ? {
        search: {
          ...a.search,
          ...b.search,
          ...(a.search?.rerank || b.search?.rerank ? { rerank: { ...a.search?.rerank, ...b.search?.rerank } } : {}),
        },
      }
    : {}),
  ...(a.verification || b.verification ? { verification: { ...a.verification, ...b.verification } } : {}),
})

export const kbConfig: Decider<KbConfigCommand, KbConfigChanged, KbConfig> = {
  events: KbConfigChanged,
  initialState: defaultKbConfig,
  evolve: (state, event) => applyChanges(state, event.data.changes),
  decide: (command, state) => {
    // Ranges are checked at the edge; what depends on the merged result is checked here.
    const next = applyChanges(state, command.data.changes)
    if (next.ingestion.chunkOverlap >= next.ingestion.chunkSize) {
      return fail('VALIDATION_ERROR', 'the configuration is not valid', [
        'ingestion.chunkOverlap: must be below ingestion.chunkSize',
      ])
    }
    if (JSON.stringify(next) === JSON.stringify(state)) return E.right([])
    return E.right([{ type: 'KbConfigChanged', data: command.data }])
  },
}
