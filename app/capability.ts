import type { Surface } from '../api/app'
import type { AnyRoute } from '../api/route'
import type { Tool } from '../api/tools'
import type { StreamCategory } from '../commands/streams'
import type { Projectors } from '../projections'

/**
 * What a capability brings to the service, declared in one module of its own (app/capabilities/): the
 * service is the list of them (app/capabilities/index.ts). The shared layers take what is declared here
 * as inputs: the route table and the tools (api/app.ts), the projectors (projections/index.ts), the stream
 * categories (what members read of the log, what operators look up by a bare id).
 */
export interface Capability {
  /** Its folder's name in each layer grouped by capability (domain, commands, projections, queries, workers, api). */
  name: string
  /** The capabilities whose folders' index.ts it imports (the structure test holds it to them). */
  uses: string[]
  streams: StreamCategory[]
  projectors: Projectors
  routes: AnyRoute[]
  tools: Tool[]
  /** Endpoints it serves outside the route table, with their OpenAPI paths. */
  mounts: Surface['mounts']
}
