import { suite } from 'uvu'
import { embeddings } from '../../domain/search/embeddings'
import { given } from '../../testkit/spec'
import { WS, rebuild } from '../helpers/fixtures/workspace'

const test = suite('workspace deciders: embeddings')

test('embeddings: a rebuild records EmbeddingsRebuilt with the model and chunk count', () => {
  given(embeddings, [])
    .when(rebuild)
    .then([{ type: 'EmbeddingsRebuilt', data: { workspaceId: WS, model: 'embed-small', chunkCount: 42 } }])
})

test('embeddings: every rebuild is recorded, even one repeating the last', () => {
  const before = { type: 'EmbeddingsRebuilt' as const, data: rebuild.data }
  given(embeddings, [before])
    .when(rebuild)
    .then([{ type: 'EmbeddingsRebuilt', data: rebuild.data }])
  const empty = { ...rebuild, data: { workspaceId: WS, model: 'all-minilm', chunkCount: 0 } }
  given(embeddings, [before, before])
    .when(empty)
    .then([{ type: 'EmbeddingsRebuilt', data: { workspaceId: WS, model: 'all-minilm', chunkCount: 0 } }])
})

test.run()
