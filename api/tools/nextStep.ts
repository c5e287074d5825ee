import type { DomainError } from '../../domain/shared'

/**
 * What an agent can do about a tool's failure, in one sentence: the envelope's code says what went
 * wrong, this says how to go on (re-read, search, fix an argument, or hand over to a person).
 */
export const nextStepOf = (tool: string, error: DomainError): string => {
  const onPages = /page|proposal/.test(tool)
  switch (error.code) {
    case 'VERSION_CONFLICT': {
      const current = error.details?.map((d) => /^currentVersion: (\d+)/.exec(d)?.[1]).find(Boolean)
      const at = current ? ` (it is at version ${current})` : ''
      return (
        `re-read the page with page_read${at}, apply your change to what it says now, ` +
        'then write again with that version as expectedVersion'
      )
    }
    case 'NOT_FOUND':
      if (/proposal/.test(tool)) return 'check the proposalId: use the one page_write answered when it held your write'
      return onPages
        ? 'find the page with page_search (ids and titles are of this workspace; a deleted page is gone)'
        : 'find the entry with kb_search (ids are of this workspace; a deleted entry is gone)'
    case 'VALIDATION_ERROR':
      return 'fix the arguments the details name, then call again'
    case 'CONFLICT':
      return onPages
        ? 'the page exists already: read it with page_read, then append to it or replace it with expectedVersion'
        : 'read the current state, then try again'
    case 'FORBIDDEN':
      return 'this is for a person to do: tell the user what you tried and why it was refused'
    case 'QUOTA_EXCEEDED':
      return 'tell the user the workspace is at its limit; nothing was written'
    case 'SERVICE_UNAVAILABLE':
      return 'wait a minute and call again; nothing was written'
    default:
      return 'tell the user what failed; nothing was written'
  }
}
