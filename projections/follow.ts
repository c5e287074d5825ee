import pg from 'pg'
import type { Logger } from 'pino'
import type { Database } from '../adapters/db'

/** The channel on which the process running the projectors says how far they got (a server only). */
const PROJECTED_CHANNEL = 'kb_projected'
/** How often a follower reads the checkpoint rows, in case a notice was lost. */
const FOLLOW_POLL_MS = 1000

/** What a follower hears: each projector's position (or one position all reached), and which wrote. */
export interface Report {
  positions: Map<string, number> | number
  written: string[]
}

/** Tells following processes how far every projector got, and which wrote (a server only). */
export const announce = async (db: Database, position: number, written: string[], log: Logger) => {
  if (!db.url) return
  await db.pool
    .query('SELECT pg_notify($1, $2)', [PROJECTED_CHANNEL, JSON.stringify({ position, written })])
    .catch((error: Error) => log.warn({ err: error }, 'could not announce the projections position'))
}

/**
 * Follows projectors that another process runs: the notices it sends after each batch, on a
 * connection of this process's own (a server only), and the checkpoint rows every second, since a
 * notice may be lost (the poll also listens again after the connection failed).
 */
export class ProjectionFollower {
  private timer?: NodeJS.Timeout
  private client?: pg.Client

  constructor(
    private readonly db: Database,
    private readonly names: string[],
    private readonly log: Logger,
    private readonly hear: (report: Report) => void,
  ) {}

  async start() {
    await this.readCheckpoints()
    this.timer = setInterval(() => void this.poll(), FOLLOW_POLL_MS)
    await this.listen().catch((error: Error) => this.log.warn({ err: error }, 'cannot listen for projections; polling'))
  }

  async stop() {
    clearInterval(this.timer)
    this.timer = undefined
    const client = this.client
    this.client = undefined
    await client?.end().catch(() => undefined)
  }

  private async listen() {
    if (!this.db.url || !this.timer || this.client) return
    const client = new pg.Client({ connectionString: this.db.url, keepAlive: true })
    this.client = client
    client.on('error', () => {
      if (this.client === client) this.client = undefined
      void client.end().catch(() => undefined)
    })
    client.on('notification', (n) => this.notice(n.payload ?? ''))
    try {
      await client.connect()
      await client.query(`LISTEN ${PROJECTED_CHANNEL}`)
    } catch (error) {
      if (this.client === client) this.client = undefined
      await client.end().catch(() => undefined)
      throw error
    }
  }

  private async poll() {
    await this.readCheckpoints().catch(() => undefined)
    await this.listen().catch(() => undefined)
  }

  private async readCheckpoints() {
    const { rows } = await this.db.pool.query<{ name: string; position: string }>(
      'SELECT name, position FROM projection_checkpoints WHERE name = ANY($1::text[])',
      [this.names],
    )
    this.hear({ positions: new Map(rows.map((r) => [r.name, Number(r.position)])), written: [] })
  }

  /** The leading process's notice: every projector reached `position`; `written` wrote a batch. */
  private notice(payload: string) {
    try {
      const { position, written } = JSON.parse(payload) as { position: number; written?: string[] }
      this.hear({ positions: Number(position) || 0, written: written ?? [] })
    } catch {}
  }
}
