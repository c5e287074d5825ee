import type { Pause } from '../adapters/db'

/** About how long (ms) a statement writing one part of an event's rows runs: two fit in a runner's slice. */
const PART_MS = 10

/** The time a row of one kind took to write lately (ms), which sizes the parts of the next. */
export class Pace {
  msPerRow = 1
  /** The last part's size: a part grows at most twofold, lest rows that cost nothing (unchanged) misjudge it. */
  last = 1
}

/**
 * Writes an event's rows a part at a time, with a pause between parts (the runner may commit there
 * and let readers in), each part sized so that it takes about PART_MS. `write` must be safe to run
 * again over rows it wrote before (the event is applied again after a crash).
 */
export const inParts = async <T>(rows: T[], pace: Pace, pause: Pause, write: (part: T[]) => Promise<void>) => {
  for (let i = 0; i < rows.length; ) {
    const n = Math.min(Math.max(1, Math.floor(PART_MS / pace.msPerRow)), pace.last * 2)
    const part = rows.slice(i, i + n)
    const started = performance.now()
    await write(part)
    pace.msPerRow = 0.5 * pace.msPerRow + 0.5 * ((performance.now() - started) / part.length)
    pace.last = part.length
    i += part.length
    if (i < rows.length) await pause()
  }
}
