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
// The last line of defence: a fault that escaped every handler is logged, and the service goes on
// (each part recovers on its own: a lost connection is replaced, a failed task is retried).
process.on('uncaughtException', (error) => log.error({ err: error }, 'uncaught exception; the service goes on'))
process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled rejection; the service goes on'))
// The web console is built (a second or two) when its build is missing or older than its sources.
if (config.right.roles.includes('api')) await ensureConsole(log)
// A start that cannot happen (the database missing or refusing, DATA_DIR held by another
// process) says why in one line and exits, rather than dying with a stack trace.
const service = await startService(config.right, log).catch((error: Error) => {
  log.fatal({ err: error }, 'the service could not start')
  process.stderr.write(`Cannot start: ${error.message}\n`)
  process.exit(1)
})

// `npm start` runs node itself, but a group signal (a terminal's Ctrl-C, a process manager's stop)
// often arrives twice: once from the terminal or manager, once relayed by npm. The first signal
// stops; a second says a stop is under way; only a third forces the exit, naming what was left.
let signals = 0
const onSignal = (signal: string) => {
  signals++
  if (signals === 1) return shutdown(signal)
  if (signals === 2)
    return log.warn({ signal, step: service.pending().step }, 'a stop is under way; signal again to force the exit')
  log.error({ signal, open: service.pending() }, 'forced exit: what was still open is named here')
  process.exit(1)
}

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
process.on('SIGTERM', () => onSignal('SIGTERM'))
process.on('SIGINT', () => onSignal('SIGINT'))
