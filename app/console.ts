import fs from 'node:fs'
import path from 'node:path'
import type { Logger } from 'pino'
import { CONSOLE_DIST } from '../api/console'

const WEB = path.dirname(CONSOLE_DIST)

/** The newest change to the console's sources (web/, but its build). */
const newestSource = (dir = WEB): number =>
  Math.max(
    0,
    ...fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => !(dir === WEB && (d.name === 'dist' || d.name.startsWith('dist.'))))
      .map((d) =>
        d.isDirectory() ? newestSource(path.join(dir, d.name)) : fs.statSync(path.join(dir, d.name)).mtimeMs,
      ),
  )

/** Whether the console's build is there and newer than its sources. */
const built = () => {
  const index = path.join(CONSOLE_DIST, 'index.html')
  if (!fs.existsSync(index)) return false
  // An installed image has its build and no sources to compare with.
  return !fs.existsSync(path.join(WEB, 'src')) || fs.statSync(index).mtimeMs >= newestSource()
}

/**
 * Builds the web console (web/ with Vite, into web/dist) when its build is missing or older than
 * its sources, so `npm install && npm start` needs no other step. The build goes to a folder of its
 * own, renamed into place once whole: a process serving meanwhile sees no build or a whole one.
 * Without Vite (an install without dev dependencies), the console stays unbuilt and says so; the
 * API is unaffected.
 */
export const ensureConsole = async (log: Pick<Logger, 'info' | 'warn'>): Promise<boolean> => {
  if (built()) return true
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
    // Another process may have built it meanwhile: either build will do.
    if (!built()) {
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
