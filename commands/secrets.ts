import { createHash, randomBytes } from 'node:crypto'

/**
 * A new random secret with a readable prefix: kbt_ access token, kbk_ API key, kba_ admin token; kbo_, kbr_, kbc_
 * OAuth's access token, refresh token and authorization code.
 */
export const newSecret = (prefix: 'kbt' | 'kbk' | 'kba' | 'kbo' | 'kbr' | 'kbc') =>
  `${prefix}_${randomBytes(32).toString('base64url')}`

/** Tokens and keys are stored only as this hash. */
export const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex')
