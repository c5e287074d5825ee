import { parentPort } from 'node:worker_threads'
import { countTokens } from '../adapters/text'
import { chunkSections } from './chunker'
import { ParseError, parse } from './parsers'
import type { WorkerJob } from './parserPool'

// The tokenizer's ranks load at boot (a few hundred ms), not on the first chunking.
countTokens('warm up')

// One job at a time per worker; the pool kills and replaces a worker that overruns.
parentPort!.on('message', async ({ id, job }: { id: number; job: WorkerJob }) => {
  try {
    const result =
      job.kind === 'parse'
        ? await parse(job.input, (progress) => parentPort!.postMessage({ id, progress }))
        : chunkSections(job.sections, job.options)
    parentPort!.postMessage({ id, ok: true, result })
  } catch (error) {
    const detail = error instanceof ParseError ? error.detail : (error as Error).stack
    parentPort!.postMessage({
      id,
      ok: false,
      expected: error instanceof ParseError,
      message: (error as Error).message,
      detail,
    })
  }
})

// Its modules are loaded and its tokenizer warm: the first job does not wait for them (ParserPool.warm).
parentPort!.postMessage({ ready: true })
