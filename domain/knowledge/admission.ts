import * as E from 'fp-ts/Either'
import type { Chunking } from './entry'
import type { KbConfig } from './kbConfig'
import { type DomainError, fail } from '../shared'

/** What admission needs to know of the workspace beyond its configuration, read before deciding. */
export interface Counts {
  /** Entries the workspace holds now (the quota counts them). */
  entries: number
  /** Whether the folder the request names exists in this workspace (true when it names none). */
  folderExists: boolean
}

/** A new entry as admission sees it. */
export interface AdmissionRequest {
  folderId: string | null
  chunkingOptions: Partial<Chunking>
  /** A file's type as its content reads (sniffed, never the client's word) and its size in bytes. */
  file?: { mimeType: string; size: number }
}

/** What an admitted entry is made with. */
export interface Admission {
  chunking: Chunking
  embed: boolean
  /** The most bytes its task may read. */
  maxBytes: number
  /** The type the file is stored as (Markdown is kept as plain text where only plain text is allowed). */
  mimeType?: string
}

const invalid = (...details: string[]) => fail('VALIDATION_ERROR', 'the request is not valid', details)

/** A file type this workspace takes: Markdown is plain text too, for a workspace that takes plain text. */
const acceptedType = (config: KbConfig, sniffed: string) =>
  sniffed === 'text/markdown' &&
  !config.allowedFileTypes.includes('text/markdown') &&
  config.allowedFileTypes.includes('text/plain')
    ? 'text/plain'
    : sniffed

/**
 * Decides whether a new entry may be made, and with what: the file's type and size against the
 * workspace's limits (first, as a client fixing the file needs to know it), the knowledge base
 * switched on, the document quota, the folder, and the chunking (defaults from the configuration).
 */
export const admit = (
  config: KbConfig,
  counts: Counts,
  request: AdmissionRequest,
): E.Either<DomainError, Admission> => {
  let mimeType: string | undefined
  if (request.file) {
    mimeType = acceptedType(config, request.file.mimeType)
    if (!config.allowedFileTypes.includes(mimeType))
      return fail('VALIDATION_ERROR', `file type not allowed: ${mimeType}`, [
        `file: the content is ${mimeType}, which this workspace does not allow`,
        allowedTypes(config),
      ])
    if (request.file.size > config.maxFileSize)
      return fail('VALIDATION_ERROR', 'the file is too large', [`file: over the limit of ${config.maxFileSize} bytes`])
  }
  if (!config.enabled) return fail('FORBIDDEN', "this workspace's knowledge base is disabled")
  if (counts.entries >= config.maxDocuments)
    return fail('QUOTA_EXCEEDED', `the knowledge base holds its maximum of ${config.maxDocuments} documents`)
  if (request.folderId && !counts.folderExists)
    return fail('NOT_FOUND', 'folder not found', ['folderId: no such folder'])
  const chunking = chunkingOf(config, request.chunkingOptions)
  if (chunking.overlapTokens >= chunking.chunkSizeTokens)
    return invalid('chunkingOptions.overlapTokens: must be below chunkingOptions.chunkSizeTokens')
  const admitted = { chunking, embed: config.ingestion.autoEmbed, maxBytes: config.maxFileSize }
  return E.right(mimeType ? { ...admitted, mimeType } : admitted)
}

/** The list of allowed types that every refusal of a file ends with. */
export const allowedTypes = (config: KbConfig) => `allowed types: ${config.allowedFileTypes.join(', ')}`

/**
 * The request's chunking, each option it leaves out taken from the configuration. The default
 * overlap, when it would not be below the chunk size asked for, becomes the same share of it
 * (100-token chunks with the defaults 1000/200 overlap by 20).
 */
const chunkingOf = (config: KbConfig, options: Partial<Chunking>): Chunking => {
  const { chunkSize, chunkOverlap } = config.ingestion
  const chunkSizeTokens = options.chunkSizeTokens ?? chunkSize
  return {
    chunkSizeTokens,
    overlapTokens:
      options.overlapTokens ??
      (chunkOverlap < chunkSizeTokens ? chunkOverlap : Math.floor((chunkSizeTokens * chunkOverlap) / chunkSize)),
    preserveSentences: options.preserveSentences ?? true,
  }
}
