import type { Surface } from '../../api/app'
import { reservationStreams } from '../../commands/reservations'
import { streamCatalog } from '../../commands/streams'
import type { Projectors } from '../../projections'
import type { Capability } from '../capability'
import { accounts } from './accounts'
import { knowledge } from './knowledge'
import { log } from './log'
import { pages } from './pages'
import { search } from './search'

/** The capabilities of the service. A new one is its folders in each layer, its module here, and one line below. */
export const capabilities: Capability[] = [knowledge, pages, search, accounts, log]

/** What the service serves over HTTP: every capability's routes, tools and mounts. */
export const surface: Surface = {
  routes: capabilities.flatMap((c) => c.routes),
  tools: capabilities.flatMap((c) => c.tools),
  mounts: capabilities.flatMap((c) => c.mounts),
}

/** Every capability's projectors, in the order of the list. */
export const projectors: Projectors = (deps) => capabilities.flatMap((c) => c.projectors(deps))

/** Every capability's stream categories, and the reservations every capability shares. */
export const streams = streamCatalog([...capabilities.flatMap((c) => c.streams), ...reservationStreams])
