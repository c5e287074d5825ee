/**
 * Reads of pages, their versions, proposals, collections and packs.
 * What other capabilities and layers may use of them: a page and its versions, which the as-of reads and MCP's
 * resources use.
 * The rest is pages' own.
 */
export { readPage, readVersion, versionView } from './pages'
export type { VersionRow } from './pages'
