import * as t from 'io-ts'
import * as c from '../codecs'

// What the accounts routes answer, as io-ts codecs: each answer is encoded by its codec, and the
// OpenAPI document describes it from the same codec.

const d = c.described
const Role = d(t.string, 'owner, admin, editor or viewer')
const Membership = c.object({ id: t.string, name: t.string, role: Role })

export const Validated = c.object({
  valid: t.literal(true),
  user: c.object({
    id: t.string,
    email: t.string,
    name: t.string,
    current_workspace: Membership,
    workspaces: d(t.array(Membership), "The user's workspaces, to switch between"),
  }),
  token: c.object({ issued_at: t.string, expires_at: t.string }),
})

export const Switched = c.object({
  workspace: c.object({
    id: t.string,
    name: t.string,
    slug: t.string,
    role: Role,
    permissions: t.array(t.string),
  }),
  access_token: d(t.string, 'A new token for that workspace'),
})

export const User = c.object({ id: t.string, email: t.string, name: t.string })
export const Workspace = c.object({ id: t.string, name: t.string, slug: t.string })
export const Member = c.object({ workspaceId: t.string, userId: t.string, role: Role })
export const MemberRemoved = c.object({ workspaceId: t.string, userId: t.string, removed: t.literal(true) })
export const Token = c.object({
  id: t.string,
  access_token: d(t.string, 'Shown once; stored only as a hash'),
  expires_at: t.string,
})
export const ApiKey = c.object({ id: t.string, api_key: d(t.string, 'Shown once; stored only as a hash') })
export const Revoked = c.object({ revoked: t.literal(true) })

export const AuthorizationView = c.object({
  client: c.object({ id: t.string, name: d(t.string, 'The name the client registered with') }),
  redirectUri: d(t.string, 'Where the browser goes back to'),
  scopes: d(t.array(t.string), 'What the client asks for: kb:read, and kb:write'),
  resource: d(t.string, 'The MCP endpoint the access is for'),
})

export const AuthorizationDecision = c.object(
  { redirectTo: d(t.string, "The client's redirect URI with the code (or the refusal): send the browser there") },
  { grantId: t.string },
)

export const Grants = c.object({
  items: t.array(
    c.object(
      {
        id: t.string,
        clientId: t.string,
        clientName: t.string,
        userId: d(t.string, 'Who granted it'),
        userName: t.string,
        scopes: t.array(t.string),
        createdAt: t.string,
        status: d(t.string, 'pending (its code not yet used), active or revoked'),
      },
      { lastRefreshedAt: t.string, revokedAt: t.string },
    ),
  ),
})

export const ApiKeys = c.object({
  items: t.array(
    c.object(
      { id: t.string, name: t.string, createdAt: t.string, status: d(t.string, 'active or revoked') },
      { revokedAt: t.string },
    ),
  ),
})
