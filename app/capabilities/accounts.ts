import { adminRoutes, authRoutes, grantRoutes, mountOAuth, oauthOpenApi } from '../../api/accounts'
import { accountStreams } from '../../commands/accounts'
import { accountsProjector, oauthProjector } from '../../projections/accounts'
import type { Capability } from '../capability'

/** Users, workspaces, members, tokens, API keys and OAuth grants. */
export const accounts: Capability = {
  name: 'accounts',
  uses: [],
  streams: accountStreams,
  projectors: () => [accountsProjector, oauthProjector],
  routes: [...authRoutes, ...grantRoutes, ...adminRoutes],
  tools: [],
  mounts: [{ mount: mountOAuth, openApi: oauthOpenApi }],
}
