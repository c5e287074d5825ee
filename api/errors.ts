import type { DomainError, ErrorCode as DomainCode } from '../domain/shared'

export type ErrorCode =
  | DomainCode
  | 'UNAUTHORIZED'
  | 'INVALID_TOKEN'
  | 'METHOD_NOT_ALLOWED'
  | 'PAYLOAD_TOO_LARGE'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'SERVICE_UNAVAILABLE'

/** The one table from error code to HTTP status. */
export const statusOf = (code: ErrorCode): number => {
  switch (code) {
    case 'VALIDATION_ERROR':
      return 400
    case 'UNAUTHORIZED':
    case 'INVALID_TOKEN':
      return 401
    case 'FORBIDDEN':
    case 'WORKSPACE_ACCESS_DENIED':
    case 'QUOTA_EXCEEDED':
      return 403
    case 'NOT_FOUND':
      return 404
    case 'METHOD_NOT_ALLOWED':
      return 405
    case 'CONFLICT':
    case 'VERSION_CONFLICT':
      return 409
    case 'PAYLOAD_TOO_LARGE':
      return 413
    case 'RATE_LIMITED':
      return 429
    case 'INTERNAL_ERROR':
      return 500
    case 'SERVICE_UNAVAILABLE':
      return 503
  }
}

/** An expected failure raised outside a handler's return value (authentication, body parsing). */
export class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: string[],
    readonly headers?: Record<string, string>,
  ) {
    super(message)
  }
  static of(e: DomainError) {
    return new ApiError(e.code, e.message, e.details)
  }
}

export const envelopeOf = (code: ErrorCode, message: string, details?: string[]) => ({
  success: false as const,
  error: details && details.length ? { code, message, details } : { code, message },
})
