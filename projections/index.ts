import { accountsProjector } from './accounts'
import { auditProjector } from './audit'
import type { Projector } from './projector'

/** Every projector of the service, in the order they are installed. */
export const projectors: Projector[] = [accountsProjector, auditProjector]
