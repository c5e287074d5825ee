import fs from 'node:fs'
import path from 'node:path'
import type { Logger } from 'pino'
import { CONSOLE_DIST } from '../api/console'

const WEB = path.dirname(CONSOLE_DIST)

/**
 * Builds the web console (web/ with Vite, into web/dist) when its build is missing, so `npm install
 * && npm start` needs no other step. The build goes to a folder of its own, renamed into place
 * once whole: a process serving meanwhile sees no build or a whole one. Without Vite (an install
 * without dev dependencies), the console stays unbuilt and says so; the API is unaffected.
 */
export const ensureConsole = async (log: Pick<Logger, 'info' | 'warn'>): Promise<boolean> => {
  if (fs.existsSync(path.join(CONSOLE_DIST, 'index.html'))) return true
  const outDir = `${CONSOLE_DIST}.build-${process.pid}`
  let vite: typeof import('vite')
  try {
    vite = await import('vite')
  } catch {
    log.warn({}, 'the web console is not built and Vite is not installed: run `npm ci` then `npm run build:console`')
    return false
  }
  log.info({}, 'building the web console')
  const started = Date.now()
  try {
    await vite.build({ configFile: path.join(WEB, 'vite.config.ts'), build: { outDir }, logLevel: 'warn' })
    if (!fs.existsSync(path.join(CONSOLE_DIST, 'index.html'))) {
      fs.rmSync(CONSOLE_DIST, { recursive: true, force: true })
      fs.renameSync(outDir, CONSOLE_DIST)
    }
    log.info({ ms: Date.now() - started }, 'web console built')
    return true
  } catch (error) {
    log.warn({ err: error }, 'the web console could not be built')
    return false
  } finally {
    fs.rmSync(outDir, { recursive: true, force: true })
  }
}
