import * as E from 'fp-ts/Either'
import { FetchError, checkUrl } from '../adapters/fetcher'
import { type DomainError, fail } from '../domain/shared'

/** A URL a task may fetch, or the reason it may not (checked again at every hop when fetched). */
export const acceptUrl = (url: string, allowPrivateUrls: boolean, field = 'url'): E.Either<DomainError, string> => {
  try {
    return E.right(checkUrl(url, allowPrivateUrls).href)
  } catch (error) {
    if (error instanceof FetchError)
      return fail('VALIDATION_ERROR', 'the request is not valid', [`${field}: ${error.message}`])
    throw error
  }
}
