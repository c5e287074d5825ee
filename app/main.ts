import * as E from 'fp-ts/Either'
import { createLogger } from '../adapters/logger'
import { loadConfig } from './config'
import { ensureConsole } from './console'
import { startService } from './service'

const config = loadConfig(process.env)
if (E.isLeft(config)) {
  process.stderr.write(`${config.left}\n`)
  process.exit(1)
}
const log = createLogger(config.right.logLevel)
// The web console is built (a second or two) when its build is missing or older than its sources.
if (config.right.roles.includes('api')) await ensureConsole(log)
// A start that cannot happen (the database missing or refusing, DATA_DIR held by another
// process) says why in one line and exits, rather than dying with a stack trace.
const service = await startService(config.right, log).catch((error: Error) => {
  log.fatal({ err: error }, 'the service could not start')
  process.stderr.write(`Cannot start: ${error.message}\n`)
  process.exit(1)
})

const shutdown = (signal: string) => {
  log.info({ signal }, 'shutting down')
  const force = setTimeout(() => {
    log.error({ open: service.pending() }, 'shutdown timed out; exiting')
    process.exit(1)
  }, config.right.shutdownTimeoutMs)
  force.unref()
  service.stop().then(
    () => process.exit(0),
    (error) => {
      log.error({ err: error }, 'shutdown failed')
      process.exit(1)
    },
  )
}
process.once('SIGTERM', () => shutdown('SIGTERM'))
process.once('SIGINT', () => shutdown('SIGINT'))
