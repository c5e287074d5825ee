/**
 * A stream category: the name every one of its streams starts with, `<category>-<key>`, and how a
 * key becomes a stream's name. Each capability names its own categories beside its aggregates.
 */
export interface Category<K extends string[] = [string]> {
  category: string
  stream: (...key: K) => string
}

export function category(name: string): Category
export function category<K extends string[]>(name: string, keyOf: (...key: K) => string): Category<K>
export function category(name: string, keyOf = (...key: string[]) => key[0]) {
  return { category: name, stream: (...key: string[]) => `${name}-${keyOf(...key)}` }
}

/** How a capability declares one of its categories to the service. */
export interface StreamCategory {
  category: string
  /** A member who does not manage the workspace reads its events through the API (the event stream shows them). */
  members?: boolean
  /** People look its streams up by a bare id (an entry's, a page's): an operator need not name the category. */
  lookup?: boolean
}

/** The categories of every capability of the service, as the event stream and the operators' lookups use them. */
export interface StreamCatalog {
  /** What a member who does not manage the workspace sees of its event stream. */
  members: string[]
  /**
   * The streams an operator may mean by an id: the id itself when it names its category
   * (`entry-<id>`), else the streams of the things people look up by a bare id, in the order declared.
   */
  candidates(id: string): string[]
}

export const streamCatalog = (declared: StreamCategory[]): StreamCatalog => {
  const names = declared.map((d) => d.category)
  const twice = names.filter((name, i) => names.indexOf(name) !== i)
  if (twice.length) throw new Error(`stream categories declared twice: ${twice.join(', ')}`)
  const named = new RegExp(`^(${names.join('|')})-`)
  const lookups = declared.filter((d) => d.lookup).map((d) => d.category)
  return {
    members: declared.filter((d) => d.members).map((d) => d.category),
    candidates: (id) => (named.test(id) ? [id] : lookups.map((name) => `${name}-${id}`)),
  }
}
