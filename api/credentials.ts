const MAX_CREDENTIALS = 10_000

/**
 * Access-token, API-key and OAuth-grant rows by hash, kept until the accounts or OAuth projection next writes (a
 * token, key or grant issued or revoked, a member added, changed or removed; in a process sharing a server, when its
 * runner reads another's write), so most requests skip the lookup. A lookup that raced such a
 * write is not kept; expiry and revocation are checked on every use.
 */
export class CredentialCache {
  private rows = new Map<string, unknown>()
  private generation = 0

  clear() {
    this.rows.clear()
    this.generation++
  }

  /** `key` names the kind of credential and its hash: a token's row must never answer for a key. */
  async get<R>(
    key: `token:${string}` | `key:${string}` | `grant:${string}`,
    read: () => Promise<R | undefined>,
  ): Promise<R | undefined> {
    // A key names one kind of credential, so what it holds is what its reader read.
    if (this.rows.has(key)) return this.rows.get(key) as R
    const generation = this.generation
    const row = await read()
    if (row && generation === this.generation) {
      if (this.rows.size >= MAX_CREDENTIALS) this.rows.clear()
      this.rows.set(key, row)
    }
    return row
  }
}
