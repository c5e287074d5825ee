import { randomBytes } from 'node:crypto'
import { type Database, type Queryable, inTransaction } from './db'

const SCHEMA = `CREATE TABLE IF NOT EXISTS kb_receipt_keys (
  id text PRIMARY KEY, secret bytea NOT NULL, created_at timestamptz NOT NULL DEFAULT clock_timestamp())`
const LOCK = 7_300_011
/**
 * Another process may have rotated or removed a key: the keys are looked up again after this long
 * (and a key an older one replaced is kept at least this long, while processes may still sign with it).
 */
const REFRESH_MS = 60_000
/** A token naming a key this process has not seen makes it look again at most this often. */
const MISS_MS = 1000

export interface ReceiptKey {
  id: string
  secret: Buffer
  createdAt: Date
}

/**
 * The keys answer receipts are signed with, kept in the database so that every process of a
 * deployment signs and checks alike. The newest key signs; every key still here checks the
 * receipts it signed, so a rotation leaves older receipts checkable until their key is removed.
 */
export class ReceiptKeys {
  private keys = new Map<string, ReceiptKey>()
  private newest?: ReceiptKey
  private loadedAt = 0
  private missedAt = 0

  private constructor(private readonly db: Queryable) {}

  /** Opens the key set, making its first key when there is none. */
  static async open(db: Database) {
    await inTransaction(db.pool, async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK])
      await tx.query(SCHEMA)
      const { rows } = await tx.query('SELECT 1 FROM kb_receipt_keys LIMIT 1')
      if (rows.length === 0) await insertKey(tx)
    })
    const keys = new ReceiptKeys(db.pool)
    await keys.load()
    return keys
  }

  private async load() {
    const { rows } = await this.db.query<{ id: string; secret: Buffer; created_at: Date }>(
      'SELECT id, secret, created_at FROM kb_receipt_keys ORDER BY created_at, id',
    )
    this.keys = new Map(rows.map((r) => [r.id, { id: r.id, secret: r.secret, createdAt: r.created_at }]))
    this.newest = [...this.keys.values()].at(-1)
    this.loadedAt = Date.now()
  }

  /** The key that signs now. */
  async signing(): Promise<ReceiptKey> {
    if (!this.newest || Date.now() - this.loadedAt > REFRESH_MS) await this.load()
    if (!this.newest) throw new Error('no receipt key: rotate one in (kb receipt-keys rotate)')
    return this.newest
  }

  /**
   * A key by its id, or undefined. The keys are looked up again when they are older than
   * REFRESH_MS (a key removed elsewhere stops checking), and for an id this process has not seen,
   * at most every MISS_MS (tokens naming made-up keys cost no lookup each).
   */
  async byId(id: string): Promise<ReceiptKey | undefined> {
    const now = Date.now()
    if (now - this.loadedAt > REFRESH_MS || (!this.keys.has(id) && now - this.missedAt > MISS_MS)) {
      if (!this.keys.has(id)) this.missedAt = now
      await this.load()
    }
    return this.keys.get(id)
  }

  /** Makes a new key the signing one; the older keys still check what they signed. Answers its id. */
  async rotate(): Promise<string> {
    const id = await insertKey(this.db)
    await this.load()
    return id
  }

  /**
   * Removes a key: the receipts it signed are no longer checkable. The signing key cannot be
   * removed, nor the one it replaced while other processes may still sign with that (REFRESH_MS).
   */
  async remove(id: string): Promise<'removed' | 'signing' | 'recent' | 'unknown'> {
    await this.load()
    if (this.newest?.id === id) return 'signing'
    if (this.keys.has(id) && this.newest && Date.now() - this.newest.createdAt.getTime() < REFRESH_MS) return 'recent'
    const { rowCount } = await this.db.query('DELETE FROM kb_receipt_keys WHERE id = $1', [id])
    await this.load()
    return rowCount ? 'removed' : 'unknown'
  }

  /** The keys' ids and ages, newest (signing) last; never their secrets. */
  async list() {
    await this.load()
    return [...this.keys.values()].map((k) => ({
      id: k.id,
      createdAt: k.createdAt.toISOString(),
      signing: k.id === this.newest?.id,
    }))
  }
}

const insertKey = async (q: Queryable): Promise<string> => {
  const id = randomBytes(3).toString('hex')
  const { rowCount } = await q.query(
    'INSERT INTO kb_receipt_keys (id, secret) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING',
    [id, randomBytes(32)],
  )
  return rowCount ? id : insertKey(q)
}
