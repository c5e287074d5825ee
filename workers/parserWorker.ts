import { parentPort } from 'node:worker_threads'
import { ParseError, parse } from './parsers'

// One parse at a time per worker; the pool kills and replaces a worker that overruns.
parentPort!.on('message', async ({ id, input }) => {
  try {
    parentPort!.postMessage({ id, ok: true, parsed: await parse(input) })
  } catch (error) {
    parentPort!.postMessage({ id, ok: false, expected: error instanceof ParseError, message: (error as Error).message })
  }
})
