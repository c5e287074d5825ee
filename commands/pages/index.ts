/**
 * Commands of pages, their versions, proposals, collections and packs.
 * What other capabilities and the shared code may use of them; they reach nothing else here.
 */
export * from './collections'
export * from './pages'
export * from './proposals'
export * from './writes'
