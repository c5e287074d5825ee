import { ADMIN, type Call, ok } from './service'

/** An API key of the workspace, named as the agent client it stands for. */
export const newKey = async (call: Call, workspaceId: string, name: string) =>
  ok(await call('POST', '/api/v1/admin/api-keys', { token: ADMIN, body: { workspaceId, name } }), 201) as {
    id: string
    api_key: string
  }

/** `POST /api/v1/tools/{tool}/execute` with an API key. */
export const tool = (call: Call, key: string, name: string, args: unknown) =>
  call('POST', `/api/v1/tools/native:${name}/execute`, { body: { arguments: args }, headers: { 'x-api-key': key } })

export const turnVerificationOn = async (call: Call, token: string) =>
  ok(await call('PATCH', '/api/v1/knowledge/config', { token, body: { verification: { enabled: true } } }))
