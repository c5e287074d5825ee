import * as t from 'io-ts'
import * as E from 'fp-ts/Either'
import type { Decider } from '../shared'

/** An operator re-embedded a workspace's chunks with `model`; its vectors replace the old ones at once. */
export const EmbeddingsRebuilt = t.type({
  type: t.literal('EmbeddingsRebuilt'),
  data: t.type({ workspaceId: t.string, model: t.string, chunkCount: t.number }),
})
export type EmbeddingsRebuilt = t.TypeOf<typeof EmbeddingsRebuilt>

export type EmbeddingsCommand = { type: 'RebuildEmbeddings'; data: EmbeddingsRebuilt['data'] }

export const embeddings: Decider<EmbeddingsCommand, EmbeddingsRebuilt, null> = {
  events: EmbeddingsRebuilt,
  initialState: () => null,
  evolve: () => null,
  decide: (command) => E.right([{ type: 'EmbeddingsRebuilt', data: command.data }]),
}
