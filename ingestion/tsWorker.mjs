// Worker threads do not inherit tsx's loader: this bootstrap registers it, then loads the
// TypeScript module named in workerData.module.
import { workerData } from 'node:worker_threads'
import { register } from 'tsx/esm/api'

register()
await import(workerData.module)
