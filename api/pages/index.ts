/**
 * Routes and tools of pages, their versions, proposals, collections and packs.
 * What other capabilities and the shared code may use of them; they reach nothing else here.
 */
export * from './answers'
export * from './collections'
export * from './packs'
export * from './pageTools'
export * from './pageUndoTools'
export * from './pageVersions'
export * from './pages'
export * from './proposalTools'
export * from './shapes'
