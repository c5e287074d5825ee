// What the benchmarks start and report with: the whole service on PGlite in a temporary data
// directory, and percentiles of latencies.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import * as E from 'fp-ts/Either'
import { createLogger } from '../../adapters/logger'
import { loadConfig } from '../../app/config'
import { startService } from '../../app/service'

export const BENCH_ADMIN = 'bench-admin-token-0123456789'

/** The p-th percentile of some latencies. */
export const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]

/**
 * The service on a free port with the admin token BENCH_ADMIN (`env`: more of its configuration); `stop` also removes
 * its data directory.
 */
export const benchService = async (name: string, embedder = 'hashing', env: Record<string, string> = {}) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `kb-bench-${name}-`))
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    KB_ADMIN_TOKEN: BENCH_ADMIN,
    EMBEDDER: embedder,
    LOG_LEVEL: 'silent',
    ...env,
  })
  if (E.isLeft(config)) throw new Error(config.left)
  const service = await startService(config.right, createLogger('silent'))
  return {
    service,
    dataDir,
    stop: async () => {
      await service.stop()
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
