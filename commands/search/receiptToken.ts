import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'

/**
 * An answer receipt as a claim the service checks without a stored record: what a search served,
 * packed in binary and signed with HMAC-SHA256 under a key the token names. The record appended to
 * the log after the answer (query, mode, who) adds to it where it arrived; the token alone is
 * enough to tell whether each result still holds.
 *
 * Agents carry it in their context, so every byte counts. Layout (integers as unsigned LEB128
 * varints, ids as a UUID's 16 bytes or a length-prefixed string): format 1, kind (0 entries, 1
 * pages), key id, the read models' log position, the moment searched (position + 1; 0 for now), the
 * time issued (seconds), 4 random bytes (two searches alike in every other way are two receipts,
 * and two records), then each result: its id, version, chunk index and the first 16 bytes of
 * the SHA-256 of the text served. The tag is the first 16 bytes of HMAC-SHA256(key, "kb-receipt" ‖
 * workspace id ‖ payload): the workspace is signed for without being written, so a receipt checks
 * out only in its own workspace. The token is base64url of payload and tag; the search's id (its
 * record's stream) is the tag, written as a UUID.
 */
export interface ReceiptClaim {
  kind: 'knowledge' | 'pages'
  keyId: string
  workspaceId: string
  position: number
  asOf?: number
  issuedAt: Date
  /** sha256: hex, of the text served (a full hash is cut to its first 16 bytes). */
  results: Array<{ id: string; version: number; chunkIndex: number; sha256: string }>
}

/** Bytes of each served text's SHA-256 a token keeps (128 bits: a change goes unseen with odds of 2^-128). */
export const HASH_BYTES = 16

const FORMAT = 1
const TAG_BYTES = 16
const NONCE_BYTES = 4
const DOMAIN = Buffer.from('kb-receipt')
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

class Writer {
  private parts: Buffer[] = []
  byte(n: number) {
    this.parts.push(Buffer.from([n]))
  }
  varint(n: number) {
    const out: number[] = []
    let v = n
    do {
      let b = v % 128
      v = Math.floor(v / 128)
      if (v > 0) b |= 0x80
      out.push(b)
    } while (v > 0)
    this.parts.push(Buffer.from(out))
  }
  bytes(b: Buffer) {
    this.parts.push(b)
  }
  text(s: string) {
    const b = Buffer.from(s, 'utf8')
    this.varint(b.length)
    this.parts.push(b)
  }
  id(s: string) {
    if (UUID.test(s)) {
      this.byte(1)
      this.bytes(Buffer.from(s.replaceAll('-', ''), 'hex'))
    } else {
      this.byte(2)
      this.text(s)
    }
  }
  done() {
    return Buffer.concat(this.parts)
  }
}

/** Reads what Writer wrote; any overrun or bad tag throws (the token is then no receipt). */
class Reader {
  private at = 0
  constructor(private readonly b: Buffer) {}
  byte() {
    if (this.at >= this.b.length) throw new Error('short')
    return this.b[this.at++]
  }
  varint() {
    let n = 0
    for (let shift = 1; ; shift *= 128) {
      const b = this.byte()
      n += (b & 0x7f) * shift
      if (!(b & 0x80)) return n
      if (shift > 2 ** 49) throw new Error('varint too long')
    }
  }
  bytes(n: number) {
    if (this.at + n > this.b.length) throw new Error('short')
    const out = this.b.subarray(this.at, this.at + n)
    this.at += n
    return out
  }
  text() {
    return this.bytes(this.varint()).toString('utf8')
  }
  id() {
    const tag = this.byte()
    if (tag === 2) return this.text()
    if (tag !== 1) throw new Error('bad id')
    return uuidOf(this.bytes(16))
  }
  end() {
    if (this.at !== this.b.length) throw new Error('trailing bytes')
  }
}

const tagOf = (secret: Buffer, workspaceId: string, payload: Buffer) => {
  const workspace = new Writer()
  workspace.text(workspaceId)
  return createHmac('sha256', secret)
    .update(DOMAIN)
    .update(workspace.done())
    .update(payload)
    .digest()
    .subarray(0, TAG_BYTES)
}

const uuidOf = (b: Buffer) => {
  const h = b.toString('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`
}

/** A signed token, and the search id it gives its record. */
export const signReceipt = (claim: ReceiptClaim, secret: Buffer): { token: string; searchId: string } => {
  const w = new Writer()
  w.byte(FORMAT)
  w.byte(claim.kind === 'knowledge' ? 0 : 1)
  w.text(claim.keyId)
  w.varint(claim.position)
  w.varint(claim.asOf === undefined ? 0 : claim.asOf + 1)
  w.varint(Math.floor(claim.issuedAt.getTime() / 1000))
  w.bytes(randomBytes(NONCE_BYTES))
  w.varint(claim.results.length)
  for (const r of claim.results) {
    w.id(r.id)
    w.varint(r.version)
    w.varint(r.chunkIndex)
    w.bytes(Buffer.from(r.sha256, 'hex').subarray(0, HASH_BYTES))
  }
  const payload = w.done()
  const tag = tagOf(secret, claim.workspaceId, payload)
  return { token: Buffer.concat([payload, tag]).toString('base64url'), searchId: uuidOf(tag) }
}

export type ReadClaim = Omit<ReceiptClaim, 'workspaceId'> & { searchId: string }

/**
 * A token's claim, unchecked (`signedBy` checks it): which key signed it, and what it says was
 * served. Undefined for anything malformed.
 */
export const readClaim = (token: string): ReadClaim | undefined => {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return undefined
  const raw = Buffer.from(token, 'base64url')
  // One spelling per token: a variant that decodes to the same bytes is not the token handed out.
  if (raw.length <= TAG_BYTES || raw.toString('base64url') !== token) return undefined
  try {
    const r = new Reader(raw.subarray(0, raw.length - TAG_BYTES))
    if (r.byte() !== FORMAT) return undefined
    const kind = r.byte() === 0 ? 'knowledge' : 'pages'
    const keyId = r.text()
    const position = r.varint()
    const asOf = r.varint()
    const issuedAt = new Date(r.varint() * 1000)
    r.bytes(NONCE_BYTES)
    const results: ReceiptClaim['results'] = []
    for (let n = r.varint(); n > 0; n--)
      results.push({
        id: r.id(),
        version: r.varint(),
        chunkIndex: r.varint(),
        sha256: r.bytes(HASH_BYTES).toString('hex'),
      })
    r.end()
    const searchId = uuidOf(raw.subarray(raw.length - TAG_BYTES))
    return { kind, keyId, searchId, position, ...(asOf ? { asOf: asOf - 1 } : {}), issuedAt, results }
  } catch {
    return undefined
  }
}

/** Whether the token's tag is the one `secret` gives its payload in `workspaceId` (compared in constant time). */
export const signedBy = (token: string, workspaceId: string, secret: Buffer): boolean => {
  const raw = Buffer.from(token, 'base64url')
  if (raw.length <= TAG_BYTES) return false
  const payload = raw.subarray(0, raw.length - TAG_BYTES)
  return timingSafeEqual(raw.subarray(raw.length - TAG_BYTES), tagOf(secret, workspaceId, payload))
}
